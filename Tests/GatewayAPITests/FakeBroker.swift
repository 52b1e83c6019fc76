import Foundation
import GatewayCore
import GatewayModel
import HTTPTypes
import Synchronization

/// A test double of a broker: an in-memory adapter whose behaviour each test sets (data, delay, failure).
/// It lives in Tests/ only; product code never sees it.
struct FakeBrokerBehaviour: Sendable {
    var delay: Duration = .zero
    var failure: GatewayError? = nil
    var validCredentials: BrokerCredentials = BrokerCredentials(["token": "good"])
    /// Placement takes effect, then the answer is lost with this error (a dropped response, a 5xx after acting).
    var failAfterPlacing: GatewayError? = nil
    /// Placement takes effect, then the broker takes this long to answer.
    var delayAfterPlacing: Duration = .zero
    /// Placement fails before the broker acts (the order never arrives), with an error that leaves the outcome unknown.
    var failBeforePlacing: GatewayError? = nil
    /// After taking an order the broker becomes unreachable (so immediate reconciliation cannot see it).
    var unreachableAfterPlacing = false
    /// Cancel takes effect, then the broker holds its answer until the test calls `releaseCancelAnswer()` (a
    /// watcher may read the order meanwhile).
    var holdsCancelAnswer = false
    /// Each operation first sends one GET to the connection's base URL through the adapter's transport (the
    /// broker-call pipeline, so its breaker and health see it); a 5xx answer fails the operation.
    var callsTransport = false
}

final class FakeBrokerState: Sendable {
    let behaviour: Mutex<[String: FakeBrokerBehaviour]> = Mutex([:])
    let orders: Mutex<[String: Order]> = Mutex([:])
    let placed = Mutex(0)
    /// How many times each fake connection's positions were read (by base URL).
    let positionReads: Mutex<[String: Int]> = Mutex([:])
    /// Every account list and every order read by id, whatever the connection: the broker's lookups.
    let accountReads = Mutex(0)
    let orderReads = Mutex(0)
    /// The broker order id of each cancel, once it took effect (before the answer).
    let canceled: AsyncStream<String>
    let canceledSink: AsyncStream<String>.Continuation
    let cancelAnswers: AsyncStream<Void>
    let cancelAnswerSink: AsyncStream<Void>.Continuation

    init() {
        (canceled, canceledSink) = AsyncStream.makeStream(of: String.self)
        (cancelAnswers, cancelAnswerSink) = AsyncStream.makeStream(of: Void.self)
    }

    /// Lets one held cancel answer.
    func releaseCancelAnswer() { cancelAnswerSink.yield() }

    /// Forgets every order and starts its ids over, as a broker reset (or a simulator restarted without its state).
    func startOver() {
        orders.withLock { $0 = [:] }
        placed.withLock { $0 = 0 }
    }

    func positionReadCount(_ baseURL: String) -> Int { positionReads.withLock { $0[baseURL] ?? 0 } }

    func placedOrders(clientOrderId: String) -> [Order] {
        orders.withLock { $0.values.filter { $0.clientOrderId == clientOrderId } }
    }

    /// Behaviour is keyed by base URL, so each fake connection can act differently.
    func set(_ baseURL: String, _ behaviour: FakeBrokerBehaviour) {
        self.behaviour.withLock { $0[baseURL] = behaviour }
    }

    func behaviour(for baseURL: String) -> FakeBrokerBehaviour {
        behaviour.withLock { $0[baseURL] } ?? FakeBrokerBehaviour()
    }
}

struct FakeBrokerFactory: BrokerAdapterFactory {
    let kind: BrokerKind
    let state: FakeBrokerState
    var displayName: String { "Fake \(kind.rawValue)" }
    var credentialKeys: [String] { ["token"] }
    var knownBaseURLs: [String: String] { ["default": "https://\(kind.rawValue).fake"] }
    var rateLimits: [RateLimitRule] { [] }
    var capabilities: Capabilities {
        var operations: [BrokerOperation: Support] = [:]
        for operation in BrokerOperation.allCases { operations[operation] = .supported }
        operations[.searchInstruments] = .unsupported
        // The "saxo" fake has no lookup by client order id, so reconciliation must match orders by their fields.
        if kind == .saxo { operations[.orderByClientOrderId] = .unsupported }
        return Capabilities(
            operations: operations,
            assetClasses: [.equity, .fx],
            orderTypes: [.market, .limit],
            timeInForce: [.day, .gtc]
        )
    }

