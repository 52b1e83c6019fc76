import Foundation
import GatewayCore
import GatewayModel
import Hummingbird
import Logging
import NIOCore

/// A broker stand-in for the benchmark: an HTTP server that answers every request after a fixed latency.
struct LatencySource {
    static func router(latency: Duration) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/accounts") { _, _ in
            try await Task.sleep(for: latency)
            return Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"[{"id":"ACC-1","currency":"USD"}]"#))
            )
        }
        return router
    }
}

/// The benchmark's adapter: one real HTTP call per read through the gateway's shared transport.
struct LatencyAdapterFactory: BrokerAdapterFactory {
    var kind: BrokerKind { BrokerKind("latency") }
    var displayName: String { "Fixed-latency source" }
    var credentialKeys: [String] { [] }
    var knownBaseURLs: [String: String] { [:] }
    var rateLimits: [RateLimitRule] { [] }
    var capabilities: Capabilities {
        Capabilities(operations: [.accounts: .supported], assetClasses: [.equity], orderTypes: [], timeInForce: [])
    }

    func makeAdapter(_ context: AdapterContext) throws -> any BrokerAdapter {
        LatencyAdapter(context: context, capabilities: capabilities)
    }
}

struct LatencyAdapter: BrokerAdapter {
    let context: AdapterContext
    let capabilities: Capabilities
    var kind: BrokerKind { BrokerKind("latency") }

    struct WireAccount: Decodable {
        var id: String
        var currency: String
    }

    func accounts() async throws -> [Account] {
        let response = try await context.transport.send(BrokerRequest(method: .get, url: context.baseURL + "/accounts"))
        let wire = try JSONDecoder().decode([WireAccount].self, from: response.body)
        return wire.map { Account(id: $0.id, connectionId: context.connection.id, broker: kind, currency: $0.currency) }
    }

    func unsupported(_ name: String) -> GatewayError { GatewayError.notSupported(name, broker: kind) }
    func validateCredentials() async throws {}
    func clients() async throws -> [Client] { throw unsupported("clients") }
    func balances(accountId: String?) async throws -> [Balance] { throw unsupported("balances") }
    func positions(accountId: String?) async throws -> [Position] { throw unsupported("positions") }
    func watchlists() async throws -> [Watchlist] { throw unsupported("watchlists") }
    func createWatchlist(name: String, instruments: [InstrumentReference]) async throws -> Watchlist { throw unsupported("watchlists") }
    func updateWatchlist(id: String, name: String?, instruments: [InstrumentReference]?) async throws -> Watchlist { throw unsupported("watchlists") }
    func deleteWatchlist(id: String) async throws { throw unsupported("watchlists") }
    func orders(_ query: OrderQuery) async throws -> [Order] { throw unsupported("orders") }
    func order(brokerOrderId: String) async throws -> Order { throw unsupported("orders") }
    func order(clientOrderId: String, accountId: String) async throws -> Order? { throw unsupported("orders") }
    func previewOrder(_ request: OrderRequest) async throws -> OrderPreview { throw unsupported("orders") }
    func placeOrder(_ request: OrderRequest) async throws -> Order { throw unsupported("orders") }
    func modifyOrder(_ order: Order, _ modification: OrderModification) async throws -> Order { throw unsupported("orders") }
    func cancelOrder(_ order: Order) async throws -> Order { throw unsupported("orders") }
    func quotes(_ instruments: [InstrumentReference]) async throws -> [Quote] { throw unsupported("quotes") }
    func candles(_ instrument: InstrumentReference, interval: CandleInterval, count: Int) async throws -> CandleSeries {
        throw unsupported("candles")
    }
    func orderBook(_ instrument: InstrumentReference, depth: Int) async throws -> OrderBook { throw unsupported("order books") }
    func searchInstruments(_ text: String, assetClass: AssetClass?) async throws -> [Instrument] { throw unsupported("instruments") }
}
