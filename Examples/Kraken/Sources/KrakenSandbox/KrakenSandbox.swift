import Crypto
public import Foundation
public import Hummingbird
public import SandboxKit
import Synchronization

/// A stateful simulator of Kraken's Spot REST API, faithful enough that ccxt's `kraken` class (ccxt 4.5.90) runs
/// against it unmodified: public Assets, AssetPairs, Ticker, Depth, Time and SystemStatus; private Balance,
/// BalanceEx, OpenOrders, ClosedOrders, QueryOrders, AddOrder, AmendOrder and CancelOrder, signed exactly as Kraken checks them.
///
/// ```swift
/// try await withSandbox(KrakenSandbox()) { url in
///     // base URL: url (the adapter and ccxt add /0/public, /0/private); key SANDBOX-KRAKEN-KEY, its demo secret
/// }
/// ```
///
/// - Authentication: `API-Key` must name a key (`EAPI:Invalid key`), `API-Sign` must be
///   `base64(HMAC-SHA512(base64decode(secret), "/0/private/<Method>" + SHA256(nonce + body)))` over the exact body
///   (`EAPI:Invalid signature`), and the body's `nonce` must exceed the last one accepted for the key, less the
///   configured nonce window (`EAPI:Invalid nonce`). Bodies are form-encoded or JSON, as Kraken accepts both.
/// - Prices follow the shared ``MarketEngine``; orders trade against its quote (``KrakenVenue``), without fees.
/// - Failures are HTTP 200 with `{"error": ["E…"]}`, as Kraken answers.
/// - The kit's `/_sandbox` admin endpoints and fault injection are served beside the API.
///
/// State is kept in memory: a restart starts fresh (the demo key is constant; keys opened at run time are gone).
public final class KrakenSandbox: BrokerSimulator {
    /// The keys and funds the simulator was made with.
    public let configuration: KrakenSandboxConfiguration
    /// The shared market the venue's prices follow; its clock is the simulator's clock.
    public let market: MarketEngine
    /// The live fault rules the simulator's middleware applies (see `/_sandbox/faults`).
    public let faults: FaultInjector

    let listings: [String: KrakenListing]
    let orderedListings: [KrakenListing]

    struct Key: Sendable {
        var secret: Data
        var lastNonce: UInt64?
        var provisioned: Bool
    }

    let keys: Mutex<[String: Key]>
    let venue: Mutex<KrakenVenue>

    /// A sandbox with the configured keys and funds, on `market`.
    public init(
        configuration: KrakenSandboxConfiguration = KrakenSandboxConfiguration(),
        market: MarketEngine = MarketEngine(),
        faults: FaultInjector = FaultInjector()
    ) {
        self.configuration = configuration
        self.market = market
        self.faults = faults
        let listed = KrakenListing.listings(market: market)
        self.orderedListings = listed
        self.listings = Dictionary(uniqueKeysWithValues: listed.map { ($0.id, $0) })
        var keys: [String: Key] = [:]
        var venue = KrakenVenue()
        for account in configuration.accounts {
            guard let secret = Data(base64Encoded: account.apiSecret) else { continue }
            keys[account.apiKey] = Key(secret: secret, lastNonce: nil, provisioned: false)
            venue.wallets[account.apiKey] = account.balances
        }
        self.keys = Mutex(keys)
        self.venue = Mutex(venue)
    }

    /// The router serving `/0/public/...`, `/0/private/...` and the `/_sandbox` admin endpoints.
    public func makeRouter() -> Router<SandboxRequestContext> { sandboxRouter(errors: KrakenAPIError.self) }

    /// Adds Kraken's routes (see ``KrakenRoutes``).
    public func registerRoutes(on router: Router<SandboxRequestContext>) {
        KrakenRoutes(sandbox: self).register(on: router)
    }

    /// Kraken's body for an injected status: `EAPI:Rate limit exceeded` for 429, `EService:Unavailable` for 5xx.
    public func faultResponse(status: Int) -> Response {
        .json(KrakenAPIError.forStatus(status).body, status: .init(code: status))
    }

    // MARK: Accounts opened at run time

