#!/usr/bin/env python3
"""The ops dashboard in a real browser (headless Chromium through Playwright), against the real gateway binary.

Starts `.build/debug/gateway` (or $BROKERGATEWAY_GATEWAY) on port 0 with a temporary data folder, its embedded
sandbox brokers and a short breaker cool-down; reads the served URL and the Alpaca sandbox's URL from its log; opens
/dashboard, is refused a wrong key (401), enters the demo tenant's key (<data>/demo-api-key), keeps /v1/positions
traffic going, injects a 503 fault into the Alpaca sandbox (its /_sandbox/faults admin), waits until the Alpaca card
says failing, clears the fault, waits until it says healthy again, checks the other brokers stayed healthy, links a
TradeIt connection whose login the broker refuses (the sandbox's `fail` login) and waits for its card to say failing,
then stops the gateway and waits for the page to mark its data stale. Every wait is a Playwright wait on the page (no sleeps
standing in for synchronisation).

Screenshots go to .build/dashboard/. With BROKERGATEWAY_DASHBOARD_SCREENSHOT=1 the failing-state screenshot (desktop
width) is also written to docs/dashboard.png.

Environment:
  BROKERGATEWAY_GATEWAY    the gateway binary (default .build/debug/gateway)
  BROKERGATEWAY_CHROMIUM   the Chromium binary (default: `chromium` on PATH, the Debian package)
  BROKERGATEWAY_DASHBOARD_SCREENSHOT=1   also write docs/dashboard.png
Exit status 0 when every check passed.
"""

import json
import os
import shutil
import sys
import tempfile
import threading
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from gateway_process import GatewayProcess  # noqa: E402

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / ".build" / "dashboard"
BROKERS = ["alpaca", "saxo", "tradeit", "tradeogre"]
# How long the breaker stays open before a probe: short, so recovery is quick.
BREAKER_COOL_DOWN_MS = "2000"
STARTUP_TIMEOUT_S = 120
FAILING_TIMEOUT_MS = 60_000
RECOVERY_TIMEOUT_MS = 120_000


def log(message):
    print(f"[dashboard-test] {message}", flush=True)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def redirect_location(url, timeout=10):
    """The Location of a redirect, not followed (the broker's login page sends the browser to the gateway)."""
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(url, timeout=timeout) as response:
            raise AssertionError(f"GET {url} answered {response.status}, not a redirect")
    except urllib.error.HTTPError as error:
        assert error.code in (301, 302, 303, 307), f"GET {url} answered {error.code}"
        return error.headers["Location"]


def link_failing_tradeit(base, key):
    """Links a TradeIt connection through the sandbox's login page with its `fail` login (the broker refuses the
    login behind the link). Returns the connection id and the page the browser lands on."""
    auth = {"Authorization": f"Bearer {key}"}
    status, body = request("POST", f"{base}/v1/connections", {
        "broker": "tradeit", "displayName": "Refused login", "baseURL": "sandbox://tradeit",
        "settings": {"brokerShortName": "Dummy"}, "credentials": {"apiKey": "SANDBOX-TRADEIT-API-KEY"},
    }, headers=auth)
    assert status == 202, body
    started = json.loads(body)["data"]
    callback = urllib.parse.urlsplit(redirect_location(started["popupURL"] + "&autoLogin=fail"))
    status, page = request("GET", f"{base}{callback.path}?{callback.query}")
    assert status == 200, page
    return started["connection"]["id"], page.decode()


def request(method, url, body=None, headers=None, timeout=10):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
    if data is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=timeout) as response:
        return response.status, response.read()


