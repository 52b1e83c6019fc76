public import Foundation
public import GatewayCore
public import GatewayModel
import HTTPTypes
import Logging

/// Kraken's Spot REST API as a `BrokerAdapter`, for one connection.
///
/// A key pair reaches one spot wallet, which the gateway calls account `spot`. Public calls are `GET
/// /0/public/<Method>?query`; private calls are `POST /0/private/<Method>` with a form body that starts with a
/// `nonce`, signed (`API-Key`, `API-Sign`: see ``KrakenSigner``). Every answer is `{"error": [...], "result": ...}`,
/// with HTTP 200 for failures too; ``KrakenErrors`` maps the strings.
public struct KrakenAdapter: BrokerAdapter {
    /// The one account a key pair reaches.
    public static let accountId = "spot"

    /// Always `.kraken`.
    public var kind: BrokerKind { .kraken }
    /// What Kraken supports, emulates or refuses (see `KrakenAdapterFactory`).
    public var capabilities: Capabilities { KrakenAdapterFactory.krakenCapabilities }

    let context: AdapterContext
    let configuration: KrakenConfiguration
    let nonce: @Sendable (String) -> UInt64

    /// Binds the adapter to one connection; makes no call. `nonce` gives the next nonce for an API key.
    public init(context: AdapterContext, configuration: KrakenConfiguration, nonce: @escaping @Sendable (String) -> UInt64) {
        self.context = context
        self.configuration = configuration
        self.nonce = nonce
    }

    var connectionId: String { context.connection.id }

    // MARK: HTTP

    /// Kraken's side of `BrokerHTTPClient`: its timeouts, its error table and its wording of `malformed_response`.
    var http: BrokerHTTPClient {
        BrokerHTTPClient(
            broker: .kraken,
            transport: context.transport,
            logger: context.logger,
            readTimeout: configuration.readTimeout,
            writeTimeout: configuration.writeTimeout,
            errorTable: { response, _ in KrakenErrors.error(for: response) },
            malformed: { error, what in KrakenErrors.malformed("\(DecodingFailure.describe(error)) for \(what)") }
        )
    }

    /// `GET /0/public/<method>?query`.
    func publicCall(_ method: String, query: [(name: String, value: String)] = []) -> BrokerCall {
        let path = "/0/public/\(method)"
        return BrokerCall(.get, url: BrokerURL.make(base: configuration.baseURL, path: path, query: query), loggedPath: path)
    }

    /// `POST /0/private/<method>` with `nonce=<next>&<fields>`, signed over the path and the exact body.
    func privateCall(_ method: String, _ fields: [(String, String)] = [], isWrite: Bool = false) -> BrokerCall {
        let path = "/0/private/\(method)"
        let nonce = String(nonce(configuration.keys.apiKey))
        let body = BrokerURL.form([("nonce", nonce)] + fields)
        var headers = HTTPFields()
        headers.set("API-Key", configuration.keys.apiKey)
        headers.set("API-Sign", KrakenSigner.signature(path: path, nonce: nonce, body: body, key: configuration.keys.secret))
        return BrokerCall(
            .post,
            url: configuration.baseURL + path,
            loggedPath: path,
            headers: headers,
            body: body,
            contentType: BrokerCall.form,
            isWrite: isWrite
        )
    }

    /// Sends one call and returns its `result`: a non-2xx status, or an `E…` string in `error`, fails with the error
    /// table's verdict; a body that does not decode, or a success without `result`, is `malformed_response`.
    func fetch<T: Decodable>(_ type: T.Type, _ call: BrokerCall) async throws -> T {
        let response = try await http.send(call)
        let envelope = try http.decode(KrakenEnvelope<T>.self, from: response.body, what: call.loggedPath)
        if !envelope.failures.isEmpty { throw KrakenErrors.error(strings: envelope.failures) }
        guard let result = envelope.result else { throw KrakenErrors.malformed("no result for \(call.loggedPath)") }
        return result
    }

    /// Assets and pairs, the two public calls at once (every mapping of symbols needs both).
    func markets() async throws -> KrakenMarkets {
        async let assets = fetch([String: KrakenAsset].self, publicCall("Assets"))
        async let pairs = fetch([String: KrakenPair].self, publicCall("AssetPairs"))
        return KrakenMarkets(assets: try await assets, pairs: try await pairs)
    }

    // MARK: Account

    /// `POST /0/private/BalanceEx` must succeed: a refused key is `unauthorized`.
    public func validateCredentials() async throws {
        _ = try await fetch([String: KrakenBalance].self, privateCall("BalanceEx"))
    }