    /// Opens a new key at run time with its own wallet (``KrakenSandboxConfiguration/provisionedBalances``); its
    /// orders and balances are its own. Returns the key and its base64 secret.
    /// - Throws: ``SandboxProvisioningError`` once ``KrakenSandboxConfiguration/maximumProvisionedAccounts`` are open.
    public func provisionAccount() throws -> KrakenSandboxAccount {
        var bytes = [UInt8](repeating: 0, count: 64)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = UInt8.random(in: .min ... .max, using: &generator) }
        let secret = Data(bytes)
        let account = KrakenSandboxAccount(
            apiKey: "K" + SandboxSecret.mixed(40),
            apiSecret: secret.base64EncodedString(),
            balances: configuration.provisionedBalances
        )
        let limit = configuration.maximumProvisionedAccounts
        try keys.withLock { keys in
            guard keys.values.filter(\.provisioned).count < limit else { throw SandboxProvisioningError.full("Kraken", limit: limit) }
            // The wallet first: the key works only once its wallet is there.
            venue.withLock { $0.wallets[account.apiKey] = account.balances }
            keys[account.apiKey] = Key(secret: secret, lastNonce: nil, provisioned: true)
        }
        return account
    }

    /// Forgets a key ``provisionAccount()`` opened: it stops working, its open orders are canceled and its wallet is
    /// gone. The configured keys (the demo's) are never forgotten.
    public func releaseAccount(apiKey: String) {
        let released = keys.withLock { keys -> Bool in
            guard keys[apiKey]?.provisioned == true else { return false }
            keys[apiKey] = nil
            return true
        }
        guard released else { return }
        let now = market.now
        venue.withLock { venue in
            for (txid, order) in venue.orders where order.account == apiKey && order.status == .open {
                try? venue.cancel(account: apiKey, txid: txid, now: now)
            }
            venue.wallets[apiKey] = nil
        }
    }

    /// Whether a key pair a gateway stored still names a key here.
    public func accepts(apiKey: String, apiSecret: String) -> Bool {
        guard let expected = keys.withLock({ $0[apiKey]?.secret }), let given = Data(base64Encoded: apiSecret) else { return false }
        return expected.count == given.count && zip(expected, given).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    // MARK: Internals used by the routes

    /// The key a private request is made with, after the checks Kraken makes: the key, the signature over
    /// `/0/private/<method>` and the exact body, then the nonce (which is recorded).
    func authenticate(method: String, apiKey: String?, apiSign: String?, nonce: String?, body: Data) throws(KrakenAPIError) -> String {
        guard let apiKey, !apiKey.isEmpty else { throw .invalidKey }
        let window = configuration.nonceWindow
        return try keys.withLock { (keys: inout [String: Key]) throws(KrakenAPIError) -> String in
            guard var key = keys[apiKey] else { throw .invalidKey }
            guard let nonce, let value = UInt64(nonce) else { throw .invalidNonce }
            guard let apiSign, let given = Data(base64Encoded: apiSign) else { throw .invalidSignature }
            var message = Data("/0/private/\(method)".utf8)
            message.append(contentsOf: SHA256.hash(data: Data(nonce.utf8) + body))
            guard HMAC<SHA512>.isValidAuthenticationCode(given, authenticating: message, using: SymmetricKey(data: key.secret)) else {
                throw .invalidSignature
            }
            if let last = key.lastNonce {
                guard value > last || (window > 0 && last - value <= window) else { throw .invalidNonce }
            }
            key.lastNonce = max(value, key.lastNonce ?? 0)
            keys[apiKey] = key
            return apiKey
        }
    }

    /// Runs `body` on the venue after the lazy tick (resting orders the market reached are filled first).
    func withVenue<Result: Sendable>(_ body: (inout KrakenVenue, Date) throws(KrakenAPIError) -> Result) throws(KrakenAPIError) -> Result {
        let now = market.now
        return try venue.withLock { (venue: inout KrakenVenue) throws(KrakenAPIError) -> Result in
            venue.match(quotes: { self.market.quote(symbol: $0) }, listings: listings, now: now)
            return try body(&venue, now)
        }
    }

    /// The listing a request names by id, altname or wsname.
    func listing(named name: String) -> KrakenListing? {
        let upper = name.uppercased()
        return orderedListings.first { $0.id == upper || $0.altname == upper || $0.wsname == upper }
    }
}
