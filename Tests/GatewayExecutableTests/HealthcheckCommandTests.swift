import ArgumentParser
import Foundation
import Hummingbird
import Logging
import NIOCore
import Testing

@testable import BrokerGatewayServer

/// `gateway healthcheck`, what the container's `HEALTHCHECK` runs: a 200 passes; another status, an answer later than
/// the timeout, or nothing listening fails with a line that says which; without `--url` it asks where `gateway serve`
/// would listen in the same environment.
@Suite("gateway healthcheck")
struct HealthcheckCommandTests {
    /// Runs `body` with the base URL of a loopback server: `/healthz` 200, `/readyz` 503, and `/stuck`, which answers
    /// only when `body` has returned.
    func withServer(_ body: (String) async throws -> Void) async throws {
        let (released, release) = AsyncStream.makeStream(of: Never.self)
        let router = Router()
        router.get("/healthz") { _, _ in "ok" }
        router.get("/readyz") { _, _ -> Response in Response(status: .serviceUnavailable) }
        router.get("/stuck") { _, _ -> String in
            for await _ in released {}
            return "late"
        }
        let (ports, port) = AsyncStream.makeStream(of: Int.self)
        let server = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { port.yield($0.localAddress?.port ?? 0) },
            logger: Logger(label: "healthz", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await server.runService() }
            defer {
                release.finish()
                tasks.cancelAll()
            }
            var iterator = ports.makeAsyncIterator()
            let bound = try #require(await iterator.next(), "the server never started")
            try await body("http://127.0.0.1:\(bound)")
        }
    }

    @Test func aTwoHundredPassesAndAnythingElseFailsSayingWhy() async throws {
        try await withServer { base in
            #expect(await HealthcheckCommand.check(base + "/healthz", timeout: .seconds(10)) == nil)

            let unready = try #require(await HealthcheckCommand.check(base + "/readyz", timeout: .seconds(10)))
            #expect(unready == "\(base)/readyz answered 503, not 200")

            let missing = try #require(await HealthcheckCommand.check(base + "/nothing", timeout: .seconds(10)))
            #expect(missing.contains("answered 404"))

            let late = try #require(await HealthcheckCommand.check(base + "/stuck", timeout: .milliseconds(200)))
            #expect(late.hasPrefix("\(base)/stuck did not answer"))
        }
    }

    @Test func nothingListeningFails() async throws {
        // A port that was just bound and released: nothing listens there any more. AsyncHTTPClient retries a refused
        // connection until the deadline, so the check fails at its timeout.
        let closed = try await withServerPort()
        let failure = try #require(await HealthcheckCommand.check("http://127.0.0.1:\(closed)/healthz", timeout: .seconds(1)))
        #expect(failure.hasPrefix("http://127.0.0.1:\(closed)/healthz did not answer"))
    }

    /// The port of a server that ran and stopped.
    func withServerPort() async throws -> Int {
        var port = 0
        try await withServer { base in
            port = try #require(URL(string: base)?.port)
        }
        return port
    }

    @Test func aURLItCannotGetIsRefusedBeforeAnyCall() async throws {
        for bad in ["127.0.0.1:8080/healthz", "ftp://127.0.0.1/healthz", "http:///healthz"] {
            #expect(throws: (any Error).self, "\(bad)") { try GatewayCommand.parseAsRoot(["healthcheck", "--url", bad]) }
            let failure = await HealthcheckCommand.check(bad, timeout: .seconds(1))
            #expect(failure?.hasPrefix("--url must be an http or https URL") == true, "\(bad)")
        }
        #expect(throws: (any Error).self) { try GatewayCommand.parseAsRoot(["healthcheck", "--timeout-ms", "0"]) }
        #expect(throws: (any Error).self) { try GatewayCommand.parseAsRoot(["healthcheck", "--timeout-ms", "60001"]) }
    }

    @Test(arguments: [
        ([String: String](), [String](), "http://127.0.0.1:8080/healthz"),
        (["BROKERGATEWAY_HOST": "0.0.0.0", "BROKERGATEWAY_PORT": "9123"], [], "http://127.0.0.1:9123/healthz"),
        (["BROKERGATEWAY_HOST": "::"], [], "http://[::1]:8080/healthz"),
        (["BROKERGATEWAY_HOST": "10.1.2.3"], ["--port", "9000"], "http://10.1.2.3:9000/healthz"),
        (["BROKERGATEWAY_HOST": "fd00::5"], [], "http://[fd00::5]:8080/healthz"),
    ])
    func withoutAURLItAsksWhereServeWouldListen(environment: [String: String], arguments: [String], expected: String) async throws {
        #expect(try await HealthcheckCommand.defaultURL(arguments: arguments, environment: environment) == expected)
    }

    @Test func aPortPickedAtStartUpCannotBeAsked() async throws {
        await #expect(throws: (any Error).self) {
            try await HealthcheckCommand.defaultURL(arguments: ["--port", "0"], environment: [:])
        }
        await #expect(throws: (any Error).self) {
            try await HealthcheckCommand.defaultURL(arguments: [], environment: ["BROKERGATEWAY_PORT": "eighty"])
        }
    }
}
