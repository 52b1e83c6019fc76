import Foundation
public import GatewayCore
public import GatewayModel
import Logging

/// TradeIt's EMS JSON API as a `LinkingAdapter`, for one linked broker login.
///
/// Linking is TradeIt's OAuth popup; the long-lived `userId` + `userToken` then open ~30-minute sessions
/// (`user/authenticate`). Sessions are automatic and lazy: opened on first use, shared by every caller, reopened
/// once and transparently when TradeIt answers code 600. A security question moves the connection to
/// `challenge_required` until `answerChallenge`; code 700 moves it to `relink_required`.
public struct TradeItAdapter: LinkingAdapter {
    /// Always `.tradeit`.
    public var kind: BrokerKind { .tradeit }
    /// What TradeIt supports, emulates or refuses (see `TradeItAdapterFactory`).
    public var capabilities: Capabilities { TradeItAdapterFactory.tradeItCapabilities }

    let context: AdapterContext
    let configuration: TradeItConfiguration
    let sessions: TradeItSessionStore

    /// Binds the adapter to one connection with an empty session store; the first call opens a session.
    public init(context: AdapterContext, configuration: TradeItConfiguration) {
        self.context = context
        self.configuration = configuration
        self.sessions = TradeItSessionStore()
    }

    var connectionId: String { context.connection.id }

    // MARK: Linking

    /// Asks TradeIt for its OAuth popup URL: `user/getOAuthLoginPopupUrlForMobile` for a new link, or
    /// `user/getOAuthLoginPopupURLForTokenUpdate` (with the stored `userId` and `userToken`) to relink after code 700. The
    /// broker's login page later redirects to `callbackURL` with an `oAuthVerifier`.
    public func startLink(callbackURL: String, relink: Bool) async throws -> LinkStart {
        let path: String
        var request = TradeItPopupRequest(
            apiKey: configuration.apiKey,
            broker: configuration.brokerShortName,
            interAppAddressCallback: callbackURL
        )
        if relink {
            guard let userId = configuration.userId, let userToken = configuration.userToken else {
                throw GatewayError(.invalidRequest, "TradeIt: a relink needs the connection's userId and userToken", broker: .tradeit)
            }
            request.userId = userId
            request.userToken = userToken
            path = "user/getOAuthLoginPopupURLForTokenUpdate"
        } else {
            path = "user/getOAuthLoginPopupUrlForMobile"
        }
        let response = try await call(TradeItPopupResponse.self, path, request)
        return LinkStart(popupURL: response.oAuthURL)
    }

    /// Exchanges the popup's `oAuthVerifier` for the long-lived `userId` and `userToken` (`user/getOAuthAccessToken`),
    /// returned as the credentials to store.
    public func completeLink(verifier: String) async throws -> BrokerCredentials {
        let response = try await call(
            TradeItAccessTokenResponse.self,
            "user/getOAuthAccessToken",
            TradeItAccessTokenRequest(apiKey: configuration.apiKey, oAuthVerifier: verifier)
        )
        return BrokerCredentials(["apiKey": configuration.apiKey, "userId": response.userId, "userToken": response.userToken])
    }

    /// Opens a new session now (`user/authenticate`), replacing any open one; a security question comes back as
    /// `challengeRequired` and is kept until ``answerChallenge(_:)``.
    public func authenticate() async throws -> AuthenticationOutcome {
        let outcome = try await sessions.obtain(
            force: true,
            maxAge: configuration.sessionMaxAge,
            now: configuration.now,
            authenticate: { try await self.openNewSession() }
        )
        switch outcome {
        case .open: return .authenticated
        case .challenge(_, let challenge): return .challengeRequired(challenge)
        }
    }

    /// Answers the pending security question (`user/answerSecurityQuestion`); a fresh adapter asks TradeIt again first.
    /// TradeIt may answer with another question. `conflict` when no question is pending.
    public func answerChallenge(_ answer: String) async throws -> AuthenticationOutcome {
        var token = await sessions.pendingToken()
        if token == nil {
            // A fresh adapter (the connection changed when the question was saved): ask again, then answer.
            switch try await authenticate() {
            case .authenticated: return .authenticated
            case .challengeRequired: token = await sessions.pendingToken()
            }
        }
        guard let token else { throw GatewayError(.conflict, "TradeIt: no security question is pending", broker: .tradeit) }
        let (envelope, data) = try await exchange(
            "user/answerSecurityQuestion",
            TradeItAnswerRequest(token: token, securityAnswer: answer)
        )
        let outcome = try await sessionOutcome(envelope, data, what: "user/answerSecurityQuestion")
        await sessions.settle(outcome)
        switch outcome {
        case .open: return .authenticated
        case .challenge(_, let challenge): return .challengeRequired(challenge)
        }
    }

