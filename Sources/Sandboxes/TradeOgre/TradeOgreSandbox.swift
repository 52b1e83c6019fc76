public import Foundation
public import Hummingbird
public import SandboxKit
import Synchronization

/// A stateful simulator of TradeOgre's API v1 (the exchange itself has been offline since 2025), faithful enough that
/// ccxt's `tradeogre` (ccxt 4.5.5) runs against it unmodified.
///
/// ```swift
/// let sandbox = TradeOgreSandbox()                  // demo account, wall clock
/// try await withSandbox(sandbox) { url in
///     // base URL: url + "/api/v1"; HTTP Basic SANDBOX-TRADEOGRE-KEY : SANDBOX-TRADEOGRE-SECRET
/// }
/// ```
///
/// The venue is a set of limit order books with price-time priority. Besides the accounts' orders, each book holds
/// orders of simulated participants (placed at start) and a synthetic market maker that quotes a few levels around
/// the shared ``MarketEngine``'s bid and ask. The maker re-quotes lazily, at the start of every request, whenever the
/// market's quote has changed: its new orders trade with any resting order the market moved through, which is how
/// an account's resting order fills as the price moves. An arriving order trades with the book at the resting orders'
/// prices and rests what is left, so large orders fill partially. Open orders hold funds: `/account/balance` says
/// `balance` (the total) and `available` (the total less what open orders hold). There are no fees.
///
/// Everything time-dependent reads `market.clock`; give the market a ``ManualClock`` to drive time from a test.
public final class TradeOgreSandbox: BrokerSimulator {
    /// The accounts, markets and synthetic liquidity the simulator was made with.
    public let configuration: TradeOgreSandboxConfiguration
    /// The shared market the venue's prices follow; its clock is the simulator's clock.
    public let market: MarketEngine
    /// The live fault rules the simulator's middleware applies (see `/_sandbox/faults`).
    public let faults: FaultInjector

    /// Listed markets by canonical symbol.
    let listings: [String: TradeOgreListing]
    /// Listed markets by wire name, in the order `/markets` lists them.
    let listingsByWireName: [String: TradeOgreListing]
    let orderedWireNames: [String]
    /// API key → secret (the configured accounts' and those opened at run time), and which were opened at run time.
    private let accounts: PersistentState<TradeOgreAccounts, TradeOgreAccounts>
    private let state: PersistentState<TradeOgreExchange, TradeOgreSandboxState>
    /// The layout of ``TradeOgreSandboxState`` in the state file.
    static let stateVersion = 1
    /// Whether this sandbox continued from a saved state.
    public let restoredState: Bool

    /// A sandbox that keeps its state in memory: every start is a fresh one.
    public convenience init(
        configuration: TradeOgreSandboxConfiguration = TradeOgreSandboxConfiguration(),
        market: MarketEngine = MarketEngine(),
        faults: FaultInjector = FaultInjector()
    ) {
        self.init(configuration: configuration, market: market, faults: faults, file: nil, restored: nil)
    }

    /// A sandbox that keeps its state in `stateDirectory` (`tradeogre.json`, see ``TradeOgreSandboxState``): it
    /// continues from the state saved there, or starts fresh when there is none, and saves every change.
    /// - Throws: ``SandboxStateError`` naming the file when it is there but cannot be read.
    public convenience init(
        configuration: TradeOgreSandboxConfiguration = TradeOgreSandboxConfiguration(),
        market: MarketEngine = MarketEngine(),
        faults: FaultInjector = FaultInjector(),
        stateDirectory: URL
    ) throws {
        let file = SandboxStateFile<TradeOgreSandboxState>(folder: stateDirectory, sandbox: "tradeogre", version: Self.stateVersion)
        let restored = try file.load()
        self.init(configuration: configuration, market: market, faults: faults, file: file, restored: restored)
    }

    /// Writes the state to its folder now (graceful shutdown; tests).
    public func persistState() async throws {
        try await state.flush()
    }

