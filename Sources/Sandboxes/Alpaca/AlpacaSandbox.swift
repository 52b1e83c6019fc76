public import Foundation
public import Hummingbird
public import SandboxKit
import Synchronization

/// A stateful simulator of Alpaca's Trading API v2 and its Market Data API (latest quotes, trades and crypto order
/// books; stock and crypto bars and snapshots, sampled from the shared market), faithful enough that alpaca-py and
/// ccxt run against it unmodified.
///
/// ```swift
/// let sandbox = AlpacaSandbox()                      // demo account, wall clock
/// try await withSandbox(sandbox) { url in
///     // TradingClient("SANDBOX-ALPACA-KEY", "SANDBOX-ALPACA-SECRET", url_override: url)
/// }
/// ```
///
/// Everything time-dependent reads `market.clock`; give the market a ``ManualClock`` to drive time from a test.
/// Resting orders are matched lazily: every Trading API request first expires and fills its account's open orders
/// against the current market, so no background task is needed (``SandboxTicker`` can add one). The simulated account is a cash account (multiplier 1, no shorting):
/// buying power is cash less what open buy orders reserve, and sells are limited to the unreserved position.
public final class AlpacaSandbox: BrokerSimulator {
    /// The accounts, limits and behaviour the simulator was made with.
    public let configuration: AlpacaSandboxConfiguration
    /// The shared market every quote, bar and fill comes from; its clock is the simulator's clock.
    public let market: MarketEngine
    /// The live fault rules the simulator's middleware applies (see `/_sandbox/faults`).
    public let faults: FaultInjector

    let assets: AlpacaAssets
    /// The trading streams' listeners; every change of an order is published here, in order, under the state lock.
    let tradeUpdates = AlpacaTradeUpdates()
    /// The market-data stream connections held, per account and endpoint.
    let streamConnections = AlpacaStreamConnections()
    private let state: PersistentState<State, AlpacaSandboxState>
    /// The layout of ``AlpacaSandboxState`` in the state file.
    static let stateVersion = 1
    /// Whether this sandbox continued from a saved state.
    public let restoredState: Bool

    private struct State {
        var books: [UUID: AlpacaAccountBook] = [:]
        /// Key id → its secret and account; the configured accounts' and those opened at run time.
        var keys: [String: (secret: String, account: UUID)] = [:]
        var tokens: [String: UUID] = [:]
        /// Accounts opened by ``provisionAccount()``: the only ones ``releaseAccount(keyID:)`` may forget.
        var provisioned: Set<UUID> = []
        /// (account, API) → (window start in unix seconds, requests counted in it).
        var rateWindows: [String: (start: Int64, count: Int)] = [:]

        var saved: AlpacaSandboxState {
            AlpacaSandboxState(
                books: books,
                keys: keys.mapValues { AlpacaSandboxState.Key(secret: $0.secret, account: $0.account) },
                tokens: tokens,
                provisioned: provisioned
            )
        }
    }

    /// A sandbox that keeps its state in memory: every start is a fresh one.
    public convenience init(
        configuration: AlpacaSandboxConfiguration = AlpacaSandboxConfiguration(),
        market: MarketEngine = MarketEngine(),
        faults: FaultInjector = FaultInjector()
    ) {
        self.init(configuration: configuration, market: market, faults: faults, file: nil, restored: nil)
    }

    /// A sandbox that keeps its state in `stateDirectory` (`alpaca.json`, see ``AlpacaSandboxState``): it continues
    /// from the state saved there, or starts fresh when there is none, and saves every change.
    /// - Throws: ``SandboxStateError`` naming the file when it is there but cannot be read.
    public convenience init(
        configuration: AlpacaSandboxConfiguration = AlpacaSandboxConfiguration(),
        market: MarketEngine = MarketEngine(),
        faults: FaultInjector = FaultInjector(),
        stateDirectory: URL
    ) throws {
        let file = SandboxStateFile<AlpacaSandboxState>(folder: stateDirectory, sandbox: "alpaca", version: Self.stateVersion)
        let restored = try file.load(userInfo: [.sandboxMarket: market])
        self.init(configuration: configuration, market: market, faults: faults, file: file, restored: restored)
    }

