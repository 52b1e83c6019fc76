import Foundation
import Sandbox
import TestWorlds
import Testing

/// Runs the real Python `saxo_openapi` client (PyPI 0.6.0) against a live Saxo sandbox, logon flow included.
///
/// Set `BROKERGATEWAY_FIDELITY_PYTHON` to an interpreter that has `Tests/Fidelity/requirements.txt` installed:
/// `python3 -m venv /tmp/saxo-venv && /tmp/saxo-venv/bin/pip install -r Tests/Fidelity/requirements.txt`,
/// then `BROKERGATEWAY_FIDELITY_PYTHON=/tmp/saxo-venv/bin/python swift test --filter SaxoFidelityTests`.
@Suite("Fidelity: saxo_openapi against the Saxo sandbox", .heavyWorld)
struct SaxoFidelityTests {
    static let python = ProcessInfo.processInfo.environment["BROKERGATEWAY_FIDELITY_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fidelity/saxo_openapi_check.py")

    @Test(
        .enabled(
            if: python != nil,
            "BROKERGATEWAY_FIDELITY_PYTHON is not set: point it at a python with Tests/Fidelity/requirements.txt installed"
        ),
        // A backstop against a hang, not a deadline: it also covers the wait for a world slot (`.heavyWorld`) on a
        // loaded machine; the client itself has its own timeout below.
        .timeLimit(.minutes(10))
    )
    func saxoOpenAPI() async throws {
        let python = try #require(Self.python)
        // The default configuration (wall clock, one order per second) as the gateway's demo runs it.
        try await withSandbox(SaxoSandbox()) { url in
            let result = try await runProcess(
                python,
                arguments: [
                    Self.script.path, url.absoluteString, SaxoSandboxConfiguration.demoAppKey, SaxoSandboxConfiguration.demoAppSecret,
                    SaxoSandboxConfiguration.demoRedirectURI,
                ],
                timeout: .seconds(150)
            )
            #expect(result.status == 0, "saxo_openapi_check.py exited with \(result.status):\n\(result.output)")
        }
    }
}
