import Foundation
public import Hummingbird
import Synchronization
public import SandboxKit

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
    public let configuration: TradeItSandboxConfiguration
    public let market: MarketEngine
    public let faults: FaultInjector

    struct User: Sendable {
        var persona: TradeItPersona
        var userToken: String
        var apiKey: String
        var tokenExpired: Bool
    }

    struct Session: Sendable {
        var userId: String
        var expiresAt: Date
        /// Waiting for `user/answerSecurityQuestion`.
        var pendingQuestion: Bool
    }

    struct Popup: Sendable {
        var apiKey: String
        var callback: String?
        /// For a token update: the user whose token is renewed.
        var relinkUserId: String?
        var expiresAt: Date
    }

    struct Verifier: Sendable {
        var apiKey: String
        var persona: TradeItPersona
        var relinkUserId: String?
        var expiresAt: Date
    }

    struct State: Sendable {
        var users: [String: User] = [:]
        var sessions: [String: Session] = [:]
        var popups: [String: Popup] = [:]
        var verifiers: [String: Verifier] = [:]
        var books: [String: TradeItAccountBook] = [:]
        var counter = 0

        mutating func next() -> Int {
            counter += 1
            return counter
        }
    }

    let state: Mutex<State>

    public init(
        configuration: TradeItSandboxConfiguration = TradeItSandboxConfiguration(),
        market: MarketEngine = MarketEngine(),
        faults: FaultInjector = FaultInjector()
    ) {
        self.configuration = configuration
        self.market = market
        self.faults = faults
        var books: [String: TradeItAccountBook] = [:]
        for persona in TradeItPersona.allCases {
            var book = TradeItAccountBook(
                accountNumber: persona.accountNumber, name: "Individual Brokerage (\(persona.rawValue))",
                cash: configuration.startingCash)
            for holding in configuration.holdings where holding.quantity > 0 && market.instrument(symbol: holding.symbol) != nil {
                book.holdings[holding.symbol] = TradeItHolding(
                    quantity: holding.quantity, cost: holding.quantity * holding.averagePrice)
            }
            books[persona.accountNumber] = book
        }
        self.state = Mutex(State(books: books))
    }

    /// The router serving `/api/v2/...`, `/api/v1/...`, the login popup and the `/_sandbox` admin endpoints.
    public func makeRouter() -> Router<SandboxRequestContext> { sandboxRouter(errors: TradeItAPIError.self) }

    package func registerRoutes(on router: Router<SandboxRequestContext>) {
        TradeItRoutes(sandbox: self).register(on: router)
        TradeItLoginPage(sandbox: self).register(on: router)
    }

    package func faultResponse(status: Int) -> Response {
        .json(TradeItAPIError.system("Injected fault (HTTP \(status)).").body, status: .init(code: status))
    }

    // MARK: Test hooks

    /// Links `persona` as if its user had logged in on the popup: the user id and token to authenticate with.
    public func link(_ persona: TradeItPersona, apiKey: String = TradeItSandboxConfiguration.demoAPIKey)
        -> (userId: String, userToken: String)
    {
        state.withLock { state in Self.createUser(persona, apiKey: apiKey, relinkUserId: nil, state: &state) }
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

    static func createUser(_ persona: TradeItPersona, apiKey: String, relinkUserId: String?, state: inout State)
        -> (userId: String, userToken: String)
    {
        let number = state.next()
        let userToken = "SBX-UTOKEN-\(number)-\(RandomID.suffix(8))"
        if let relinkUserId, var user = state.users[relinkUserId] {
            // A token update renews the token of the same user id.
            user.userToken = userToken
            user.tokenExpired = persona == .dummyExpired
            user.persona = persona
            state.users[relinkUserId] = user
            return (relinkUserId, userToken)
        }
        let userId = "SBX-USER-\(number)"
        state.users[userId] = User(persona: persona, userToken: userToken, apiKey: apiKey, tokenExpired: persona == .dummyExpired)
        return (userId, userToken)
    }

    func checkAPIKey(_ apiKey: String?) throws(TradeItAPIError) -> String {
        guard let apiKey, !apiKey.isEmpty else { throw .parameter("apiKey is required.") }
        guard configuration.apiKeys.contains(apiKey) else { throw .invalidAPIKey }
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
            return .success((session.userId, user.persona.accountNumber))
        }
        return try result.get()
    }

    /// Runs `body` on an account of the session's user after the lazy tick; code 500 for another account number.
    func withBook<T: Sendable>(
        token: String?, accountNumber: String?, _ body: (inout TradeItAccountBook) throws -> T
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
