import Foundation
import GatewayCore
import GatewayModel
import Synchronization

/// A test double of a broker whose users link through its login page (as TradeIt's do): it counts and can hold the
/// verifier exchange, so tests see whether, when and how often the gateway calls the broker to complete a link.
final class FakeLinkingState: Sendable {
    /// How many times the gateway asked the broker to exchange a verifier.
    let completions = Mutex(0)
    /// Whether each started link was a token update (`relink`).
    let starts = Mutex<[Bool]>([])
    /// When set, the next verifier exchange waits here until the test releases it.
    let gate = Mutex<LinkGate?>(nil)

    var completionCount: Int { completions.withLock { $0 } }
}

/// Holds the first verifier exchange at the broker: `entered` says it arrived, `release()` lets it answer. Any later
/// exchange goes straight through (so a gateway that let a second one reach the broker fails the test, never hangs).
final class LinkGate: Sendable {
    let entered: AsyncStream<Void>
    private let arrived: AsyncStream<Void>.Continuation
    private let state = Mutex<(held: Bool, released: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, false, nil))

    init() {
        (entered, arrived) = AsyncStream.makeStream(of: Void.self)
    }

    func pass() async {
        let first = state.withLock { state -> Bool in
            defer { state.held = true }
            return !state.held
        }
        guard first else { return }
        arrived.yield()
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.released { return true }
                state.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.released = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}

struct FakeLinkingFactory: BrokerAdapterFactory {
    let state: FakeLinkingState
    let brokers: FakeBrokerState
    var kind: BrokerKind { .tradeit }
    var displayName: String { "Fake login-page broker" }
    var credentialKeys: [String] { ["apiKey"] }
    var knownBaseURLs: [String: String] { ["default": "https://tradeit.fake"] }
    var rateLimits: [RateLimitRule] { [] }
    var capabilities: Capabilities { FakeBrokerFactory(kind: .tradeit, state: brokers).capabilities }

    func makeAdapter(_ context: AdapterContext) throws -> any BrokerAdapter {
        FakeLinkingBroker(
            inner: FakeBroker(kind: kind, capabilities: capabilities, context: context, state: brokers),
            context: context,
            state: state
        )
    }
}

/// The popup is `https://login.fake/popup?callback=<the gateway's callback URL>`; verifier `refuse` is refused.
struct FakeLinkingBroker: LinkingAdapter {
    let inner: FakeBroker
    let context: AdapterContext
    let state: FakeLinkingState

    var kind: BrokerKind { inner.kind }
    var capabilities: Capabilities { inner.capabilities }

    func startLink(callbackURL: String, relink: Bool) async throws -> LinkStart {
        state.starts.withLock { $0.append(relink) }
        var components = URLComponents(string: "https://login.fake/popup")!
        components.queryItems = [URLQueryItem(name: "callback", value: callbackURL)]
        return LinkStart(popupURL: components.string!)
    }

    func completeLink(verifier: String) async throws -> BrokerCredentials {
        state.completions.withLock { $0 += 1 }
        if let gate = state.gate.withLock({ $0 }) { await gate.pass() }
        if verifier == "refuse" { throw GatewayError(.unauthorized, "the verifier was refused", broker: kind) }
        return BrokerCredentials(["apiKey": context.credentials["apiKey"] ?? "", "userId": "u1", "userToken": "t-\(verifier)"])
    }

    func authenticate() async throws -> AuthenticationOutcome { .authenticated }
    func answerChallenge(_ answer: String) async throws -> AuthenticationOutcome { .authenticated }

    func validateCredentials() async throws {
        if context.credentials["apiKey"] == "bad" { throw GatewayError(.unauthorized, "bad key", broker: kind) }
    }

    func clients() async throws -> [Client] { try await inner.clients() }
    func accounts() async throws -> [Account] { try await inner.accounts() }
    func balances(accountId: String?) async throws -> [Balance] { try await inner.balances(accountId: accountId) }
    func positions(accountId: String?) async throws -> [Position] { try await inner.positions(accountId: accountId) }
    func watchlists() async throws -> [Watchlist] { try await inner.watchlists() }
    func createWatchlist(name: String, instruments: [InstrumentReference]) async throws -> Watchlist {
        try await inner.createWatchlist(name: name, instruments: instruments)
    }
    func updateWatchlist(id: String, name: String?, instruments: [InstrumentReference]?) async throws -> Watchlist {
        try await inner.updateWatchlist(id: id, name: name, instruments: instruments)
    }
    func deleteWatchlist(id: String) async throws { try await inner.deleteWatchlist(id: id) }
    func orders(_ query: OrderQuery) async throws -> [Order] { try await inner.orders(query) }
    func order(brokerOrderId: String) async throws -> Order { try await inner.order(brokerOrderId: brokerOrderId) }
    func order(clientOrderId: String, accountId: String) async throws -> Order? {
        try await inner.order(clientOrderId: clientOrderId, accountId: accountId)
    }
    func previewOrder(_ request: OrderRequest) async throws -> OrderPreview { try await inner.previewOrder(request) }
    func placeOrder(_ request: OrderRequest) async throws -> Order { try await inner.placeOrder(request) }
    func modifyOrder(_ order: Order, _ modification: OrderModification) async throws -> Order {
        try await inner.modifyOrder(order, modification)
    }
    func cancelOrder(_ order: Order) async throws -> Order { try await inner.cancelOrder(order) }
    func quotes(_ instruments: [InstrumentReference]) async throws -> [Quote] { try await inner.quotes(instruments) }
    func searchInstruments(_ text: String, assetClass: AssetClass?) async throws -> [Instrument] {
        try await inner.searchInstruments(text, assetClass: assetClass)
    }
    func candles(_ instrument: InstrumentReference, interval: CandleInterval, count: Int) async throws -> CandleSeries {
        try await inner.candles(instrument, interval: interval, count: count)
    }
    func orderBook(_ instrument: InstrumentReference, depth: Int) async throws -> OrderBook {
        try await inner.orderBook(instrument, depth: depth)
    }
}