    /// The one client a key pair reaches (id `spot`).
    public func clients() async throws -> [Client] {
        [
            Client(
                id: Self.accountId,
                connectionId: connectionId,
                broker: .kraken,
                name: "Kraken account",
                defaultAccountId: Self.accountId,
                defaultCurrency: configuration.valuationCurrency
            )
        ]
    }

    /// The spot wallet as the one account (id `spot`, in the valuation currency).
    public func accounts() async throws -> [Account] {
        [
            Account(
                id: Self.accountId,
                connectionId: connectionId,
                broker: .kraken,
                name: "Spot wallet",
                currency: configuration.valuationCurrency,
                tradable: true
            )
        ]
    }

    /// `BalanceEx` (what the key holds and what open orders hold) with `Assets` (to name the assets), at once. Assets
    /// with a zero balance are left out. Sorted by currency.
    public func balances(accountId: String?) async throws -> [Balance] {
        try check(accountId)
        async let balancesCall = fetch([String: KrakenBalance].self, privateCall("BalanceEx"))
        async let assetsCall = fetch([String: KrakenAsset].self, publicCall("Assets"))
        let (wire, assets) = try await (balancesCall, assetsCall)
        return KrakenHoldings.balances(
            wire,
            markets: KrakenMarkets(assets: assets, pairs: [:]),
            connectionId: connectionId,
            accountId: Self.accountId
        )
    }

    /// Holdings as positions (see ``KrakenHoldings``): `BalanceEx` and the markets at once, then one `Ticker` call for
    /// every pair that values a holding.
    public func positions(accountId: String?) async throws -> [Position] {
        try check(accountId)
        async let balancesCall = fetch([String: KrakenBalance].self, privateCall("BalanceEx"))
        async let marketsCall = markets()
        let (wire, markets) = try await (balancesCall, marketsCall)
        let valued = KrakenHoldings.valuationPairs(wire, markets: markets, valuationCurrency: configuration.valuationCurrency)
        var tickers: [String: KrakenTicker] = [:]
        if !valued.isEmpty {
            let ids = Set(valued.values).sorted()
            tickers = try await fetch([String: KrakenTicker].self, publicCall("Ticker", query: [("pair", ids.joined(separator: ","))]))
        }
        return KrakenHoldings.positions(
            wire,
            markets: markets,
            tickers: tickers,
            valuationCurrency: configuration.valuationCurrency,
            connectionId: connectionId,
            accountId: Self.accountId
        )
    }

    // MARK: Watchlists (the gateway's own serve Kraken connections)

    /// Refused: Kraken has no watchlists in its API; the gateway's own serve Kraken connections.
    public func watchlists() async throws -> [Watchlist] { throw GatewayError.notSupported("watchlists", broker: kind) }

    /// Refused: Kraken has no watchlists in its API.
    public func createWatchlist(name: String, instruments: [InstrumentReference]) async throws -> Watchlist {
        throw GatewayError.notSupported("createWatchlist", broker: kind)
    }

    /// Refused: Kraken has no watchlists in its API.
    public func updateWatchlist(id: String, name: String?, instruments: [InstrumentReference]?) async throws -> Watchlist {
        throw GatewayError.notSupported("updateWatchlist", broker: kind)
    }

    /// Refused: Kraken has no watchlists in its API.
    public func deleteWatchlist(id: String) async throws { throw GatewayError.notSupported("deleteWatchlist", broker: kind) }

    // MARK: Helpers

    func check(_ accountId: String?) throws {
        if let accountId, accountId != Self.accountId {
            throw GatewayError(
                .notFound,
                "this Kraken connection has no account '\(accountId)' (its only account is '\(Self.accountId)')",
                broker: .kraken,
                retryable: false
            )
        }
    }

    /// The pair of a canonical symbol, or a field problem.
    func krakenPair(of reference: InstrumentReference, field: String, in markets: KrakenMarkets) throws -> (id: String, pair: KrakenPair) {
        if let assetClass = reference.assetClass, assetClass != .crypto {
            throw Self.problem(field, "Kraken's spot API lists crypto pairs only")
        }
        guard reference.symbol.split(separator: "/").count == 2 else {
            throw Self.problem(field, "must be a crypto pair written BASE/QUOTE, such as BTC/USD")
        }
        guard let found = markets.pair(symbol: reference.symbol) else {
            throw Self.problem(field, "Kraken lists no pair \(reference.symbol)")
        }
        return found
    }

    static func problem(_ field: String, _ text: String) -> GatewayError {
        var error = GatewayError.unprocessable([FieldProblem(field: field, problem: text)])
        error.broker = .kraken
        return error
    }
}
