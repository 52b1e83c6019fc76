public import Foundation
public import Hummingbird
public import SandboxKit
import Synchronization

/// A stateful simulator of Saxo Bank's OpenAPI (SIM) and its logon host, faithful enough that the Python
/// `saxo_openapi` client runs against it unmodified.
///
/// One server answers both hosts: the logon host's `GET /authorize` and `POST /token`, and the API under
/// `/sim/openapi/...` (and `/openapi/...`). Point `saxo_openapi` at it with
/// `saxo_openapi.saxo_openapi.TRADING_ENVIRONMENTS["simulation"]["api"] = "<base URL>"`.
///
/// **Getting the first token pair without a browser** (what the gateway's demo connection does):
/// 1. `GET /authorize?response_type=code&client_id=SANDBOX-SAXO-APP&redirect_uri=http://localhost/brokergateway/saxo/callback&state=xyz`
///    answers `302` at once (the demo user is approved automatically) with
///    `Location: http://localhost/brokergateway/saxo/callback?code=<code>&state=xyz`. Do not follow it; read `code`.
/// 2. `POST /token` with `Authorization: Basic base64(SANDBOX-SAXO-APP:SANDBOX-SAXO-SECRET)` (or `client_id` and
///    `client_secret` in the body) and the form body `grant_type=authorization_code&code=<code>&redirect_uri=<the same URI>`
///    answers **201** (as Saxo's logon host does) with
///    `{"access_token":"…","token_type":"Bearer","expires_in":1200,"refresh_token":"…","refresh_token_expires_in":3600,"base_uri":null}`.
/// 3. Before the access token expires, `POST /token` with `grant_type=refresh_token&refresh_token=<refresh_token>`
///    returns a new pair; the old refresh token is spent.
///
/// Or, in one step: `POST /token` with the same Basic credentials and
/// `grant_type=refresh_token&refresh_token=SANDBOX-SAXO-BOOTSTRAP-REFRESH-TOKEN` (a refresh token that is never spent).
/// In process, ``issueTokens()`` returns a pair directly.
///
/// Everything time-dependent (token expiry, rate-limit windows, prices, order expiry) reads `market.clock`;
/// give the market a ``ManualClock`` to expire tokens or cross prices from a test without sleeping.
/// Working orders are matched lazily at the start of every authenticated request.
public final class SaxoSandbox: BrokerSimulator {
    /// The app, client, instruments and limits the simulator was made with.
    public let configuration: SaxoSandboxConfiguration
    /// The shared market every price, chart and fill comes from; its clock is the simulator's clock.
    public let market: MarketEngine
    /// The live fault rules the simulator's middleware applies (see `/_sandbox/faults`).
    public let faults: FaultInjector

    let instruments: SaxoInstruments
    private let state: PersistentState<State, SaxoSandboxState>
    /// The layout of ``SaxoSandboxState`` in the state file.
    static let stateVersion = 1
    /// Whether this sandbox continued from a saved state.
    public let restoredState: Bool

    struct RateWindow {
        var start: Date
        var count: Int
    }

    struct RecentOrderRequest {
        var fingerprint: String
        var requestID: String?
        var at: Date
    }

    /// One simulated client: who it is, its account, and when it last signed in.
    struct ClientState: Sendable, Codable {
        var client: SaxoSandboxClient
        var book: SaxoAccountBook
        var lastLogin: Date
    }

    /// An OAuth app the logon host knows, and the client who signs in through it.
    struct App: Sendable, Codable {
        var secret: String
        var clientKey: String
    }

    private struct State {
        var tokens: SaxoTokenStore
        /// By ClientKey: the configured client and those opened at run time.
        var clients: [String: ClientState]
        /// By app key (`client_id`).
        var apps: [String: App]
        /// Apps opened by ``provisionApp()``: the only ones ``releaseApp(appKey:)`` may forget.
        var provisionedApps: Set<String> = []
        var provisionedCount = 0
        var rateWindows: [String: RateWindow] = [:]
        var recentOrderRequests: [RecentOrderRequest] = []
        /// "session|ContextId|ReferenceId" → subscription.
        var subscriptions: [String: SaxoPriceSubscription] = [:]