    func makeAdapter(_ context: AdapterContext) throws -> any BrokerAdapter {
        FakeBroker(kind: kind, capabilities: capabilities, context: context, state: state)
    }
}

struct FakeBroker: BrokerAdapter {
    let kind: BrokerKind
    let capabilities: Capabilities
    let context: AdapterContext
    let state: FakeBrokerState

    var connectionId: String { context.connection.id }

    func behave() async throws {
        let behaviour = state.behaviour(for: context.baseURL)
        if behaviour.delay > .zero { try await Task.sleep(for: behaviour.delay) }
        if let failure = behaviour.failure { throw failure }
        if behaviour.callsTransport {
            let response = try await context.transport.send(
                BrokerRequest(method: .get, url: context.baseURL + "/v1/ping", loggedPath: "GET /v1/ping", idempotent: true)
            )
            if response.status >= 500 {
                throw GatewayError(.upstreamUnavailable, "the broker answered \(response.status)", broker: kind)
            }
        }
    }

    func validateCredentials() async throws {
        try await behave()
        if context.credentials != state.behaviour(for: context.baseURL).validCredentials {
            throw GatewayError(.unauthorized, "bad token", broker: kind)
        }
    }

    func clients() async throws -> [Client] {
        try await behave()
        return [Client(id: "client-1", connectionId: connectionId, broker: kind, name: "Test Holder")]
    }

    func accounts() async throws -> [Account] {
        state.accountReads.withLock { $0 += 1 }
        try await behave()
        return [Account(id: "ACC-1", connectionId: connectionId, broker: kind, currency: "USD")]
    }

    func balances(accountId: String?) async throws -> [Balance] {
        try await behave()
        return [Balance(connectionId: connectionId, accountId: "ACC-1", currency: "USD", total: 1000, available: 750, held: 250)]
    }

    func positions(accountId: String?) async throws -> [Position] {
        state.positionReads.withLock { $0[context.baseURL, default: 0] += 1 }
        try await behave()
        return [
            Position(
                connectionId: connectionId,
                accountId: "ACC-1",
                instrument: Instrument(symbol: "AAPL", assetClass: .equity),
                quantity: 10,
                averagePrice: DecimalText.parse("150.25"),
                currency: "USD"
            )
        ]
    }

    func watchlists() async throws -> [Watchlist] {
        try await behave()
        return [Watchlist(id: "native-1", name: "Broker list", instruments: [Instrument(symbol: "MSFT", assetClass: .equity)])]
    }

    func createWatchlist(name: String, instruments: [InstrumentReference]) async throws -> Watchlist {
        try await behave()
        return Watchlist(id: "native-2", name: name, instruments: [])
    }

    func updateWatchlist(id: String, name: String?, instruments: [InstrumentReference]?) async throws -> Watchlist {
        try await behave()
        return Watchlist(id: id, name: name ?? "Broker list", instruments: [])
    }

    func deleteWatchlist(id: String) async throws { try await behave() }

    func orders(_ query: OrderQuery) async throws -> [Order] {
        try await behave()
        return state.orders.withLock { Array($0.values) }.filter { $0.connectionId == connectionId }
            .sorted { $0.clientOrderId < $1.clientOrderId }
    }

    func order(brokerOrderId: String) async throws -> Order {
        state.orderReads.withLock { $0 += 1 }
        try await behave()
        guard let order = state.orders.withLock({ $0[brokerOrderId] }) else {
            throw GatewayError(.notFound, "order not found", broker: kind)
        }
        return order
    }

    func order(clientOrderId: String, accountId: String) async throws -> Order? {
        try await behave()
        return state.orders.withLock { $0.values.first { $0.clientOrderId == clientOrderId } }
    }

