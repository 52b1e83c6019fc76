import Foundation
public import GatewayCore
public import GatewayModel
public import Logging
import Synchronization

/// The consumer side of contract cases: makes the case's adapter over a replay of its recorded exchanges, runs the
/// operation, and compares the canonical output with the expectation. Never uses `#expect`: it returns a verdict,
/// so tests and `gateway contracts verify` share it.
public struct ContractRunner: Sendable {
    /// The factory for each broker kind; a case whose kind has none fails.
    public let factories: [BrokerKind: any BrokerAdapterFactory]
    /// Where the adapters under test log (nowhere by default).
    public var logger: Logger
    /// The longest one case may run (a hung adapter fails instead of blocking the suite).
    public var timeout: Duration

    /// Makes a runner over factories by kind, with a logger and a per-case time limit (30 seconds by default).
    public init(
        factories: [BrokerKind: any BrokerAdapterFactory],
        logger: Logger = Logger(label: "contracts", factory: { _ in SwiftLogNoOpLogHandler() }),
        timeout: Duration = .seconds(30)
    ) {
        self.factories = factories
        self.logger = logger
        self.timeout = timeout
    }

    /// Makes a runner over a list of factories, keyed by their kinds, with the default logger and time limit.
    public init(factories: [any BrokerAdapterFactory]) {
        var byKind: [BrokerKind: any BrokerAdapterFactory] = [:]
        for factory in factories { byKind[factory.kind] = factory }
        self.init(factories: byKind)
    }

    /// Runs one case on the consumer side: makes the adapter over `ReplayTransport`s of the recorded exchanges, calls the
    /// operation, and compares the outcome with the expectation, then checks every exchange was used. Never throws: every
    /// problem is the verdict.
    public func run(_ contract: ContractCase) async -> ContractResult {
        func verdict(_ outcome: ContractResult.Outcome) -> ContractResult {
            ContractResult(label: contract.label, source: contract.source, side: .consumer, outcome: outcome)
        }
        let problems = contract.problems()
        guard problems.isEmpty else { return verdict(.failed("the case is malformed: " + problems.joined(separator: "; "))) }
        guard let factory = factories[contract.broker] else {
            return verdict(.failed("no adapter for broker kind '\(contract.broker)'"))
        }

        let transport = CaseTransport(contract)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let connection = ConnectionDescriptor(
            id: contract.connection.id ?? ContractConnection.defaultId,
            tenantId: "contracts",
            broker: contract.broker,
            displayName: contract.name,
            baseURL: contract.connection.baseURL,
            settings: contract.connection.settings ?? [:],
            createdAt: now,
            updatedAt: now
        )
        let context = AdapterContext(
            connection: connection,
            baseURL: contract.connection.baseURL,
            credentials: BrokerCredentials(contract.connection.credentials ?? [:]),
            transport: transport,
            logger: logger
        )

        let outcome: Result<JSONValue, any Error>
        do {
            let adapter = try factory.makeAdapter(context)
            let operation = contract.operation
            let input = contract.input ?? .object([:])
            outcome = .success(try await withDeadline(timeout) { try await Self.perform(operation, input: input, on: adapter) })
        } catch {
            outcome = .failure(error)
        }

        // A request nobody recorded explains any failure that follows it: report it first.
        if let mismatch = transport.mismatches.first {
            return verdict(.failed(mismatch))
        }
        if let problem = Self.judge(outcome, against: contract.expect) {
            return verdict(.failed(problem))
        }
        let unused = transport.unused
        if !unused.isEmpty {
            let list = unused.map { "\($0.request.method) \($0.request.path)" }.joined(separator: ", ")
            return verdict(.failed("recorded exchanges never requested: \(list)"))
        }
        return verdict(.passed)
    }

