import ChildProcess
import Foundation
import Sandbox
import TestWorlds
import Testing

/// Runs the real third-party Python clients (alpaca-py, ccxt) against a live Alpaca sandbox: REST, and alpaca-py's
/// stream clients against its WebSocket streams.
///
/// Set `BROKERGATEWAY_FIDELITY_PYTHON` to an interpreter that has `Tests/Fidelity/requirements.txt` installed:
/// `python3 -m venv /tmp/fidelity-venv && /tmp/fidelity-venv/bin/pip install -r Tests/Fidelity/requirements.txt`,
/// then `BROKERGATEWAY_FIDELITY_PYTHON=/tmp/fidelity-venv/bin/python swift test --filter FidelityTests`.
@Suite("Fidelity: real Python clients against the Alpaca sandbox", .heavyWorld)
struct FidelityTests {
    static let python = ProcessInfo.processInfo.environment["BROKERGATEWAY_FIDELITY_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }

    static let scripts = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fidelity")

    @Test(
        .enabled(
            if: python != nil,
            "BROKERGATEWAY_FIDELITY_PYTHON is not set: point it at a python with Tests/Fidelity/requirements.txt installed"
        ),
        // A backstop against a hang, not a deadline: it also covers the wait for a world slot (`.heavyWorld`) on a
        // loaded machine; the client itself is stopped after 150 s below.
        .timeLimit(.minutes(10)),
        arguments: ["alpaca_py_check.py", "alpaca_py_stream_check.py", "ccxt_alpaca_check.py"]
    )
    func pythonClient(_ script: String) async throws {
        let python = try #require(Self.python)
        // The wall clock, as a client would see it in production; every test has its own sandbox and port.
        try await withSandbox(AlpacaSandbox()) { url in
            let result = try await runProcess(
                python,
                arguments: [
                    Self.scripts.appendingPathComponent(script).path, url.absoluteString,
                    AlpacaSandboxAccount.demoKeyID, AlpacaSandboxAccount.demoSecretKey,
                ],
                timeout: .seconds(150)
            )
            #expect(result.status == 0, "\(script) exited with \(result.status):\n\(result.output)")
        }
    }
}

struct ProcessResult: Sendable {
    var status: Int32
    var output: String
}

/// Runs a program to completion without blocking a thread, collecting stdout and stderr together.
/// Output goes through a temporary file so a chatty child can never fill a pipe and stall.
func runProcess(_ executable: String, arguments: [String], timeout: Duration) async throws -> ProcessResult {
    let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("fidelity-\(UUID().uuidString).log")
    defer { try? FileManager.default.removeItem(at: outputURL) }
    var environment = ProcessInfo.processInfo.environment
    environment["PYTHONUNBUFFERED"] = "1"
    let process = try ChildProcess(
        executable: executable,
        arguments: arguments,
        environment: environment,
        standardOutput: .file(outputURL.path),
        standardError: .file(outputURL.path)
    )
    let termination = await process.termination(within: timeout)
    if termination == nil { await process.stop(grace: .seconds(5)) }
    let output = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
    switch termination {
    case .exited(let status)?: return ProcessResult(status: status, output: output)
    case .signalled(let signal)?: return ProcessResult(status: 128 + signal, output: output + "\n(killed by signal \(signal))")
    case nil: return ProcessResult(status: -1, output: output + "\n(timed out after \(timeout))")
    }
}