        var saved: SaxoSandboxState {
            SaxoSandboxState(
                tokens: tokens,
                clients: clients,
                apps: apps,
                provisionedApps: provisionedApps,
                provisionedCount: provisionedCount
            )
        }
    }

    /// A sandbox that keeps its state in memory: every start is a fresh one.
    public convenience init(
        configuration: SaxoSandboxConfiguration = SaxoSandboxConfiguration(),
        market: MarketEngine = MarketEngine(),
        faults: FaultInjector = FaultInjector()
    ) {
        let instruments = SaxoInstruments(listings: configuration.instruments, market: market)
        self.init(configuration: configuration, market: market, faults: faults, instruments: instruments, file: nil, restored: nil)
    }

    /// A sandbox that keeps its state in `stateDirectory` (`saxo.json`, see ``SaxoSandboxState``): it continues from
    /// the state saved there, or starts fresh when there is none, and saves every change.
    /// - Throws: ``SandboxStateError`` naming the file when it is there but cannot be read.
    public convenience init(
        configuration: SaxoSandboxConfiguration = SaxoSandboxConfiguration(),
        market: MarketEngine = MarketEngine(),
        faults: FaultInjector = FaultInjector(),
        stateDirectory: URL
    ) throws {
        let instruments = SaxoInstruments(listings: configuration.instruments, market: market)
        let file = SandboxStateFile<SaxoSandboxState>(folder: stateDirectory, sandbox: "saxo", version: Self.stateVersion)
        let restored = try file.load(userInfo: [.saxoInstruments: instruments])
        self.init(
            configuration: configuration,
            market: market,
            faults: faults,
            instruments: instruments,
            file: file,
            restored: restored
        )
    }

    private init(
        configuration: SaxoSandboxConfiguration,
        market: MarketEngine,
        faults: FaultInjector,
        instruments: SaxoInstruments,
        file: SandboxStateFile<SaxoSandboxState>?,
        restored: SaxoSandboxState?
    ) {
        self.configuration = configuration
        self.market = market
        self.faults = faults
        self.instruments = instruments
        self.restoredState = restored != nil
        let client = configuration.client
        var initial = State(
            tokens: SaxoTokenStore(configuration: configuration),
            clients: [client.clientKey: ClientState(client: client, book: SaxoAccountBook(cash: client.startingCash), lastLogin: market.now)],
            apps: [configuration.appKey: App(secret: configuration.appSecret, clientKey: client.clientKey)]
        )
        if let restored {
            initial.tokens = restored.tokens
            // The configured app, client and tokens are the configuration's: kept even if the saved state lacks them.
            initial.tokens.adoptConfigured(configuration)
            initial.clients = restored.clients.merging(initial.clients) { saved, _ in saved }
            initial.apps = restored.apps.merging(initial.apps) { _, configured in configured }
            initial.provisionedApps = restored.provisionedApps
            initial.provisionedCount = restored.provisionedCount
        }
        self.state = PersistentState(initial, file: file) { $0.saved }
    }

    /// Writes the state to its folder now (graceful shutdown; tests).
    public func persistState() async throws {
        try await state.flush()
    }

    /// The router serving `/authorize`, `/token`, `/sim/openapi/...`, `/openapi/...` and the `/_sandbox` admin endpoints.
    public func makeRouter() -> Router<SandboxRequestContext> { sandboxRouter(errors: SaxoAPIError.self) }