    private init(
        configuration: TradeOgreSandboxConfiguration,
        market: MarketEngine,
        faults: FaultInjector,
        file: SandboxStateFile<TradeOgreSandboxState>?,
        restored: TradeOgreSandboxState?
    ) {
        self.configuration = configuration
        self.market = market
        self.faults = faults
        self.restoredState = restored != nil
        var listings: [String: TradeOgreListing] = [:]
        for symbol in configuration.markets {
            guard let instrument = market.instrument(symbol: symbol), instrument.assetClass == .crypto,
                let base = instrument.baseCurrency
            else { continue }
            listings[symbol] = TradeOgreListing(
                instrument: instrument,
                base: base,
                quote: instrument.currency,
                wireName: configuration.marketNaming.wireName(base: base, quote: instrument.currency),
                path: PricePath(instrument: instrument, seed: market.configuration.seed)
            )
        }
        self.listings = listings
        var byWire: [String: TradeOgreListing] = [:]
        for listing in listings.values { byWire[listing.wireName] = listing }
        self.listingsByWireName = byWire
        self.orderedWireNames = byWire.keys.sorted()

        var secrets: [String: String] = [:]
        var exchange = TradeOgreExchange()
        for account in configuration.accounts {
            secrets[account.apiKey] = account.apiSecret
            exchange.wallets[account.apiKey] = account.balances
        }
        let accounts = PersistentState<TradeOgreAccounts, TradeOgreAccounts>(TradeOgreAccounts(secrets: secrets, provisioned: []))
        self.accounts = accounts
        if let restored {
            // The venue as it was saved: books (the accounts' resting orders, the participants', the maker's last
            // quotes), wallets, orders and history; the maker re-quotes on the first request. A configured account
            // the saved state does not have starts with its configured balances.
            let configured = exchange.wallets
            exchange = restored.exchange
            exchange.wallets.merge(configured) { saved, _ in saved }
            accounts.withLock { accounts in
                accounts.secrets.merge(restored.accounts.secrets) { configured, _ in configured }
                accounts.provisioned = restored.accounts.provisioned
            }
            self.state = PersistentState(exchange, file: file) { exchange in
                TradeOgreSandboxState(exchange: exchange, accounts: accounts.read { $0 })
            }
            return
        }

        let now = market.now
        for wireName in byWire.keys.sorted() {
            let listing = byWire[wireName]!
            guard let quote = market.quote(symbol: listing.symbol) else { continue }
            exchange.seedHistory(
                listing: listing,
                count: configuration.seededTrades,
                seed: market.configuration.seed,
                bucketSeconds: market.configuration.bucketSeconds,
                now: now
            )
            exchange.seedParticipants(listing: listing, reference: quote.mid, offsets: configuration.participantOffsets, now: now)
            exchange.requote(
                listing: listing,
                quote: quote,
                levels: configuration.makerLevels,
                spacing: configuration.makerLevelSpacing,
                now: now
            )
        }
        self.state = PersistentState(exchange, file: file) { exchange in
            TradeOgreSandboxState(exchange: exchange, accounts: accounts.read { $0 })
        }
    }

    /// The router serving `/api/v1/...` and the `/_sandbox` admin endpoints.
    public func makeRouter() -> Router<SandboxRequestContext> { sandboxRouter(errors: TradeOgreAPIError.self) }

    /// Adds TradeOgre's own routes to the kit's router (`BrokerSimulator`).
    public func registerRoutes(on router: Router<SandboxRequestContext>) {
        TradeOgreRoutes(sandbox: self).register(on: router)
    }

    /// What an injected error status looks like: TradeOgre's own error body for it (`BrokerSimulator`).
    public func faultResponse(status: Int) -> Response {
        .json(TradeOgreAPIError.forStatus(status).body, status: .init(code: status))
    }

    /// The matching "tick": re-quotes the synthetic maker in every market whose shared-market quote changed, which
    /// fills resting orders the price has moved through. Requests do this lazily; a ``SandboxTicker`` can add a
    /// schedule.
    public func evaluate() {
        state.withLock { exchange in tick(&exchange) }
    }

    // MARK: Accounts opened at run time

