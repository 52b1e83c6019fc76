public import Foundation
public import Hummingbird
public import SandboxKit
import Synchronization

/// A stateful simulator of TradeIt's EMS JSON API (v2, and the v1 paths where they differ), its OAuth login popup, and
/// the QA `Dummy` broker with TradeIt's own personas (see ``TradeItSandboxConfiguration`` and ``TradeItPersona``).
///
/// ```swift
/// let sandbox = TradeItSandbox()
/// try await withSandbox(sandbox) { url in
///     // POST url/api/v2/user/getOAuthLoginPopupUrlForMobile {"apiKey":"SANDBOX-TRADEIT-API-KEY","broker":"Dummy",...}
///     // open oAuthURL (GET /sandbox/login?oAuthTempToken=…); add &autoLogin=dummy to skip the form
/// }
/// ```
///
/// Linking: the popup URL is `GET /sandbox/login?oAuthTempToken=…`, a small HTML form; `POST /sandbox/login` with
/// `oAuthTempToken`, `username`, `password` answers `302` to the callback with `?oAuthVerifier=…` appended (or `&…`).
/// `GET /sandbox/login?oAuthTempToken=…&autoLogin=<persona>` redirects at once (for tests and demos).
///
/// Every API call is a `POST` with a JSON body; business errors are HTTP 200 with `"status":"ERROR"` and TradeIt's code.
/// Session tokens live ``TradeItSandboxConfiguration/sessionLifetime`` on the market engine's clock (refreshed by
/// `user/keepSessionAlive`); an unknown or lapsed token answers code 600. Orders fill through the shared market engine,
/// lazily on each request of the account: market orders at the quote, limits when the touch crosses them.
///
/// Test hooks (also over HTTP, no authentication): `POST /_sandbox/tradeit/link {"username":"dummy"}` →
/// `{"userId","userToken","oAuthVerifier"}`; `POST /_sandbox/tradeit/expireSessions`;
/// `POST /_sandbox/tradeit/expireUserToken {"userId"}`.
public final class TradeItSandbox: BrokerSimulator {
    /// The API keys, personas' starting book and lifetimes the simulator was made with.
    public let configuration: TradeItSandboxConfiguration
    /// The shared market every quote, preview price and fill comes from; its clock is the simulator's clock.
    public let market: MarketEngine
    /// The live fault rules the simulator's middleware applies (see `/_sandbox/faults`).
    public let faults: FaultInjector

    struct User: Sendable, Codable {
        var persona: TradeItPersona
        var userToken: String
        var apiKey: String
        var tokenExpired: Bool
        /// The persona's account for this API key (see ``TradeItSandbox/accountNumber(apiKey:persona:state:)``).
        var accountNumber: String
    }

    struct Session: Sendable, Codable {
        var userId: String
        var expiresAt: Date
        /// Waiting for `user/answerSecurityQuestion`.
        var pendingQuestion: Bool
    }

    struct Popup: Sendable, Codable {
        var apiKey: String
        var callback: String?
        /// For a token update: the user whose token is renewed.
        var relinkUserId: String?
        var expiresAt: Date
    }

    struct Verifier: Sendable, Codable {
        var apiKey: String
        var persona: TradeItPersona
        var relinkUserId: String?
        var expiresAt: Date
    }

    struct State: Sendable, Codable {
        var users: [String: User] = [:]
        var sessions: [String: Session] = [:]
        var popups: [String: Popup] = [:]
        var verifiers: [String: Verifier] = [:]
        var books: [String: TradeItAccountBook] = [:]
        /// API keys issued at run time (``provisionAPIKey()``), each with the tag that keeps its accounts apart.
        var provisionedKeys: [String: String] = [:]
        var counter = 0

        mutating func next() -> Int {
            counter += 1
            return counter
        }
    }

    /// Everything, saved as it is when the sandbox keeps its state in a folder: users with their tokens, sessions,
    /// pending logins, accounts with their orders and holdings, the issued API keys, and the counter every user id,
    /// session, order id and order number is drawn from (so none repeats after a restart).
    let state: PersistentState<State, State>

    /// The layout of ``State`` in the state file.
    static let stateVersion = 1

    /// A sandbox that keeps its state in memory: every start is a fresh one.
    public convenience init(
        configuration: TradeItSandboxConfiguration = TradeItSandboxConfiguration(),
        market: MarketEngine = MarketEngine(),
        faults: FaultInjector = FaultInjector()
    ) {
        self.init(configuration: configuration, market: market, faults: faults, file: nil, restored: nil)
    }

    /// A sandbox that keeps its state in `stateDirectory` (`tradeit.json`): it continues from the state saved there,
    /// or starts fresh when there is none, and saves every change.
    /// - Throws: ``SandboxStateError`` naming the file when it is there but cannot be read.
    public convenience init(
        configuration: TradeItSandboxConfiguration = TradeItSandboxConfiguration(),
        market: MarketEngine = MarketEngine(),
        faults: FaultInjector = FaultInjector(),
        stateDirectory: URL
    ) throws {
        let file = SandboxStateFile<State>(folder: stateDirectory, sandbox: "tradeit", version: Self.stateVersion)
        let restored = try file.load()
        self.init(configuration: configuration, market: market, faults: faults, file: file, restored: restored)
    }