    /// Adds Saxo's own routes to the kit's router (`BrokerSimulator`).
    public func registerRoutes(on router: Router<SandboxRequestContext>) {
        SaxoLogonRoutes(sandbox: self).register(on: router)
        let routes = SaxoRoutes(sandbox: self)
        for prefix in ["sim/openapi", "openapi"] {
            let group = router.group(RouterPath(prefix)).add(middleware: SaxoGatekeeper(sandbox: self))
            for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete] {
                group.on("**", method: method) { request, context in try await routes.dispatch(request, context) }
            }
        }
    }

    /// Runs the matching "tick" for every client: expires lapsed orders and fills those the market now reaches.
    public func evaluate() {
        let env = environment()
        state.withLock { state in
            for key in state.clients.keys { state.clients[key]?.book.evaluateAll(env: env) }
        }
    }

    /// A fresh token pair for a new session of the configured client, without going through `/authorize` (for
    /// in-process demos and tests).
    public func issueTokens() -> SaxoTokenPair {
        let now = market.now
        let configuration = self.configuration
        let owner = SaxoTokenStore.Owner(clientKey: configuration.client.clientKey, appKey: configuration.appKey)
        let pair = state.withLock { state in
            state.clients[owner.clientKey]?.lastLogin = now
            return state.tokens.startSession(owner: owner, now: now, configuration: configuration)
        }
        return SaxoTokenPair(pair)
    }

    /// A developer token for a new session of the configured client, as Saxo's developer portal hands one out: an
    /// access token alone, good for `lifetime` (24 hours there), with no refresh token. Returns the token and when
    /// it expires (also its JWT's `exp`).
    public func issueDeveloperToken(lifetime: TimeInterval = 86_400) -> (accessToken: String, expiresAt: Date) {
        let now = market.now
        let configuration = self.configuration
        let owner = SaxoTokenStore.Owner(clientKey: configuration.client.clientKey, appKey: configuration.appKey)
        return state.withLock { state in
            state.clients[owner.clientKey]?.lastLogin = now
            return state.tokens.developerToken(owner: owner, now: now, lifetime: lifetime)
        }
    }

    /// Whether a login a gateway stored still works here: its refresh token (when it has one) is unspent, unexpired
    /// and the app's, or else its access token is valid; and the client it signs in is still there.
    public func accepts(appKey: String, refreshToken: String?, accessToken: String?) -> Bool {
        let now = market.now
        return state.read { state in
            if let refreshToken {
                guard let grant = state.tokens.refresh[refreshToken], grant.owner.appKey == appKey else { return false }
                return (grant.expires.map { now < $0 } ?? true) && state.clients[grant.owner.clientKey] != nil
            }
            guard let accessToken, let session = state.tokens.session(forAccessToken: accessToken, now: now),
                let owner = state.tokens.owner(ofSession: session)
            else { return false }
            return owner.appKey == appKey && state.clients[owner.clientKey] != nil
        }
    }

    // MARK: Apps and clients opened at run time

    /// Registers a new app at run time, as a new Saxo developer account gets: its own app key and secret, its own
    /// client (ClientKey, AccountKey and ids of its own) with one account that starts as the configured client's
    /// did (cash, currency, watchlists), and a refresh token that is never spent (like
    /// ``SaxoSandboxConfiguration/bootstrapRefreshToken``): `POST /token` with it and the app's Basic credentials
    /// starts a session of that client. Sessions of one client see nothing of another's account.
    /// - Throws: ``SandboxProvisioningError`` once ``SaxoSandboxConfiguration/maximumProvisionedApps`` are open.
    public func provisionApp() throws -> SaxoSandboxApp {
        let template = configuration.client
        let now = market.now
        let limit = configuration.maximumProvisionedApps
        return try state.withLock { state in
            guard state.provisionedApps.count < limit else { throw SandboxProvisioningError.full("Saxo", limit: limit) }
            var clientId = SandboxSecret.digits(8)
            while state.clients.values.contains(where: { $0.client.clientId == clientId }) { clientId = SandboxSecret.digits(8) }
            // Base64-looking, with `+`, `/` and `=`, as Saxo's keys are (a client that forgets to encode them fails).
            let clientKey = SandboxSecret.mixed(11) + "+" + SandboxSecret.mixed(5) + "/" + SandboxSecret.mixed(5) + "=="
            let client = SaxoSandboxClient(
                clientId: clientId,
                clientKey: clientKey,
                accountId: clientId,
                accountKey: SandboxSecret.mixed(6) + "/" + SandboxSecret.mixed(6) + "+" + SandboxSecret.mixed(8) + "==",
                userId: clientId,
                name: "Sandbox Client \(clientId)",
                currency: template.currency,
                startingCash: template.startingCash,
                createdAt: now,
                watchlists: template.watchlists
            )
            state.provisionedCount += 1
            // Order and position ids of each client in a range of its own, as Saxo's are unique across clients.
            let offset = state.provisionedCount * 100_000
            state.clients[clientKey] = ClientState(
                client: client,
                book: SaxoAccountBook(
                    cash: client.startingCash,
                    firstOrderNumber: 76_300_001 + offset,
                    firstPositionNumber: 212_600_001 + offset
                ),
                lastLogin: now
            )
            let app = SaxoSandboxApp(
                appKey: SandboxSecret.mixed(32).lowercased(),
                appSecret: SandboxSecret.mixed(32).lowercased(),
                refreshToken: RandomID.uuid(),
                clientKey: clientKey,
                accountKey: client.accountKey
            )
            state.apps[app.appKey] = App(secret: app.appSecret, clientKey: clientKey)
            state.provisionedApps.insert(app.appKey)
            state.tokens.addBootstrap(app.refreshToken, owner: SaxoTokenStore.Owner(clientKey: clientKey, appKey: app.appKey))
            return app
        }
    }

    /// Forgets an app ``provisionApp()`` registered, with its client, account, sessions and tokens. The configured
    /// app and client (the demo's) are never forgotten.
    public func releaseApp(appKey: String) {
        state.withLock { state in
            guard state.provisionedApps.remove(appKey) != nil, let app = state.apps.removeValue(forKey: appKey) else { return }
            state.clients[app.clientKey] = nil
            state.tokens.forget(clientKey: app.clientKey)
        }
    }

    // MARK: Internals used by the routes

    func environment() -> SaxoTradingEnvironment {
        SaxoTradingEnvironment(market: market, instruments: instruments, configuration: configuration, now: market.now)
    }

    /// Runs `body` on the client's account book after the lazy tick; 401 when the client is gone.
    func withBook<Result: Sendable>(
        _ clientKey: String,
        _ body: (inout SaxoAccountBook, SaxoTradingEnvironment) throws(SaxoAPIError) -> Result
    ) throws(SaxoAPIError) -> Result {
        let env = environment()
        return try state.withLock { (state) throws(SaxoAPIError) -> Result in
            guard var client = state.clients[clientKey] else { throw SaxoAPIError.unauthorized }
            client.book.evaluateAll(env: env)
            defer { state.clients[clientKey] = client }
            return try body(&client.book, env)
        }
    }

    /// The client a session belongs to, and when it last signed in.
    func client(ofSession session: String) -> (client: SaxoSandboxClient, lastLogin: Date)? {
        state.withLock { state in
            guard let owner = state.tokens.owner(ofSession: session), let client = state.clients[owner.clientKey] else { return nil }
            return (client.client, client.lastLogin)
        }
    }

    /// The app a session signed in through (its app-day budget is counted per app).
    func app(ofSession session: String) -> String? {
        state.withLock { $0.tokens.owner(ofSession: session)?.appKey }
    }

    /// The client who signs in through an app, if the app key and (when given) its secret are right.
    func appOwner(appKey: String, secret: String?) -> SaxoTokenStore.Owner? {
        state.withLock { state in
            guard let app = state.apps[appKey] else { return nil }
            if let secret, !Secret.equals(app.secret, secret) { return nil }
            return SaxoTokenStore.Owner(clientKey: app.clientKey, appKey: appKey)
        }
    }

    func withTokens<Result: Sendable, Failure: Error>(_ body: (inout SaxoTokenStore) throws(Failure) -> Result) throws(Failure) -> Result {
        try state.withLock { (state) throws(Failure) -> Result in try body(&state.tokens) }
    }

    func noteLogin(_ date: Date, clientKey: String) {
        state.withLock { $0.clients[clientKey]?.lastLogin = date }
    }

    /// The session of a bearer token, if it is valid now and its client is still there.
    func session(forBearer token: String) -> String? {
        let now = market.now
        return state.withLock { state in
            guard let session = state.tokens.session(forAccessToken: token, now: now),
                let owner = state.tokens.owner(ofSession: session), state.clients[owner.clientKey] != nil
            else { return nil }
            return session
        }
    }

    /// The outcome of counting one request against a window.
    struct RateCount {
        var allowed: Bool
        var limit: Int
        var remaining: Int
        /// Seconds until the window starts over.
        var reset: Int
    }

    /// Counts one request against the window `key` (`length` seconds long, starting with its first request).
    func count(_ key: String, limit: Int, length: TimeInterval) -> RateCount {
        let now = market.now
        return state.withLock { state in
            var window = state.rateWindows[key] ?? RateWindow(start: now, count: 0)
            if now >= window.start.addingTimeInterval(length) || now < window.start { window = RateWindow(start: now, count: 0) }
            let allowed = window.count < limit
            if allowed { window.count += 1 }
            state.rateWindows[key] = window
            let reset = max(0, Int((window.start.addingTimeInterval(length).timeIntervalSince(now)).rounded(.up)))
            return RateCount(allowed: allowed, limit: limit, remaining: max(0, limit - window.count), reset: reset)
        }
    }

    /// Refuses an order request identical to one accepted within the duplicate window, unless its `X-Request-ID`
    /// differs. Only accepted requests are remembered (see ``rememberOrderRequest(_:requestID:)``).
    func checkDuplicate(_ fingerprint: String, requestID: String?) throws(SaxoAPIError) {
        let window = configuration.duplicateOrderWindow
        guard window > 0 else { return }
        let now = market.now
        let duplicate = state.withLock { state in
            state.recentOrderRequests.removeAll { now.timeIntervalSince($0.at) >= window || $0.at > now }
            return state.recentOrderRequests.contains { $0.fingerprint == fingerprint && $0.requestID == requestID }
        }
        if duplicate { throw SaxoAPIError.duplicateOrder.asOrderError }
    }

    func rememberOrderRequest(_ fingerprint: String, requestID: String?) {
        guard configuration.duplicateOrderWindow > 0 else { return }
        let now = market.now
        state.withLock { $0.recentOrderRequests.append(RecentOrderRequest(fingerprint: fingerprint, requestID: requestID, at: now)) }
    }

    func withSubscriptions<Result: Sendable>(_ body: (inout [String: SaxoPriceSubscription]) -> Result) -> Result {
        state.withLock { body(&$0.subscriptions) }
    }

    /// What an injected error status looks like: Saxo's body, and for 429 the session rate-limit headers.
    public func faultResponse(status: Int) -> Response {
        var headers = HTTPFields()
        headers[SaxoHeader.correlation] = RandomID.hex()
        if status == 429 {
            headers[SaxoHeader.sessionLimit] = String(configuration.sessionRequestsPerMinute)
            headers[SaxoHeader.sessionRemaining] = "0"
            headers[SaxoHeader.sessionReset] = "60"
        }
        return SaxoAPIError.forStatus(status).render(headers: headers)
    }

}

