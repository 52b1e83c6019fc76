import Foundation
import Sandbox
import TestWorlds
import Testing

/// Runs the real ccxt `tradeogre` exchange (ccxt 4.5.5, the last release that has it) against a live TradeOgre sandbox.
///
/// ccxt 4.5.5 cannot share a venv with the newer ccxt that `Tests/Fidelity/requirements.txt` pins for Alpaca, so this
/// test has its own variable: `BROKERGATEWAY_FIDELITY_PYTHON_TRADEOGRE`, an interpreter with
/// `Tests/Fidelity/requirements-tradeogre.txt` installed:
/// `python3 -m venv /tmp/to-venv && /tmp/to-venv/bin/pip install -r Tests/Fidelity/requirements-tradeogre.txt`, then
/// `BROKERGATEWAY_FIDELITY_PYTHON_TRADEOGRE=/tmp/to-venv/bin/python swift test --filter TradeOgreFidelity`.
@Suite("Fidelity: ccxt tradeogre against the TradeOgre sandbox", .heavyWorld)
struct TradeOgreFidelityTests {
    static let python = ProcessInfo.processInfo.environment["BROKERGATEWAY_FIDELITY_PYTHON_TRADEOGRE"]
        .flatMap { $0.isEmpty ? nil : $0 }

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fidelity/ccxt_tradeogre_check.py")

    @Test(
        .enabled(
            if: python != nil,
            "BROKERGATEWAY_FIDELITY_PYTHON_TRADEOGRE is not set: point it at a python with Tests/Fidelity/requirements-tradeogre.txt (ccxt 4.5.5) installed"
        ),
        // A backstop against a hang, not a deadline: it also covers the wait for a world slot (`.heavyWorld`) on a
        // loaded machine; the client itself has its own timeout below.
        .timeLimit(.minutes(10))
    )
    func ccxtTradeOgre() async throws {
        let python = try #require(Self.python)
        // The wall clock, as a client would see it in production; a fresh sandbox on its own port.
        try await withSandbox(TradeOgreSandbox()) { url in
            let result = try await runProcess(
                python,
                arguments: [
                    Self.script.path, url.absoluteString + "/api/v1", TradeOgreSandboxAccount.demoAPIKey,
                    TradeOgreSandboxAccount.demoAPISecret,
                ],
                timeout: .seconds(150)
            )
            #expect(result.status == 0, "ccxt_tradeogre_check.py exited with \(result.status):\n\(result.output)")
        }
    }
}
