import AsyncHTTPClient
import BrokerGatewayServer
import BuiltInBrokers
import Foundation
import GatewayCore
import GatewayModel
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import SandboxKit
import ServiceLifecycle
import Synchronization
import TestWorlds
import Testing

/// Registration is open: a broker this repository does not carry, registered through the server library's public API
/// only (this file imports nothing `@testable`), beside the built-in four, as an operator's own executable would.
@Suite("gateway serve: a broker registered from outside", .heavyWorld)
struct OpenRegistrationTests {
    @Test func aFifthBrokerIsListedLinkedAndServedThroughTheUnifiedAPI() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-fifth-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let settings = try await GatewaySettings(arguments: ["--port", "0", "--data-dir", directory.path], environment: [:])
        let logger = Logger(label: "fifth-test", factory: { _ in SwiftLogNoOpLogHandler() })
        let simulator = FifthSimulator()
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let process = try await buildGateway(
            settings: settings,
            brokers: .builtIn + [.fifth(simulator)],
            environment: [:],
            logger: logger
        ) { port in continuation.yield(port) }
        let group = ServiceGroup(configuration: .init(services: process.services.map { .init(service: $0) }, logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let key = try String(contentsOf: directory.appendingPathComponent("demo-api-key"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            func get(_ path: String) async throws -> [String: Any] {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
                request.headers.add(name: "Authorization", value: "Bearer \(key)")
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 1 << 20)
                #expect(response.status.code == 200, "\(path): \(String(buffer: body))")
                return try #require(try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])
            }

            let brokers = try await get("/v1/brokers")["data"] as? [[String: Any]] ?? []
            #expect(brokers.compactMap { $0["kind"] as? String } == ["alpaca", "fifth", "saxo", "tradeit", "tradeogre"])
            #expect(brokers.first { $0["kind"] as? String == "fifth" }?["displayName"] as? String == "Fifth Broker (test double)")

            // The demo bootstrap linked the demo user to the fifth broker's sandbox too, through `sandbox://fifth`,
            // and its login was checked there.
            let connections = (try await get("/v1/connections")["data"] as? [[String: Any]] ?? []).filter {
                $0["broker"] as? String == "fifth"
            }
            #expect(connections.compactMap { $0["baseURL"] as? String } == ["sandbox://fifth"], "\(connections)")
            #expect(connections.first?["status"] as? String == "active", "\(connections)")
            #expect(simulator.calls.withLock { $0 }.contains("GET /account"))

            let accounts = try await get("/v1/accounts?broker=fifth")
            let account = try #require((accounts["data"] as? [[String: Any]])?.first)
            #expect(account["id"] as? String == "F-1")
            #expect(account["broker"] as? String == "fifth")

            let positions = try await get("/v1/positions")
            let sources = positions["sources"] as? [[String: Any]] ?? []
            #expect(Set(sources.compactMap { $0["broker"] as? String }) == ["alpaca", "fifth", "saxo", "tradeit", "tradeogre"])
            #expect(sources.allSatisfy { $0["status"] as? String == "ok" }, "\(sources)")
            let fifth = (positions["data"] as? [[String: Any]] ?? []).filter { $0["accountId"] as? String == "F-1" }
            #expect(fifth.count == 1)
            #expect((fifth.first?["instrument"] as? [String: Any])?["symbol"] as? String == "ACME")
            #expect(fifth.first?["quantity"] as? String == "3.5")
            #expect(simulator.calls.withLock { $0 }.contains("GET /positions"))

            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test func aKindRegisteredTwiceIsRefusedBeforeAnythingStarts() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-twice-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let settings = try await GatewaySettings(arguments: ["--port", "0", "--data-dir", directory.path], environment: [:])
        let logger = Logger(label: "twice-test", factory: { _ in SwiftLogNoOpLogHandler() })
        let error = await #expect(throws: SettingsError.self) {
            _ = try await buildGateway(settings: settings, brokers: [.alpaca, .alpaca], environment: [:], logger: logger)
        }
        #expect(error?.description == "broker kind 'alpaca' is registered more than once")
        let badName = await #expect(throws: SettingsError.self) {
            _ = try await buildGateway(
                settings: settings,
                brokers: [BrokerRegistration(adapter: FifthAdapterFactory(kind: BrokerKind("Fifth Broker")))],
                environment: [:],
                logger: logger
            )
        }
        #expect(badName?.description.contains("'Fifth Broker': must be 1 to 32 characters of a-z") == true)
        #expect(!FileManager.default.fileExists(atPath: directory.path), "nothing was opened for a list that cannot be served")
    }
}

