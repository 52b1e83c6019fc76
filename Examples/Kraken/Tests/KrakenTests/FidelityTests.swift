import Foundation
import KrakenSandbox
import SandboxKit
import Testing

/// Runs the real ccxt `kraken` class (ccxt 4.5.90, unmodified; BrokerGateway's `Tests/Fidelity/requirements.txt`
/// pins it) against a live Kraken sandbox. `BROKERGATEWAY_FIDELITY_PYTHON` names a python with it installed (CI's
/// `.venv-fidelity`): `BROKERGATEWAY_FIDELITY_PYTHON=$PWD/.venv-fidelity/bin/python swift test --package-path
/// Examples/Kraken --filter Fidelity`.
@Suite("Fidelity: ccxt kraken against the Kraken sandbox")
struct FidelityTests {
    static let python = ProcessInfo.processInfo.environment["BROKERGATEWAY_FIDELITY_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fidelity/ccxt_kraken_check.py")

    @Test(
        .enabled(
            if: python != nil,
            "BROKERGATEWAY_FIDELITY_PYTHON is not set: point it at a python with BrokerGateway's Tests/Fidelity/requirements.txt (ccxt 4.5.90) installed"
        ),
        .timeLimit(.minutes(5))
    )
    func ccxtKraken() async throws {
        let python = try #require(Self.python)
        // The wall clock, as a client would see it; a fresh sandbox on its own port.
        try await withSandbox(KrakenSandbox()) { url in
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("ccxt-kraken-\(UUID().uuidString).log")
            defer { try? FileManager.default.removeItem(at: output) }
            FileManager.default.createFile(atPath: output.path, contents: nil)
            let log = try FileHandle(forWritingTo: output)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [Self.script.path, url.absoluteString, KrakenSandboxAccount.demoAPIKey, KrakenSandboxAccount.demoAPISecret]
            process.standardOutput = log
            process.standardError = log
            let exited = AsyncStream.makeStream(of: Int32.self)
            process.terminationHandler = { finished in
                exited.continuation.yield(finished.terminationStatus)
                exited.continuation.finish()
            }
            try process.run()
            var statuses = exited.stream.makeAsyncIterator()
            let status = await statuses.next()
            try log.close()
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            #expect(status == 0, "ccxt_kraken_check.py exited with \(status.map(String.init) ?? "?"):\n\(text)")
        }
    }
}