    private init(
        configuration: AlpacaSandboxConfiguration,
        market: MarketEngine,
        faults: FaultInjector,
        file: SandboxStateFile<AlpacaSandboxState>?,
        restored: AlpacaSandboxState?
    ) {
        self.configuration = configuration
        self.market = market
        self.faults = faults
        self.restoredState = restored != nil
        let assets = AlpacaAssets(market: market)
        self.assets = assets
        var state = State()
        for account in configuration.accounts {
            Self.open(account, assets: assets, in: &state)
        }
        if let restored {
            // The saved accounts as they were; a configured account the saved state does not have starts fresh.
            state.books.merge(restored.books) { _, saved in saved }
            for (keyID, key) in restored.keys { state.keys[keyID] = (key.secret, key.account) }
            state.tokens.merge(restored.tokens) { _, saved in saved }
            state.provisioned = restored.provisioned
        }
        self.state = PersistentState(state, file: file) { $0.saved }
    }

    /// Writes the state to its folder now (graceful shutdown; tests).
    public func persistState() async throws {
        try await state.flush()
    }

    /// Adds an account's keys and its book, seeded with its starting cash, positions and watchlists.
    private static func open(_ account: AlpacaSandboxAccount, assets: AlpacaAssets, in state: inout State) {
        state.keys[account.keyID] = (account.secretKey, account.id)
        for token in account.oauthTokens { state.tokens[token] = account.id }
        var book = AlpacaAccountBook(
            id: account.id,
            accountNumber: account.accountNumber,
            createdAt: account.createdAt,
            cash: account.startingCash
        )
        for holding in account.positions where holding.quantity > 0 {
            guard let instrument = assets.resolve(holding.symbol) else { continue }
            book.positions[instrument.symbol] = AlpacaPosition(
                instrument: instrument,
                qty: holding.quantity,
                costBasis: holding.quantity * holding.averageEntryPrice,
                openedAt: account.createdAt
            )
        }
        for seed in account.watchlists {
            book.watchlists.append(
                AlpacaWatchlist(
                    id: UUID(),
                    name: seed.name,
                    createdAt: account.createdAt,
                    updatedAt: account.createdAt,
                    symbols: seed.symbols.compactMap { assets.resolve($0)?.symbol }
                )
            )
        }
        state.books[account.id] = book
    }

    /// Opens a new paper account at run time, as a new Alpaca sign-up gets: its own key pair (`PK…` and a 40-character
    /// secret) and its own book, starting as ``AlpacaSandboxConfiguration/provisionedTemplate`` does. Nothing of
    /// another account is visible with its keys.
    /// - Throws: ``SandboxProvisioningError`` once ``AlpacaSandboxConfiguration/maximumProvisionedAccounts`` are open.
    public func provisionAccount() throws -> AlpacaSandboxAccount {
        let template = configuration.provisionedTemplate
        let account = AlpacaSandboxAccount(
            id: UUID(),
            accountNumber: "PA3" + SandboxSecret.upper(9),
            keyID: "PK" + SandboxSecret.upper(18),
            secretKey: SandboxSecret.mixed(40),
            startingCash: template.startingCash,
            positions: template.positions,
            watchlists: template.watchlists,
            createdAt: market.now
        )
        let assets = self.assets
        let limit = configuration.maximumProvisionedAccounts
        try state.withLock { state in
            guard state.provisioned.count < limit else { throw SandboxProvisioningError.full("Alpaca", limit: limit) }
            Self.open(account, assets: assets, in: &state)
            state.provisioned.insert(account.id)
        }
        return account
    }

    /// Forgets an account ``provisionAccount()`` opened: its keys stop working and its book is gone. The configured
    /// accounts (the demo's) are never forgotten.
    public func releaseAccount(keyID: String) {
        state.withLock { state in
            guard let account = state.keys[keyID]?.account, state.provisioned.contains(account) else { return }
            state.keys[keyID] = nil
            state.books[account] = nil
            state.provisioned.remove(account)
            state.rateWindows = state.rateWindows.filter { !$0.key.hasPrefix(account.uuidString) }
        }
    }

    /// The router serving `/v2/...`, `/v1beta3/crypto/...` and the `/_sandbox` admin endpoints.
    public func makeRouter() -> Router<SandboxRequestContext> { sandboxRouter(errors: AlpacaAPIError.self) }

    /// Runs the matching "tick" for every account: expires lapsed orders and fills those the market now reaches.
    public func evaluate() {
        let env = environment()
        let tradeUpdates = self.tradeUpdates
        state.withLock { state in
            for id in state.books.keys {
                state.books[id]!.evaluateAll(env: env)
                tradeUpdates.publish(state.books[id]!.drainUpdates(), account: id)
            }
        }
    }

