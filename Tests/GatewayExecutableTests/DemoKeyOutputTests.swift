import ChildProcess
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
import TestWorlds

/// Issue 27: the first run printed the demo tenant's API key to standard output, where terminals, CI logs and log
/// collectors keep it. It belongs in `<data>/demo-api-key` (mode 0600) only; standard output says where it is.
@Suite("gateway serve: the demo key stays in its file", .heavyWorld)
struct DemoKeyOutputTests {
    @Test func theFirstRunNamesTheKeyFileAndNeverPrintsTheKey() async throws {
        let binary = TracingExportTests.gatewayBinary.path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "no gateway binary at \(binary)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-demokey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("data")
        let output = directory.appendingPathComponent("stdout.txt")
        let process = try ChildProcess(
            executable: binary,
            arguments: ["serve", "--port", "0", "--data-dir", data.path, "--log-level", "info"],
            standardOutput: .file(output.path),
            standardError: .lines
        )
        let log = LogWatch(process)
        let serving = await log.first(within: .seconds(180)) { $0.contains("BrokerGateway is serving") }
        await process.stop()
        try #require(serving != nil, "the gateway never served")
        let key = try String(contentsOf: data.appendingPathComponent("demo-api-key"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(!key.isEmpty)
        let printed = try String(contentsOf: output, encoding: .utf8)
        #expect(printed.contains(data.appendingPathComponent("demo-api-key").path), "\(printed)")
        #expect(!printed.contains(key))
        #expect(await log.first(within: .seconds(10)) { $0.contains(key) } == nil)
    }
}
#endif