class Traffic:
    """Keeps reads going (what the pipeline measures) and records every broker state /v1/status reports."""

    def __init__(self, base, key):
        self.base, self.key = base, key
        self.stop_event = threading.Event()
        self.seen = {broker: set() for broker in BROKERS}
        self.errors = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.thread.start()

    def _run(self):
        auth = {"Authorization": f"Bearer {self.key}"}
        while not self.stop_event.is_set():
            try:
                request("GET", f"{self.base}/v1/positions", headers=auth)
                _, body = request("GET", f"{self.base}/v1/status", headers=auth)
                for line in json.loads(body)["brokers"]:
                    self.seen.setdefault(line["broker"], set()).add(line["state"])
            except (urllib.error.URLError, OSError, ValueError) as error:
                self.errors.append(repr(error))
            # Pacing of the load, not synchronisation: about five reads a second.
            self.stop_event.wait(0.2)

    def stop(self):
        self.stop_event.set()
        self.thread.join(timeout=15)


def chromium_path():
    path = os.environ.get("BROKERGATEWAY_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        raise AssertionError("no Chromium: install the Debian package (apt-get install chromium) "
                             "or set BROKERGATEWAY_CHROMIUM")
    return path


def card(page, broker):
    return page.locator(f'article.broker[data-broker="{broker}"]')