    /// `nil` when the outcome is what the case expects, else the precise difference.
    static func judge(_ outcome: Result<JSONValue, any Error>, against expect: ContractExpectation) -> String? {
        switch (outcome, expect.error) {
        case (.success(let actual), nil):
            return ContractJSON.difference(expected: expect.result ?? .null, actual: actual, ignoring: expect.ignore ?? [])
        case (.success(let actual), let expected?):
            return "expected error \(expected.code), got a result: \(actual)"
        case (.failure(let error), nil):
            return "expected a result, got \(describe(error))"
        case (.failure(let error), let expected?):
            guard let error = error as? GatewayError else { return "expected error \(expected.code), got \(describe(error))" }
            if error.code.rawValue != expected.code {
                return "expected error \(expected.code), got \(describe(error))"
            }
            if let code = expected.brokerCode, error.brokerCode != code {
                return "expected brokerCode \(code), got \(error.brokerCode ?? "none") (\(describe(error)))"
            }
            if let text = expected.messageContains, !error.message.contains(text) {
                return "expected a message containing '\(text)', got '\(error.message)'"
            }
            if let retryable = expected.retryable, error.retryable != retryable {
                return "expected retryable \(retryable), got \(error.retryable)"
            }
            if let seconds = expected.retryAfter {
                guard let actual = error.retryAfter, abs(actual - seconds) <= 1 else {
                    return "expected retryAfter \(seconds), got \(error.retryAfter.map { String($0) } ?? "none")"
                }
            }
            for detail in expected.details ?? [] where !error.details.contains(detail) {
                return "expected the detail '\(detail)', got \(error.details.map(\.description))"
            }
            return nil
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? GatewayError {
            return "\(error.code.rawValue) '\(error.message)'" + (error.brokerCode.map { " (brokerCode \($0))" } ?? "")
        }
        return "\(type(of: error)): \(error)"
    }

    /// Runs one operation with its input decoded from the case, and encodes what it returns.
    static func perform(
        _ operation: ContractOperation,
        input: JSONValue,
        on adapter: any BrokerAdapter
    ) async throws
        -> JSONValue
    {
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            do {
                return try ContractJSON.decode(type, from: input)
            } catch {
                throw ContractInputError(description: "the case's input does not fit \(operation.rawValue): \(error)")
            }
        }
        switch operation {
        case .validateCredentials:
            try await adapter.validateCredentials()
            return .null
        case .clients:
            return try ContractJSON.encode(try await adapter.clients())
        case .accounts:
            return try ContractJSON.encode(try await adapter.accounts())
        case .balances:
            return try ContractJSON.encode(try await adapter.balances(accountId: try decode(AccountInput.self).accountId))
        case .positions:
            return try ContractJSON.encode(try await adapter.positions(accountId: try decode(AccountInput.self).accountId))
        case .watchlists:
            return try ContractJSON.encode(try await adapter.watchlists())
        case .createWatchlist:
            let input = try decode(CreateWatchlistInput.self)
            return try ContractJSON.encode(try await adapter.createWatchlist(name: input.name, instruments: input.instruments))
        case .updateWatchlist:
            let input = try decode(UpdateWatchlistInput.self)
            return try ContractJSON.encode(
                try await adapter.updateWatchlist(id: input.id, name: input.name, instruments: input.instruments)
            )
        case .deleteWatchlist:
            try await adapter.deleteWatchlist(id: try decode(IdInput.self).id)
            return .null
        case .orders:
            let input = try decode(OrdersInput.self)
            let query = OrderQuery(
                state: input.state ?? .open,
                accountId: input.accountId,
                symbols: input.symbols ?? [],
                limit: input.limit ?? 100,
                after: input.after,
                until: input.until
            )
            return try ContractJSON.encode(try await adapter.orders(query))
        case .order:
            return try ContractJSON.encode(try await adapter.order(brokerOrderId: try decode(OrderIdInput.self).brokerOrderId))
        case .orderByClientOrderId:
            let input = try decode(ClientOrderIdInput.self)
            let order = try await adapter.order(clientOrderId: input.clientOrderId, accountId: input.accountId)
            return try order.map { try ContractJSON.encode($0) } ?? .null
        case .previewOrder:
            return try ContractJSON.encode(try await adapter.previewOrder(try decode(OrderRequest.self)))
        case .placeOrder:
            return try ContractJSON.encode(try await adapter.placeOrder(try decode(OrderRequest.self)))
        case .modifyOrder:
            let input = try decode(ModifyOrderInput.self)
            return try ContractJSON.encode(try await adapter.modifyOrder(input.order, input.modification))
        case .cancelOrder:
            return try ContractJSON.encode(try await adapter.cancelOrder(try decode(CancelOrderInput.self).order))
        case .quotes:
            return try ContractJSON.encode(try await adapter.quotes(try decode(QuotesInput.self).instruments))
        case .searchInstruments:
            let input = try decode(SearchInput.self)
            return try ContractJSON.encode(try await adapter.searchInstruments(input.text, assetClass: input.assetClass))
        case .candles:
            let input = try decode(CandlesInput.self)
            return try ContractJSON.encode(try await adapter.candles(input.instrument, interval: input.interval, count: input.count))
        case .orderBook:
            let input = try decode(OrderBookInput.self)
            return try ContractJSON.encode(try await adapter.orderBook(input.instrument, depth: input.depth))
        }
    }
}

