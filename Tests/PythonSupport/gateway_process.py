"""The gateway binary as a child process, for the Python-driven CI checks (Tests/Dashboard, Tests/Schemathesis).

Starts `gateway serve` on port 0 with a data folder, reads its log lines on a thread (kept in `log_lines`), and tells
the URLs it serves at from its log: its own ("BrokerGateway is serving") and each built-in sandbox's ("sandbox broker
is serving", which come first).
"""

import queue
import re
import subprocess
import threading
import time


class GatewayProcess:
    def __init__(self, binary, data_dir, extra_args=(), log=print, startup_timeout_s=180, stop_timeout_s=30):
        self.lines = queue.Queue()
        self.log_lines = []
        self.startup_timeout_s = startup_timeout_s
        self.stop_timeout_s = stop_timeout_s
        args = [str(binary), "--host", "127.0.0.1", "--port", "0", "--data-dir", str(data_dir), *extra_args]
        log("starting " + " ".join(args))
        self.process = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, bufsize=1)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.log_lines.append(line.rstrip("\n"))
            self.lines.put(line)
        self.lines.put(None)

    def wait_until_serving(self):
        """The gateway's URL and each sandbox's URL by broker, from the log."""
        sandboxes = {}
        deadline = time.monotonic() + self.startup_timeout_s
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError("the gateway did not log 'BrokerGateway is serving' in time")
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError("the gateway stopped before serving:\n" + "\n".join(self.log_lines[-40:]))
            url = re.search(r"\burl=(\S+)", line)
            if "sandbox broker is serving" in line and url:
                broker = re.search(r"\bbroker=(\S+)", line)
                if broker:
                    sandboxes[broker.group(1)] = url.group(1)
            elif "BrokerGateway is serving" in line:
                if not url:
                    raise AssertionError("no url in: " + line)
                return url.group(1), sandboxes

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=self.stop_timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