// MARK: - A fifth broker, as its author would write it (a test double: one account, one position)

extension BrokerRegistration {
    /// The fifth broker with `simulator` as its sandbox.
    static func fifth(_ simulator: FifthSimulator) -> BrokerRegistration {
        BrokerRegistration(
            adapter: FifthAdapterFactory(),
            sandbox: SandboxRegistration { _ in
                BrokerSandbox(
                    simulator: simulator,
                    faults: nil,
                    displayName: "Fifth sandbox (demo)",
                    demoCredentials: ["key": FifthSimulator.demoKey],
                    demoKey: "key",
                    restored: false,
                    provision: { ["key": simulator.provision()] },
                    release: { credentials in if let key = credentials["key"] { simulator.release(key) } },
                    accepts: { credentials in credentials["key"].map(simulator.accepts) ?? false }
                )
            }
        )
    }
}

/// The fifth broker's simulator: `GET /account` and `GET /positions`, for a key it issued, in its own wire format.
final class FifthSimulator: SandboxSimulator {
    static let demoKey = "FIFTH-DEMO-KEY"
    static let keyHeader = HTTPField.Name("X-Fifth-Key")!
    let keys = Mutex<Set<String>>([FifthSimulator.demoKey])
    /// Every call it answered, as `METHOD /path`.
    let calls = Mutex<[String]>([])

    func provision() -> String {
        let key = "FIFTH-\(UUID().uuidString)"
        keys.withLock { _ = $0.insert(key) }
        return key
    }

    func release(_ key: String) { keys.withLock { _ = $0.remove(key) } }

    func accepts(_ key: String) -> Bool { keys.withLock { $0.contains(key) } }

    func makeRouter() -> Router<SandboxRequestContext> {
        let router = Router(context: SandboxRequestContext.self)
        router.get("account") { request, _ -> String in
            try self.authorize(request, "GET /account")
            return #"{"number": "F-1", "ccy": "USD"}"#
        }
        router.get("positions") { request, _ -> String in
            try self.authorize(request, "GET /positions")
            return #"[{"ticker": "ACME", "qty": "3.5", "ccy": "USD"}]"#
        }
        return router
    }

    func authorize(_ request: Request, _ call: String) throws {
        calls.withLock { $0.append(call) }
        guard let key = request.headers[Self.keyHeader], accepts(key) else { throw HTTPError(.unauthorized) }
    }
}

struct FifthAdapterFactory: BrokerAdapterFactory {
    var kind = BrokerKind("fifth")
    var displayName: String { "Fifth Broker (test double)" }
    var credentialKeys: [String] { ["key"] }
    var knownBaseURLs: [String: String] { [:] }
    var rateLimits: [RateLimitRule] { [] }
    var capabilities: Capabilities {
        var operations: [BrokerOperation: Support] = [:]
        for operation in BrokerOperation.allCases { operations[operation] = .unsupported }
        for operation in [BrokerOperation.accounts, .positions] { operations[operation] = .supported }
        return Capabilities(operations: operations, assetClasses: [.equity], orderTypes: [], timeInForce: [])
    }

    func makeAdapter(_ context: AdapterContext) throws -> any BrokerAdapter { FifthAdapter(kind: kind, context: context) }
}

struct FifthAdapter: BrokerAdapter {
    struct WireAccount: Decodable {
        var number: String
        var ccy: String
    }

    struct WirePosition: Decodable {
        var ticker: String
        var qty: String
        var ccy: String
    }