/// A token pair, as `/token` answers it.
public struct SaxoTokenPair: Sendable, Hashable {
    /// The bearer token for the OpenAPI, as `access_token`.
    public var accessToken: String
    /// Seconds.
    public var expiresIn: Int
    /// The token that `POST /token` exchanges for the next pair, spent on use, as `refresh_token`.
    public var refreshToken: String
    /// Seconds.
    public var refreshTokenExpiresIn: Int

    init(_ pair: SaxoTokenStore.TokenPair) {
        self.accessToken = pair.accessToken
        self.expiresIn = pair.expiresIn
        self.refreshToken = pair.refreshToken
        self.refreshTokenExpiresIn = pair.refreshTokenExpiresIn
    }
}

/// An app registered at run time (``SaxoSandbox/provisionApp()``): what a client needs to sign in as its client.
public struct SaxoSandboxApp: Sendable, Hashable {
    /// The app key (OAuth2 `client_id`).
    public var appKey: String
    /// The app secret, sent with the app key as HTTP Basic credentials to `/token`.
    public var appSecret: String
    /// A refresh token that is never spent: `grant_type=refresh_token` with it starts a session of the app's client.
    public var refreshToken: String
    /// The app's client's `ClientKey`.
    public var clientKey: String
    /// The app's client's account's `AccountKey`.
    public var accountKey: String
}