    /// A linked connection opens a session (a security question counts as proof); one not linked yet checks only the API
    /// key with `preference/getBrokerList`.
    public func validateCredentials() async throws {
        if configuration.isLinked {
            // A security question proves the link works: the user only has to answer it.
            _ = try await authenticate()
        } else {
            _ = try await call(TradeItBrokerListResponse.self, "preference/getBrokerList", TradeItKeyRequest(apiKey: configuration.apiKey))
        }
    }

    // MARK: Sessions

    /// The open session, opening one if needed. A pending question fails the caller with `forbidden`.
    func openSession(stale: String? = nil) async throws -> TradeItOpenSession {
        let outcome = try await sessions.obtain(
            stale: stale,
            maxAge: configuration.sessionMaxAge,
            now: configuration.now,
            authenticate: { try await self.openNewSession() }
        )
        switch outcome {
        case .open(let session): return session
        case .challenge(_, let challenge):
            throw GatewayError(
                .forbidden,
                "the broker asks a security question before it opens a session: \(challenge.question)",
                broker: .tradeit,
                retryable: false
            )
        }
    }

    /// `user/authenticate`, once: SUCCESS opens, INFORMATION_NEEDED records the question, 700 records relink_required.
    func openNewSession() async throws -> TradeItSessionOutcome {
        guard let userId = configuration.userId, let userToken = configuration.userToken else {
            throw GatewayError(.unauthorized, "TradeIt: the connection is not linked yet (no userId and userToken)", broker: .tradeit)
        }
        let (envelope, data) = try await exchange(
            "user/authenticate",
            TradeItAuthenticateRequest(apiKey: configuration.apiKey, userId: userId, userToken: userToken)
        )
        return try await sessionOutcome(envelope, data, what: "user/authenticate")
    }

    /// Reads an answer of `user/authenticate` or `user/answerSecurityQuestion`, and records the connection status.
    func sessionOutcome(_ envelope: TradeItEnvelope, _ data: Data, what: String) async throws -> TradeItSessionOutcome {
        switch envelope.status {
        case "SUCCESS":
            let response = try decode(TradeItAuthenticateResponse.self, data, what: what)
            guard let token = response.token ?? envelope.token, !token.isEmpty else {
                throw TradeItErrors.malformed("\(what) succeeded without a session token")
            }
            if what == "user/answerSecurityQuestion" { try await context.saveStatus(.active, nil) }
            return .open(TradeItOpenSession(token: token, accounts: response.accounts ?? [], openedAt: configuration.now()))
        case "INFORMATION_NEEDED":
            let response = try decode(TradeItAuthenticateResponse.self, data, what: what)
            guard let token = response.token ?? envelope.token, let question = response.securityQuestion else {
                throw TradeItErrors.malformed("\(what) asked for information without a question or a token")
            }
            // The broker's own text, shown to the user: bounded and without control characters.
            let challenge = Challenge(
                question: BrokerText.sanitized(question),
                options: (response.securityQuestionOptions ?? []).prefix(20).map { BrokerText.sanitized($0, limit: 100) }
            )
            try await context.saveStatus(
                .challengeRequired,
                ["question": challenge.question, "options": challenge.options.joined(separator: "\n")]
            )
            return .challenge(token: token, challenge)
        case "ERROR":
            // 700 (the token is dead) on any call, and 300 ("Could Not Login": the broker refused the login behind
            // the token) when opening a session: the link does not work until the user links again.
            if envelope.code == 700 || (envelope.code == 300 && what == "user/authenticate") { try await markRelinkRequired(envelope) }
            throw tableError(envelope)
        default:
            throw TradeItErrors.malformed("\(what) answered a status the gateway does not know")
        }
    }

    func markRelinkRequired(_ envelope: TradeItEnvelope) async throws {
        let reason = BrokerText.sanitized(
            [envelope.shortMessage, envelope.longMessages?.first].compactMap { $0 }.joined(separator: ": ")
        )
        try await context.saveStatus(.relinkRequired, ["reason": reason.isEmpty ? "TradeIt token invalid or expired" : reason])
    }

    // MARK: Accounts

    /// The linked login as one client, named by its `userId`, with the session's first account as its default.
    public func clients() async throws -> [Client] {
        let session = try await openSession()
        guard let userId = configuration.userId else { return [] }
        return [
            Client(
                id: userId,
                connectionId: connectionId,
                broker: .tradeit,
                name: nil,
                defaultAccountId: session.accounts.first?.accountNumber,
                defaultCurrency: session.accounts.first?.accountBaseCurrency ?? "USD"
            )
        ]
    }

    /// The accounts `user/authenticate` listed for the session.
    public func accounts() async throws -> [Account] {
        try await openSession().accounts.map { Account(tradeIt: $0, connectionId: connectionId) }
    }