    private init(
        configuration: TradeItSandboxConfiguration,
        market: MarketEngine,
        faults: FaultInjector,
        file: SandboxStateFile<State>?,
        restored: State?
    ) {
        self.configuration = configuration
        self.market = market
        self.faults = faults
        self.restoredState = restored != nil
        var initial: State
        if let restored {
            initial = restored
        } else {
            initial = State()
        }
        // Every persona's account exists (a configuration may have added personas since the state was saved).
        for persona in TradeItPersona.allCases where initial.books[persona.accountNumber] == nil {
            initial.books[persona.accountNumber] = Self.newBook(
                accountNumber: persona.accountNumber,
                persona: persona,
                configuration: configuration,
                market: market
            )
        }
        self.state = PersistentState(initial, file: file) { $0 }
    }

    /// Whether this sandbox continued from a saved state.
    public let restoredState: Bool

    /// Writes the state to its folder now (graceful shutdown; tests).
    public func persistState() async throws {
        try await state.flush()
    }

    /// An account as every persona's starts: the configured cash and holdings.
    static func newBook(
        accountNumber: String,
        persona: TradeItPersona,
        configuration: TradeItSandboxConfiguration,
        market: MarketEngine
    ) -> TradeItAccountBook {
        var book = TradeItAccountBook(
            accountNumber: accountNumber,
            name: "Individual Brokerage (\(persona.rawValue))",
            cash: configuration.startingCash
        )
        for holding in configuration.holdings where holding.quantity > 0 && market.instrument(symbol: holding.symbol) != nil {
            book.holdings[holding.symbol] = TradeItHolding(quantity: holding.quantity, cost: holding.quantity * holding.averagePrice)
        }
        return book
    }

    // MARK: API keys issued at run time

    /// Issues a new API key at run time, as TradeIt issued one per partner app. Users linked through it log in to
    /// the same `Dummy` personas, but their accounts are the key's own (`SANDBOX-DUMMY-1-<tag>`): nothing of another
    /// key's accounts, the configured keys' included, is reachable with it.
    /// - Throws: ``SandboxProvisioningError`` once ``TradeItSandboxConfiguration/maximumProvisionedKeys`` are issued.
    public func provisionAPIKey() throws -> String {
        let key = "SBX-TRADEIT-" + SandboxSecret.upper(24)
        let tag = SandboxSecret.upper(8)
        let limit = configuration.maximumProvisionedKeys
        try state.withLock { state in
            guard state.provisionedKeys.count < limit else { throw SandboxProvisioningError.full("TradeIt", limit: limit) }
            state.provisionedKeys[key] = tag
        }
        return key
    }

    /// Forgets an API key ``provisionAPIKey()`` issued, with its users, sessions, pending logins and accounts. The
    /// configured keys (the demo's) are never forgotten.
    public func releaseAPIKey(_ apiKey: String) {
        state.withLock { state in
            guard let tag = state.provisionedKeys.removeValue(forKey: apiKey) else { return }
            let users = Set(state.users.filter { $0.value.apiKey == apiKey }.keys)
            for user in users { state.users[user] = nil }
            state.sessions = state.sessions.filter { !users.contains($0.value.userId) }
            state.popups = state.popups.filter { $0.value.apiKey != apiKey }
            state.verifiers = state.verifiers.filter { $0.value.apiKey != apiKey }
            for persona in TradeItPersona.allCases { state.books[Self.accountNumber(persona, tag: tag)] = nil }
        }
    }

    /// The persona's account under an API key: the persona's own number for a configured key, one of the key's
    /// own for a key issued at run time.
    static func accountNumber(apiKey: String, persona: TradeItPersona, state: State) -> String {
        guard let tag = state.provisionedKeys[apiKey] else { return persona.accountNumber }
        return accountNumber(persona, tag: tag)
    }

    static func accountNumber(_ persona: TradeItPersona, tag: String) -> String {
        "\(persona.accountNumber)-\(tag)"
    }

    /// The router serving `/api/v2/...`, `/api/v1/...`, the login popup and the `/_sandbox` admin endpoints.
    public func makeRouter() -> Router<SandboxRequestContext> { sandboxRouter(errors: TradeItAPIError.self) }

    /// Adds TradeIt's own routes to the kit's router (`BrokerSimulator`).
    public func registerRoutes(on router: Router<SandboxRequestContext>) {
        TradeItRoutes(sandbox: self).register(on: router)
        TradeItLoginPage(sandbox: self).register(on: router)
    }

    /// What an injected error status looks like: TradeIt's own error body for it (`BrokerSimulator`).
    public func faultResponse(status: Int) -> Response {
        .json(TradeItAPIError.system("Injected fault (HTTP \(status)).").body, status: .init(code: status))
    }

    // MARK: Test hooks