/// A case whose input cannot be read.
struct ContractInputError: Error, CustomStringConvertible {
    var description: String
}

// The input forms, one per operation (documented in Contracts/README.md).
struct AccountInput: Decodable { var accountId: String? }
struct CreateWatchlistInput: Decodable {
    var name: String
    var instruments: [InstrumentReference]
}
struct UpdateWatchlistInput: Decodable {
    var id: String
    var name: String?
    var instruments: [InstrumentReference]?
}
struct IdInput: Decodable { var id: String }
struct OrderBookInput: Decodable {
    var instrument: InstrumentReference
    var depth: Int
}
struct CandlesInput: Decodable {
    var instrument: InstrumentReference
    var interval: CandleInterval
    var count: Int
}
struct OrdersInput: Decodable {
    var state: OrderQuery.State?
    var accountId: String?
    var symbols: [String]?
    var limit: Int?
    var after: Date?
    var until: Date?
}
struct OrderIdInput: Decodable { var brokerOrderId: String }
struct ClientOrderIdInput: Decodable {
    var clientOrderId: String
    var accountId: String
}
struct ModifyOrderInput: Decodable {
    var order: Order
    var modification: OrderModification
}
struct CancelOrderInput: Decodable { var order: Order }
struct QuotesInput: Decodable { var instruments: [InstrumentReference] }
struct SearchInput: Decodable {
    var text: String
    var assetClass: AssetClass?
}

/// The consumer side's transport: one `ReplayTransport` per base URL the case uses (the trading host, a market data
/// host), each serving its recorded exchanges; a request for any other host is a mismatch.
final class CaseTransport: BrokerTransport {
    let replays: [ReplayTransport]
    let strays = Mutex<[String]>([])

    init(_ contract: ContractCase) {
        var bases: [String] = []
        var byBase: [String: [RecordedExchange]] = [:]
        for exchange in contract.exchanges {
            let base = Self.trimmed(exchange.baseURL ?? contract.connection.baseURL)
            if byBase[base] == nil { bases.append(base) }
            byBase[base, default: []].append(exchange.recorded)
        }
        let primary = Self.trimmed(contract.connection.baseURL)
        if byBase[primary] == nil { bases.append(primary) }
        let ordered = contract.ordered ?? true
        // Longest base first, so `https://host/prefix` wins over `https://host`.
        replays = bases.sorted { $0.count > $1.count }.map {
            ReplayTransport(baseURL: $0, exchanges: byBase[$0] ?? [], ordered: ordered)
        }
    }

    static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    func send(_ request: BrokerRequest) async throws -> BrokerResponse {
        for replay in replays where request.url.hasPrefix(replay.baseURL + "/") || request.url == replay.baseURL {
            return try await replay.send(request)
        }
        let explanation = "unexpected \(request.method) \(request.url): no recorded exchange for that host"
        strays.withLock { $0.append(explanation) }
        throw ReplayMismatch(description: explanation)
    }

    var mismatches: [String] { strays.withLock { $0 } + replays.flatMap(\.mismatches) }
    var unused: [RecordedExchange] { replays.flatMap(\.unusedExchanges) }
}