    let kind: BrokerKind
    let context: AdapterContext
    var capabilities: Capabilities { FifthAdapterFactory(kind: kind).capabilities }

    var client: BrokerHTTPClient {
        BrokerHTTPClient(
            broker: kind,
            transport: context.transport,
            logger: context.logger,
            readTimeout: .seconds(30),
            writeTimeout: .seconds(30),
            errorTable: { response, _ in
                response.status == 401
                    ? GatewayError(.unauthorized, "the fifth broker refused the key", broker: kind)
                    : GatewayError(.upstreamUnavailable, "the fifth broker answered \(response.status)", broker: kind)
            },
            malformed: { _, what in GatewayError(.malformedResponse, "the fifth broker's \(what) did not decode", broker: kind) }
        )
    }

    func call(_ path: String) -> BrokerCall {
        var headers = HTTPFields()
        headers[FifthSimulator.keyHeader] = context.credentials.values["key"] ?? ""
        return BrokerCall(.get, url: context.baseURL + path, loggedPath: "GET " + path, headers: headers)
    }

    func account() async throws -> Account {
        let wire = try await client.fetch(WireAccount.self, call("/account"))
        return Account(id: wire.number, connectionId: context.connection.id, broker: kind, currency: wire.ccy)
    }

    func validateCredentials() async throws { _ = try await account() }
    func accounts() async throws -> [Account] { [try await account()] }
    func positions(accountId: String?) async throws -> [Position] {
        let account = try await account()
        guard accountId == nil || accountId == account.id else { return [] }
        return try await client.fetch([WirePosition].self, call("/positions")).map { wire in
            guard let quantity = Decimal(string: wire.qty, locale: Locale(identifier: "en_US_POSIX")) else {
                throw GatewayError(.malformedResponse, "the fifth broker's quantity did not decode", broker: kind)
            }
            return Position(
                connectionId: context.connection.id,
                accountId: account.id,
                instrument: Instrument(symbol: wire.ticker, assetClass: .equity, currency: wire.ccy),
                quantity: quantity,
                currency: wire.ccy
            )
        }
    }

    func unsupported(_ operation: String) -> GatewayError {
        GatewayError(.notSupported, "the fifth broker has no \(operation)", broker: kind)
    }

    func clients() async throws -> [Client] { throw unsupported("clients") }
    func balances(accountId: String?) async throws -> [Balance] { throw unsupported("balances") }
    func watchlists() async throws -> [Watchlist] { throw unsupported("watchlists") }
    func createWatchlist(name: String, instruments: [InstrumentReference]) async throws -> Watchlist {
        throw unsupported("watchlists")
    }
    func updateWatchlist(id: String, name: String?, instruments: [InstrumentReference]?) async throws -> Watchlist {
        throw unsupported("watchlists")
    }
    func deleteWatchlist(id: String) async throws { throw unsupported("watchlists") }
    func orders(_ query: OrderQuery) async throws -> [Order] { throw unsupported("orders") }
    func order(brokerOrderId: String) async throws -> Order { throw unsupported("orders") }
    func order(clientOrderId: String, accountId: String) async throws -> Order? { throw unsupported("orders") }
    func previewOrder(_ request: OrderRequest) async throws -> OrderPreview { throw unsupported("orders") }
    func placeOrder(_ request: OrderRequest) async throws -> Order { throw unsupported("orders") }
    func modifyOrder(_ order: Order, _ modification: OrderModification) async throws -> Order { throw unsupported("orders") }
    func cancelOrder(_ order: Order) async throws -> Order { throw unsupported("orders") }
    func quotes(_ instruments: [InstrumentReference]) async throws -> [Quote] { throw unsupported("quotes") }
    func searchInstruments(_ text: String, assetClass: AssetClass?) async throws -> [Instrument] {
        throw unsupported("instrument search")
    }
    func candles(_ instrument: InstrumentReference, interval: CandleInterval, count: Int) async throws -> CandleSeries {
        throw unsupported("candles")
    }
    func orderBook(_ instrument: InstrumentReference, depth: Int) async throws -> OrderBook { throw unsupported("order books") }
}