    func previewOrder(_ request: OrderRequest) async throws -> OrderPreview {
        try await behave()
        return OrderPreview(
            id: "pv-1",
            expiresAt: Date().addingTimeInterval(120),
            request: request,
            currency: "USD",
            estimatedCost: request.notional ?? (request.quantity ?? 0) * (request.limitPrice ?? 100)
        )
    }

    func placeOrder(_ request: OrderRequest) async throws -> Order {
        try await behave()
        if let failure = state.behaviour(for: context.baseURL).failBeforePlacing { throw failure }
        let number = state.placed.withLock { value in
            value += 1
            return value
        }
        let id = "B\(number)"
        let order = Order(
            id: id,
            brokerOrderId: id,
            clientOrderId: request.clientOrderId ?? "",
            connectionId: connectionId,
            broker: kind,
            accountId: request.accountId,
            instrument: Instrument(symbol: request.instrument.symbol, assetClass: .equity),
            side: request.side,
            type: request.type,
            timeInForce: request.timeInForce,
            quantity: request.quantity ?? 0,
            limitPrice: request.limitPrice,
            status: request.type == .market ? .filled : .open,
            filledQuantity: request.type == .market ? request.quantity ?? 0 : 0,
            notional: request.notional
        )
        state.orders.withLock { $0[id] = order }
        let behaviour = state.behaviour(for: context.baseURL)
        if behaviour.unreachableAfterPlacing {
            var down = behaviour
            down.failure = GatewayError(.upstreamUnavailable, "unreachable")
            state.set(context.baseURL, down)
        }
        if behaviour.delayAfterPlacing > .zero { try await Task.sleep(for: behaviour.delayAfterPlacing) }
        if let failure = behaviour.failAfterPlacing { throw failure }
        return order
    }

    func modifyOrder(_ order: Order, _ modification: OrderModification) async throws -> Order {
        try await behave()
        var changed = order
        changed.quantity = modification.quantity ?? order.quantity
        changed.limitPrice = modification.limitPrice ?? order.limitPrice
        changed.brokerOrderId = order.brokerOrderId
        state.orders.withLock { $0[order.brokerOrderId ?? ""] = changed }
        return changed
    }

    func cancelOrder(_ order: Order) async throws -> Order {
        try await behave()
        var canceled = order
        canceled.status = .canceled
        state.orders.withLock { $0[order.brokerOrderId ?? ""] = canceled }
        state.canceledSink.yield(order.brokerOrderId ?? "")
        if state.behaviour(for: context.baseURL).holdsCancelAnswer {
            for await _ in state.cancelAnswers { break }
        }
        return canceled
    }

    func quotes(_ instruments: [InstrumentReference]) async throws -> [Quote] {
        try await behave()
        return instruments.map {
            Quote(instrument: Instrument(symbol: $0.symbol, assetClass: $0.impliedAssetClass), bid: 99, ask: 101, last: 100)
        }
    }

    func candles(_ instrument: InstrumentReference, interval: CandleInterval, count: Int) async throws -> CandleSeries {
        try await behave()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let candles = (0..<count).map { index in
            Candle(time: start.addingTimeInterval(Double(index * interval.minutes * 60)), open: 100, high: 102, low: 99, close: 101)
        }
        return CandleSeries(
            instrument: Instrument(symbol: instrument.symbol, assetClass: instrument.impliedAssetClass),
            interval: interval,
            candles: candles
        )
    }

    func orderBook(_ instrument: InstrumentReference, depth: Int) async throws -> OrderBook {
        try await behave()
        let levels = (0..<depth).map { Decimal($0) }
        return OrderBook(
            instrument: Instrument(symbol: instrument.symbol, assetClass: instrument.impliedAssetClass),
            bids: levels.map { OrderBookLevel(price: 99 - $0, size: 1 + $0) },
            asks: levels.map { OrderBookLevel(price: 101 + $0, size: 1 + $0) }
        )
    }

    func searchInstruments(_ text: String, assetClass: AssetClass?) async throws -> [Instrument] {
        throw GatewayError.notSupported("searchInstruments", broker: kind)
    }
}