    /// The accounts a read covers: all of the session's, or the one asked for (`not_found` when it is not there).
    func accountNumbers(_ accountId: String?) async throws -> [String] {
        let accounts = try await openSession().accounts.map(\.accountNumber)
        guard let accountId else { return accounts }
        guard accounts.contains(accountId) else {
            throw GatewayError(.notFound, "TradeIt: no account \(accountId) in this connection", broker: .tradeit)
        }
        return [accountId]
    }

    /// `balance/getAccountOverview` for each account (or the one asked for), concurrently.
    public func balances(accountId: String?) async throws -> [Balance] {
        let numbers = try await accountNumbers(accountId)
        return try await forEachAccount(numbers) { number in
            let response = try await sessionCall(TradeItAccountOverviewResponse.self, "balance/getAccountOverview") {
                TradeItAccountRequest(token: $0.token, accountNumber: number)
            }
            guard let overview = response.accountOverview else {
                throw TradeItErrors.malformed("balance/getAccountOverview has no accountOverview")
            }
            return [try Balance(tradeIt: overview, connectionId: connectionId, accountId: number)]
        }
    }

    /// Every page of `position/getPositions` for each account (or the one asked for); pages are 0-based, at most
    /// ``TradeItConfiguration/maximumPositionPages``.
    public func positions(accountId: String?) async throws -> [Position] {
        let numbers = try await accountNumbers(accountId)
        return try await forEachAccount(numbers) { number in
            try await positions(account: number)
        }
    }

    /// Page 0 first (pages are 0-based), then the rest concurrently, a few at a time, in page order.
    func positions(account number: String) async throws -> [Position] {
        func page(_ index: Int) async throws -> TradeItPositionsResponse {
            try await sessionCall(TradeItPositionsResponse.self, "position/getPositions") {
                TradeItPositionsRequest(token: $0.token, accountNumber: number, page: index)
            }
        }
        let first = try await page(0)
        let total = min(max(first.totalPages ?? 1, 1), configuration.maximumPositionPages)
        var pages: [Int: [TradeItPosition]] = [0: first.positions ?? []]
        if total > 1 {
            try await withThrowingTaskGroup(of: (Int, [TradeItPosition]).self) { group in
                var next = 1
                func add() {
                    let index = next
                    next += 1
                    group.addTask { (index, try await page(index).positions ?? []) }
                }
                while next < total, next <= configuration.positionPageConcurrency { add() }
                for try await (index, positions) in group {
                    pages[index] = positions
                    if next < total { add() }
                }
            }
        }
        return try (0..<total).flatMap { pages[$0] ?? [] }.map {
            try Position(tradeIt: $0, connectionId: connectionId, accountId: number)
        }
    }

    /// Runs `body` for each account concurrently and joins the results in account order.
    func forEachAccount<T: Sendable>(_ numbers: [String], _ body: @escaping @Sendable (String) async throws -> [T]) async throws -> [T] {
        if numbers.count == 1 { return try await body(numbers[0]) }
        return try await withThrowingTaskGroup(of: (Int, [T]).self) { group in
            for (index, number) in numbers.enumerated() { group.addTask { (index, try await body(number)) } }
            var results: [Int: [T]] = [:]
            for try await (index, items) in group { results[index] = items }
            return numbers.indices.flatMap { results[$0] ?? [] }
        }
    }

    // MARK: Unsupported

    /// Refused: TradeIt has no watchlists; the gateway's own watchlists serve.
    public func watchlists() async throws -> [Watchlist] { throw GatewayError.notSupported("watchlists", broker: .tradeit) }
    /// Refused: TradeIt has no watchlists.
    public func createWatchlist(name: String, instruments: [InstrumentReference]) async throws -> Watchlist {
        throw GatewayError.notSupported("watchlists", broker: .tradeit)
    }
    /// Refused: TradeIt has no watchlists.
    public func updateWatchlist(id: String, name: String?, instruments: [InstrumentReference]?) async throws -> Watchlist {
        throw GatewayError.notSupported("watchlists", broker: .tradeit)
    }
    /// Refused: TradeIt has no watchlists.
    public func deleteWatchlist(id: String) async throws { throw GatewayError.notSupported("watchlists", broker: .tradeit) }
    /// Refused: instrument search is not offered for TradeIt (see the capability notes).
    public func searchInstruments(_ text: String, assetClass: AssetClass?) async throws -> [Instrument] {
        throw GatewayError.notSupported("instrument search", broker: .tradeit)
    }
    /// Refused: TradeIt serves no price history.
    public func candles(_ instrument: InstrumentReference, interval: CandleInterval, count: Int) async throws -> CandleSeries {
        throw GatewayError.notSupported("candles", broker: .tradeit)
    }
    /// Refused: TradeIt serves no order book.
    public func orderBook(_ instrument: InstrumentReference, depth: Int) async throws -> OrderBook {
        throw GatewayError.notSupported("order books", broker: .tradeit)
    }
}