    /// The matching "tick" for one account (a trading stream runs it when the market moves, so a resting order
    /// the new price reaches fills, and is streamed, without waiting for a request).
    func evaluate(account: UUID) {
        _ = try? withBook(account) { _, _ in }
    }

    // MARK: Internals used by the routes

    func environment() -> AlpacaTradingEnvironment {
        AlpacaTradingEnvironment(market: market, assets: assets, configuration: configuration, now: market.now)
    }

    /// The account a key pair names, or nil (the trading and data streams authenticate in-band with it).
    func account(keyID: String, secret: String) -> UUID? {
        account(key: keyID, secret: secret)
    }

    /// Whether a key pair a gateway stored still names an account here (after a restart on a saved state, it does).
    public func accepts(keyID: String, secretKey: String) -> Bool {
        account(key: keyID, secret: secretKey) != nil
    }

    /// The account an OAuth token names, or nil.
    func account(oauthToken: String) -> UUID? {
        state.withLock { $0.tokens[oauthToken] }
    }

    /// The account a request's credentials name, or nil.
    func authenticate(_ headers: HTTPFields) -> UUID? {
        if let authorization = headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            let scheme = parts[0].lowercased()
            let value = String(parts[1]).trimmingCharacters(in: .whitespaces)
            if scheme == "bearer" { return state.withLock { $0.tokens[value] } }
            if scheme == "basic", let credentials = BasicCredentials(base64: value) {
                return account(key: credentials.user, secret: credentials.password)
            }
            return nil
        }
        guard let key = headers[HeaderName.apiKeyID], let secret = headers[HeaderName.apiSecretKey] else {
            return nil
        }
        return account(key: key, secret: secret)
    }

    private func account(key: String, secret: String) -> UUID? {
        guard let entry = state.withLock({ $0.keys[key] }), Secret.equals(entry.secret, secret) else { return nil }
        return entry.account
    }

    /// Counts a request against the account's per-minute budget for `api` (anonymous requests share one budget).
    func consumeRateLimit(account: UUID?, api: String) -> (allowed: Bool, limit: Int, remaining: Int, reset: Int64) {
        let limit = configuration.requestsPerMinute
        let now = Timestamp.unixSeconds(market.now)
        let start = Timestamp.floorDiv(now, 60) * 60
        let key = "\(account?.uuidString ?? "anonymous")|\(api)"
        return state.withLock { state in
            var window = state.rateWindows[key] ?? (start, 0)
            if window.start != start { window = (start, 0) }
            let allowed = window.count < limit
            if allowed { window.count += 1 }
            state.rateWindows[key] = window
            return (allowed, limit, max(0, limit - window.count), start + 60)
        }
    }

    /// Runs `body` on the account's book after the lazy tick.
    func withBook<Result: Sendable>(
        _ account: UUID,
        _ body: (inout AlpacaAccountBook, AlpacaTradingEnvironment) throws -> Result
    ) throws -> Result {
        let env = environment()
        let tradeUpdates = self.tradeUpdates
        return try state.withLock { state in
            guard var book = state.books[account] else { throw AlpacaAPIError.unauthorized }
            book.evaluateAll(env: env)
            defer {
                tradeUpdates.publish(book.drainUpdates(), account: account)
                state.books[account] = book
            }
            return try body(&book, env)
        }
    }

    /// What an injected error looks like: Alpaca's body for the status; a 429 also says the budget is spent.
    public func faultResponse(status: Int) -> Response {
        var headers = HTTPFields()
        if status == 429 {
            let now = Timestamp.unixSeconds(market.now)
            headers[HeaderName.rateLimitLimit] = String(configuration.requestsPerMinute)
            headers[HeaderName.rateLimitRemaining] = "0"
            headers[HeaderName.rateLimitReset] = String(Timestamp.floorDiv(now, 60) * 60 + 60)
        }
        return .json(AlpacaAPIError.forStatus(status).body, status: .init(code: status), headers: headers)
    }

    /// Alpaca's market data and trade update streams are WebSockets.
    public var servesWebSockets: Bool { true }

    /// Adds Alpaca's own routes to the kit's router (`BrokerSimulator`).
    public func registerRoutes(on router: Router<SandboxRequestContext>) {
        AlpacaRoutes(sandbox: self).register(on: router)
        AlpacaStreams(sandbox: self).register(on: router)
    }

    /// The account's state as it is, without the lazy tick (for tests of the tick itself).
    func bookWithoutTicking(_ account: UUID) -> AlpacaAccountBook? {
        state.withLock { $0.books[account] }
    }

}