def main():
    binary = Path(os.environ.get("BROKERGATEWAY_GATEWAY", ROOT / ".build" / "debug" / "gateway"))
    if not binary.is_file():
        raise AssertionError(f"no gateway binary at {binary}: run `swift build --product gateway` first")
    SHOTS.mkdir(parents=True, exist_ok=True)
    data_dir = Path(tempfile.mkdtemp(prefix="bg-dashboard-"))
    gateway = GatewayProcess(
        binary, data_dir, ["--breaker-cool-down-ms", BREAKER_COOL_DOWN_MS], log=log, startup_timeout_s=STARTUP_TIMEOUT_S,
        stop_timeout_s=20)
    traffic = None
    try:
        base, sandboxes = gateway.wait_until_serving()
        log(f"gateway at {base}; sandboxes {sandboxes}")
        assert set(sandboxes) == set(BROKERS), f"expected a log line for each sandbox, got {sorted(sandboxes)}"
        alpaca_admin = sandboxes["alpaca"] + "/_sandbox/faults"
        key = (data_dir / "demo-api-key").read_text().strip()
        assert key.startswith("bgw_"), "the demo key file does not hold an API key"
        args = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium_path(), headless=True, args=args)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            console_errors = []
            page.on("console", lambda message: console_errors.append(message.text) if message.type == "error" else None)
            page.on("pageerror", lambda error: console_errors.append(str(error)))

            response = page.goto(f"{base}/dashboard")
            assert response is not None and response.status == 200, "GET /dashboard"
            csp = response.headers.get("content-security-policy", "")
            assert "script-src 'self'" in csp and "default-src 'none'" in csp, csp

            # A wrong key: 401, asked again, nothing kept.
            expect(page.locator("#key-panel")).to_be_visible()
            page.fill("#api-key", "bgw_wrong_key")
            page.click("#key-submit")
            expect(page.locator("#key-message")).to_contain_text("401", timeout=10_000)
            assert page.evaluate("sessionStorage.length") == 0

            # The demo key: four healthy brokers.
            page.fill("#api-key", key)
            page.click("#key-submit")
            for broker in BROKERS:
                expect(card(page, broker)).to_have_attribute("data-state", "healthy", timeout=30_000)
            assert key not in page.url, "the key must never be in the URL"
            assert page.evaluate("sessionStorage.getItem('brokergateway.apiKey')") == key
            # Each card is titled with its broker's name as GET /v1/brokers gives it (not a list in the page).
            expect(card(page, "saxo").locator("h3")).to_have_text("Saxo Bank", timeout=10_000)
            expect(card(page, "tradeogre").locator("h3")).to_have_text("TradeOgre")

            traffic = Traffic(base, key)
            traffic.start()
            # Traffic shows up: the Alpaca connection's error-rate line counts calls.
            expect(card(page, "alpaca").locator('[data-role="error-rate"] dd')).not_to_contain_text(
                "0/0 calls", timeout=30_000)
            page.screenshot(path=str(SHOTS / "01-healthy.png"), full_page=True)

            # Alpaca fails: every call answers 503.
            status, body = request("POST", alpaca_admin, {"kind": "error", "status": 503})
            assert status == 201, body
            log("503 fault injected into the Alpaca sandbox")
            alpaca = card(page, "alpaca")
            expect(alpaca).to_have_attribute("data-state", "failing", timeout=FAILING_TIMEOUT_MS)
            expect(alpaca.locator("section.connection")).to_have_attribute("data-breaker", "open", timeout=FAILING_TIMEOUT_MS)
            expect(alpaca.locator('[data-role="last-error"]')).to_be_visible()
            for broker in BROKERS[1:]:
                expect(card(page, broker)).to_have_attribute("data-state", "healthy")
            page.screenshot(path=str(SHOTS / "02-alpaca-failing.png"), full_page=True)
            if os.environ.get("BROKERGATEWAY_DASHBOARD_SCREENSHOT") == "1":
                docs = ROOT / "docs" / "dashboard.png"
                page.screenshot(path=str(docs), full_page=True)
                log(f"wrote {docs}")
            phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
            phone.goto(f"{base}/dashboard")
            phone.fill("#api-key", key)
            phone.click("#key-submit")
            expect(card(phone, "alpaca")).to_have_attribute("data-state", "failing", timeout=10_000)
            phone.screenshot(path=str(SHOTS / "02-alpaca-failing-phone.png"), full_page=True)
            phone.close()

            # The fault is gone: the breaker's probe succeeds and Alpaca recovers while traffic continues.
            status, _ = request("DELETE", alpaca_admin)
            assert status == 204
            log("fault cleared")
            expect(alpaca).to_have_attribute("data-state", "healthy", timeout=RECOVERY_TIMEOUT_MS)
            expect(alpaca.locator("section.connection")).to_have_attribute("data-breaker", "closed")
            for broker in BROKERS[1:]:
                expect(card(page, broker)).to_have_attribute("data-state", "healthy")
            page.screenshot(path=str(SHOTS / "03-recovered.png"), full_page=True)
            traffic.stop()
            for broker in BROKERS[1:]:
                assert traffic.seen[broker] == {"healthy"}, f"{broker} was {sorted(traffic.seen[broker])}"
            assert "failing" in traffic.seen["alpaca"], traffic.seen["alpaca"]

            # A TradeIt link whose login the broker refuses is never active: the page says so, and its card fails.
            refused, landing = link_failing_tradeit(base, key)
            log(f"linked {refused} with a refused login")
            assert "is linked" not in landing and "relink_required" in landing, landing
            refused_block = page.locator(f'section.connection[data-connection="{refused}"]')
            expect(refused_block).to_have_attribute("data-state", "failing", timeout=30_000)
            # The refusal came in a 200 answer; it counts as the failed call it was.
            expect(refused_block.locator('[data-role="error-rate"] dd')).not_to_contain_text("0% ·", timeout=10_000)
            page.screenshot(path=str(SHOTS / "04-refused-login.png"), full_page=True)

            # The gateway goes away: the last data stays, marked stale.
            gateway.stop()
            expect(page.locator("body")).to_have_attribute("data-stale", "true", timeout=20_000)
            expect(page.locator("#banner")).to_be_visible()
            expect(card(page, "alpaca")).to_be_visible()
            page.screenshot(path=str(SHOTS / "05-unreachable.png"), full_page=True)

            # Only the expected console noise: the 401 above and the failed polls after the gateway stopped.
            unexpected = [m for m in console_errors if "401" not in m and "Failed to fetch" not in m
                          and "ERR_CONNECTION_REFUSED" not in m and "Failed to load resource" not in m]
            assert not unexpected, f"console errors: {unexpected}"
            browser.close()
        log("PASS: failing and recovery shown; other brokers stayed healthy; stale data marked")
        return 0
    except (AssertionError, PlaywrightError) as error:
        log(f"FAIL: {error}")
        log("gateway log (last 60 lines):\n" + "\n".join(line for line in gateway.log_lines[-60:] if "bgw_" not in line))
        return 1
    finally:
        if traffic is not None:
            traffic.stop()
        gateway.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