    /// Links `persona` as if its user had logged in on the popup: the user id and token to authenticate with.
    public func link(
        _ persona: TradeItPersona,
        apiKey: String = TradeItSandboxConfiguration.demoAPIKey
    )
        -> (userId: String, userToken: String)
    {
        let (configuration, market) = (self.configuration, self.market)
        return state.withLock { state in
            Self.createUser(persona, apiKey: apiKey, relinkUserId: nil, configuration: configuration, market: market, state: &state)
        }
    }

    /// The account number a user of `apiKey` logged in as `persona` trades in.
    public func accountNumber(apiKey: String, persona: TradeItPersona) -> String {
        state.withLock { Self.accountNumber(apiKey: apiKey, persona: persona, state: $0) }
    }

    /// Whether a linked user a gateway stored (its user id and token under an API key) can still open sessions here:
    /// the user is known, the token is its current one and has not expired.
    public func accepts(apiKey: String, userId: String, userToken: String) -> Bool {
        state.read { state in
            guard let user = state.users[userId] else { return false }
            return user.apiKey == apiKey && Secret.equals(user.userToken, userToken) && !user.tokenExpired
        }
    }

    /// Makes every open session lapse: the next call with any token answers code 600.
    public func expireSessions() {
        state.withLock { $0.sessions.removeAll() }
    }

    /// Makes a user's token invalid: `user/authenticate` answers code 700 until the user relinks.
    public func expireUserToken(userId: String) {
        state.withLock { $0.users[userId]?.tokenExpired = true }
    }

    /// Open sessions right now (for tests).
    public var openSessionCount: Int {
        let now = market.now
        return state.withLock { $0.sessions.values.filter { $0.expiresAt > now && !$0.pendingQuestion }.count }
    }

    // MARK: Internals

    static func createUser(
        _ persona: TradeItPersona,
        apiKey: String,
        relinkUserId: String?,
        configuration: TradeItSandboxConfiguration,
        market: MarketEngine,
        state: inout State
    ) -> (userId: String, userToken: String) {
        let number = state.next()
        let userToken = "SBX-UTOKEN-\(number)-\(RandomID.suffix(8))"
        let account = accountNumber(apiKey: apiKey, persona: persona, state: state)
        if state.books[account] == nil {
            state.books[account] = newBook(accountNumber: account, persona: persona, configuration: configuration, market: market)
        }
        if let relinkUserId, var user = state.users[relinkUserId] {
            // A token update renews the token of the same user id.
            user.userToken = userToken
            user.tokenExpired = persona == .dummyExpired
            user.persona = persona
            user.accountNumber = account
            state.users[relinkUserId] = user
            return (relinkUserId, userToken)
        }
        let userId = "SBX-USER-\(number)"
        state.users[userId] = User(
            persona: persona,
            userToken: userToken,
            apiKey: apiKey,
            tokenExpired: persona == .dummyExpired,
            accountNumber: account
        )
        return (userId, userToken)
    }

    func checkAPIKey(_ apiKey: String?) throws(TradeItAPIError) -> String {
        guard let apiKey, !apiKey.isEmpty else { throw .parameter("apiKey is required.") }
        guard configuration.apiKeys.contains(apiKey) || state.withLock({ $0.provisionedKeys[apiKey] != nil }) else {
            throw .invalidAPIKey
        }
        return apiKey
    }

    /// The session a token names, refreshed; code 600 when it is unknown, lapsed, or still waiting for an answer.
    func session(_ token: String?) throws(TradeItAPIError) -> (userId: String, account: String) {
        guard let token, !token.isEmpty else { throw .parameter("token is required.") }
        let now = market.now
        let lifetime = configuration.sessionLifetime
        let result: Result<(String, String), TradeItAPIError> = state.withLock { state in
            guard let session = state.sessions[token], session.expiresAt > now, !session.pendingQuestion,
                let user = state.users[session.userId]
            else {
                state.sessions[token] = nil
                return .failure(.sessionExpired)
            }
            state.sessions[token]?.expiresAt = now.addingTimeInterval(lifetime)
            return .success((session.userId, user.accountNumber))
        }
        return try result.get()
    }

    /// Runs `body` on an account of the session's user after the lazy tick; code 500 for another account number.
    func withBook<T: Sendable>(
        token: String?,
        accountNumber: String?,
        _ body: (inout TradeItAccountBook) throws -> T
    ) throws -> T {
        let (_, account) = try session(token)
        guard let accountNumber, !accountNumber.isEmpty else { throw TradeItAPIError.parameter("accountNumber is required.") }
        guard accountNumber == account else {
            throw TradeItAPIError.parameter("The account number \(accountNumber) is not an account of this session.")
        }
        let now = market.now
        let result: Result<T, any Error> = state.withLock { state in
            guard var book = state.books[account] else {
                return .failure(TradeItAPIError.system("The account is not available."))
            }
            book.evaluate(market: market, commission: configuration.commission, now: now)
            defer { state.books[account] = book }
            do {
                return .success(try body(&book))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    func nextNumber() -> Int { state.withLock { $0.next() } }

}