    /// Opens a new account at run time with its own API key and secret (HTTP Basic, as TradeOgre's were) and its own
    /// wallet, funded as ``TradeOgreSandboxConfiguration/provisionedBalances`` says. Its orders and balances are
    /// its own: another key sees none of them (`Order not found`).
    /// - Throws: ``SandboxProvisioningError`` once ``TradeOgreSandboxConfiguration/maximumProvisionedAccounts`` are open.
    public func provisionAccount() throws -> TradeOgreSandboxAccount {
        let account = TradeOgreSandboxAccount(
            apiKey: SandboxSecret.mixed(32).lowercased(),
            apiSecret: SandboxSecret.mixed(32).lowercased(),
            balances: configuration.provisionedBalances
        )
        let limit = configuration.maximumProvisionedAccounts
        try accounts.withLock { accounts in
            guard accounts.provisioned.count < limit else { throw SandboxProvisioningError.full("TradeOgre", limit: limit) }
            accounts.provisioned.insert(account.apiKey)
        }
        // The wallet first: the key works only once its wallet is there.
        state.withLock { $0.wallets[account.apiKey] = account.balances }
        accounts.withLock { $0.secrets[account.apiKey] = account.apiSecret }
        // The key is part of the saved state too.
        state.changed()
        return account
    }

    /// Forgets an account ``provisionAccount()`` opened: its key stops working, its open orders leave the books and
    /// its wallet is gone. The configured accounts (the demo's) are never forgotten.
    public func releaseAccount(apiKey: String) {
        let released = accounts.withLock { accounts -> Bool in
            guard accounts.provisioned.remove(apiKey) != nil else { return false }
            accounts.secrets[apiKey] = nil
            return true
        }
        guard released else { return }
        state.withLock { exchange in
            exchange.cancelAll(account: apiKey)
            exchange.wallets[apiKey] = nil
        }
    }

    // MARK: Internals used by the routes

    /// The account key named by `Authorization: Basic base64(key:secret)`, or nil.
    func authenticate(_ headers: HTTPFields) -> String? {
        guard let authorization = headers[.authorization], let credentials = BasicCredentials(authorization: authorization),
            let expected = accounts.withLock({ $0.secrets[credentials.user] }), Secret.equals(expected, credentials.password)
        else { return nil }
        return credentials.user
    }

    /// Whether a key pair a gateway stored still names an account here (after a restart on a saved state, it does).
    public func accepts(apiKey: String, apiSecret: String) -> Bool {
        guard let expected = accounts.read({ $0.secrets[apiKey] }) else { return false }
        return Secret.equals(expected, apiSecret)
    }

    /// Runs `body` on the venue's state after the lazy tick.
    func withExchange<Result: Sendable>(
        _ body: (inout TradeOgreExchange, Date) throws(TradeOgreAPIError) -> Result
    ) throws(TradeOgreAPIError) -> Result {
        let now = market.now
        return try state.withLock { (exchange: inout TradeOgreExchange) throws(TradeOgreAPIError) -> Result in
            tick(&exchange)
            return try body(&exchange, now)
        }
    }

    /// The listing a path or form names in this venue's spelling.
    func listing(wireName: String?) throws(TradeOgreAPIError) -> TradeOgreListing {
        guard let wireName, let listing = listingsByWireName[wireName.uppercased()] else { throw .marketNotFound }
        return listing
    }

    /// The state without the lazy tick (for tests of the tick itself).
    func exchangeWithoutTicking() -> TradeOgreExchange {
        state.withLock { $0 }
    }

    private func tick(_ exchange: inout TradeOgreExchange) {
        let now = market.now
        for wireName in orderedWireNames {
            let listing = listingsByWireName[wireName]!
            guard let quote = market.quote(symbol: listing.symbol) else { continue }
            if let last = exchange.quoted[listing.symbol], last.timestamp == quote.timestamp, last.bid == quote.bid,
                last.ask == quote.ask
            {
                continue
            }
            exchange.requote(
                listing: listing,
                quote: quote,
                levels: configuration.makerLevels,
                spacing: configuration.makerLevelSpacing,
                now: now
            )
        }
    }
}
