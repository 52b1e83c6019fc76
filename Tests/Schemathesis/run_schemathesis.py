#!/usr/bin/env python3
"""schemathesis against the real gateway: the document it serves is the contract, and the server must keep it.

Starts `.build/debug/gateway` (or $BROKERGATEWAY_GATEWAY) on port 0 with a temporary data folder and its embedded
sandbox brokers, reads the demo tenant's key, then runs schemathesis (pinned in requirements.txt) against the served
/openapi.json with that key, every check (`--checks all`, see schemathesis.toml for the two documented widenings), a
fixed seed and enough examples for at least MIN_CASES generated requests. Passes when schemathesis finds nothing
(0 server errors, 0 schema violations, 0 undocumented statuses), at least MIN_CASES requests were generated, and the
gateway is still running afterwards and logged no internal error.

Environment:
  BROKERGATEWAY_GATEWAY        the gateway binary (default .build/debug/gateway)
  BROKERGATEWAY_SCHEMATHESIS   the schemathesis executable (default: next to this interpreter)
  SCHEMATHESIS_MAX_EXAMPLES    examples per operation (default 60)
  SCHEMATHESIS_SEED            the seed (default 20261125)
Exit status 0 when every check passed. The report (JUnit XML) goes to .build/schemathesis/.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from gateway_process import GatewayProcess  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
REPORTS = ROOT / ".build" / "schemathesis"
MIN_CASES = 1000
STARTUP_TIMEOUT_S = 180


def log(message):
    print(f"[schemathesis] {message}", flush=True)


def generated_cases(junit_path, output):
    """How many test cases schemathesis generated: its summary line, else the JUnit report's test count."""
    match = re.search(r"(\d+) generated", output)
    if match:
        return int(match.group(1))
    if junit_path.exists():
        root = ElementTree.parse(junit_path).getroot()
        return sum(int(suite.get("tests", "0")) for suite in root.iter("testsuite"))
    return 0


def main():
    binary = Path(os.environ.get("BROKERGATEWAY_GATEWAY", ROOT / ".build" / "debug" / "gateway"))
    if not binary.exists():
        log(f"no gateway binary at {binary}: build it first (swift build --product gateway)")
        return 1
    schemathesis = os.environ.get("BROKERGATEWAY_SCHEMATHESIS", str(Path(sys.executable).parent / "schemathesis"))
    max_examples = os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "60")
    seed = os.environ.get("SCHEMATHESIS_SEED", "20261125")
    REPORTS.mkdir(parents=True, exist_ok=True)
    junit = REPORTS / "junit.xml"
    data_dir = Path(tempfile.mkdtemp(prefix="bg-schemathesis-"))
    gateway = GatewayProcess(binary, data_dir, log=log, startup_timeout_s=STARTUP_TIMEOUT_S, stop_timeout_s=30)
    try:
        url, _ = gateway.wait_until_serving()
        key = (data_dir / "demo-api-key").read_text().strip()
        log(f"gateway at {url}; running schemathesis (seed {seed}, {max_examples} examples per operation)")
        command = [
            schemathesis, "--config-file", str(HERE / "schemathesis.toml"), "run", f"{url}/openapi.json",
            "--header", f"Authorization: Bearer {key}",
            "--checks", "all",
            "--max-examples", max_examples,
            "--seed", seed,
            # One worker: CPython 3.11's ast module is not safe across the threads schemathesis would use.
            "--workers", "1",
            "--request-timeout", "30",
            "--generation-database", "none",
            # The event stream answers until the client closes it: schemathesis would wait out its request timeout on
            # every case. Its refusals (400, 404, 422, 429) are tested in Tests/EndToEndTests/StreamEndToEndTests.
            "--exclude-path", "/v1/stream",
            "--report", "junit", "--report-junit-path", str(junit),
        ]
        # The key is passed as an argument to a child process on this machine only; it is a throwaway demo key of a
        # throwaway data folder, and never printed here.
        result = subprocess.run(command, capture_output=True, text=True, cwd=str(REPORTS))
        output = result.stdout + result.stderr
        (REPORTS / "output.txt").write_text(output)
        summary = output[output.rfind("SUMMARY"):] if "SUMMARY" in output else output[-4000:]
        print(summary, flush=True)
        cases = generated_cases(junit, output)
        failures = []
        if result.returncode != 0:
            failures.append(f"schemathesis exited with {result.returncode} (details in .build/schemathesis/output.txt)")
        if cases < MIN_CASES:
            failures.append(f"only {cases} requests were generated; at least {MIN_CASES} are required")
        if gateway.process.poll() is not None:
            failures.append(f"the gateway died during the run (exit {gateway.process.returncode})")
        internal = [line for line in gateway.log_lines if "internal error" in line or "unexpected error" in line]
        if internal:
            failures.append("the gateway logged internal errors:\n" + "\n".join(internal[:10]))
        if failures:
            for failure in failures:
                log("FAIL: " + failure)
            return 1
        log(f"PASS: {cases} generated requests, every check passed, the gateway kept running")
        return 0
    finally:
        gateway.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
