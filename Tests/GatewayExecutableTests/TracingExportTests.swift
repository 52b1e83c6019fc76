import AsyncHTTPClient
import ChildProcess
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import TestWorlds
import Testing

/// A `gateway` built with the package's OTLP trait, if this run has one: the one `BROKERGATEWAY_OTLP_GATEWAY` names
/// (`.ci/run` builds it after the default test runs, `swift build --traits OTLP --product gateway`, and runs
/// ``TracingExportTests`` against it), or, in a test build with the trait itself, the one beside the test bundle.
enum OTLPGateway {
    static var binary: URL? {
        if let path = ProcessInfo.processInfo.environment["BROKERGATEWAY_OTLP_GATEWAY"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        #if OTLP
        return TracingExportTests.gatewayBinary
        #else
        return nil
        #endif
    }
}

/// `--otel-traces-endpoint`: the gateway binary, run as a process of its own (tracing is bootstrapped process-wide,
/// once), sends OTLP/HTTP trace exports to a collector; here a loopback stand-in that records what it receives.
/// The exporter is compiled in only with the OTLP trait, so the suite runs only where ``OTLPGateway`` names one.
@Suite("gateway serve: OpenTelemetry traces", .heavyWorld, .enabled(if: OTLPGateway.binary != nil))
struct TracingExportTests {
    /// The `gateway` binary beside the test bundle in the build folder.
    static var gatewayBinary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("gateway")
    }

    @Test func requestsBecomeSpansExportedOverOTLP() async throws {
        let binary = try #require(OTLPGateway.binary)
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "no gateway binary at \(binary.path)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-otel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        // The collector stand-in: every export's body, as it arrives.
        let (exports, exported) = AsyncStream.makeStream(of: Data.self)
        let router = Router()
        router.post("/v1/traces") { request, _ -> Response in
            exported.yield(Data(try await request.body.collect(upTo: 8 << 20).readableBytesView))
            return Response(status: .ok, headers: [.contentType: "application/x-protobuf"])
        }
        let (collectorPorts, collectorPort) = AsyncStream.makeStream(of: Int.self)
        let collector = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { collectorPort.yield($0.localAddress?.port ?? 0) },
            logger: Logger(label: "collector", factory: { _ in SwiftLogNoOpLogHandler() })
        )

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await collector.runService() }
            var portIterator = collectorPorts.makeAsyncIterator()
            let port = try #require(await portIterator.next())

            let gateway = try GatewayProcessUnderTest(
                binary: binary,
                arguments: [
                    "serve", "--port", "0", "--sandbox", "off", "--data-dir", directory.appendingPathComponent("data").path,
                    "--otel-traces-endpoint", "http://127.0.0.1:\(port)/v1/traces", "--log-level", "notice",
                ]
            )
            defer { gateway.stop() }
            let base = try #require(await gateway.url(), "the gateway never said where it serves")
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + "/healthz"), timeout: .seconds(10))
            #expect(response.status == .ok)

            // The batch processor exports within its schedule delay (5 s by default).
            let export = try await firstExport(exports, within: .seconds(60))
            let body = try #require(export, "no trace export reached the collector")
            #expect(body.range(of: Data("brokergateway".utf8)) != nil, "the resource names the service")
            #expect(body.range(of: Data("/healthz".utf8)) != nil, "a span for the request")
            gateway.stop()
            tasks.cancelAll()
        }
    }

    func firstExport(_ exports: AsyncStream<Data>, within limit: Duration) async throws -> Data? {
        try await withThrowingTaskGroup(of: Data?.self) { group in
            group.addTask {
                var iterator = exports.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }
}

/// A `gateway` process whose standard error is read as it comes, to learn the URL it serves on.
final class GatewayProcessUnderTest: Sendable {
    let process: ChildProcess

    init(binary: URL, arguments: [String]) throws {
        process = try ChildProcess(
            executable: binary.path,
            arguments: arguments,
            standardOutput: .discard,
            standardError: .lines
        )
    }

    /// The `url=` of the "BrokerGateway is serving" line, or `nil` if the process ends first.
    func url() async -> String? {
        for await line in process.lines where line.contains("BrokerGateway is serving") {
            guard let start = line.range(of: "url=")?.upperBound else { continue }
            return String(line[start...].prefix { !$0.isWhitespace })
        }
        return nil
    }

    /// Asks the gateway to shut down (SIGTERM) without waiting; the child is reaped when it ends.
    func stop() {
        process.send(SIGTERM)
    }
}
