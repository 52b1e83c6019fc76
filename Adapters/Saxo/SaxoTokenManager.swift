import Foundation
import GatewayCore
import GatewayModel
import HTTPTypes
import Logging

/// Holds one connection's Saxo access token and replaces it, once, for every caller that needs it.
///
/// A conversation, hence an actor: many requests ask for a token at once; when it is about to expire (within
/// `refreshMargin`) or Saxo has just answered 401, exactly one of them exchanges the refresh token at
/// `POST {authBaseURL}/token` while the others wait for its result (single flight, without unstructured tasks:
/// waiters park on continuations and the leader resumes them).
///
/// Saxo rotates the refresh token on every exchange, so the new pair (and the access token with its expiry) is
/// persisted through `AdapterContext.saveCredentials` before anyone uses it. A refresh token Saxo rejects (400/401
/// from `/token`) is dead: the connection is marked `relink_required` and every caller gets `unauthorized` without
/// another exchange, until the connection is linked again (which makes a new adapter).
///
/// Cancellation: a caller cancelled before the exchange starts does not start it. A leader cancelled mid-exchange
/// hands the refresh to the next waiter (who retries); if Saxo had already rotated the token, that retry finds the
/// old refresh token spent and the connection needs relinking — the price of not running refreshes in a detached task.
actor SaxoTokenManager {
    private var accessToken: String?
    private var expiresAt: Date?
    private var refreshToken: String?
    /// The connection's credentials as stored, updated with each rotation (unknown keys kept).
    private var stored: BrokerCredentials
    private var dead: GatewayError?
    private var refreshing = false
    private var waiters: [CheckedContinuation<String, any Error>] = []

    let configuration: SaxoConfiguration
    let http: BrokerHTTPClient
    let logger: Logger
    let saveCredentials: @Sendable (BrokerCredentials) async throws -> Void
    let saveStatus: @Sendable (ConnectionStatus, [String: String]?) async throws -> Void

    /// Waiters are told the leader gave up (it was cancelled): one of them leads the next attempt.
    struct LeaderGaveUp: Error {}

    init(configuration: SaxoConfiguration, context: AdapterContext) {
        self.configuration = configuration
        self.accessToken = configuration.credentials.accessToken
        self.expiresAt = configuration.credentials.accessTokenExpiresAt
        self.refreshToken = configuration.credentials.refreshToken
        self.stored = context.credentials
        self.http = SaxoAdapter.http(configuration: configuration, context: context, tokens: nil)
        self.logger = context.logger
        self.saveCredentials = context.saveCredentials
        self.saveStatus = context.saveStatus
    }

    /// A token to send now: the current one while it has more than `refreshMargin` left, else a fresh one.
    func validToken() async throws -> String {
        if let dead { throw dead }
        let now = configuration.now()
        if let token = accessToken {
            guard let expiresAt else { return token }
            if now < expiresAt.addingTimeInterval(-configuration.refreshMargin) { return token }
            // Without a refresh token the current one is used to its last second.
            if refreshToken == nil, now < expiresAt { return token }
        }
        return try await refreshed()
    }

    /// A token to retry with after Saxo answered 401 to `rejected`: the one another caller has refreshed meanwhile,
    /// or a fresh one.
    func token(afterRejecting rejected: String) async throws -> String {
        if let dead { throw dead }
        if let token = accessToken, token != rejected,
            expiresAt.map({ configuration.now() < $0.addingTimeInterval(-configuration.refreshMargin) }) ?? true
        {
            return token
        }
        // The token Saxo refused is no good whatever its expiry says.
        if accessToken == rejected { accessToken = nil }
        return try await refreshed()
    }

    /// Joins the refresh under way, or leads one.
    private func refreshed() async throws -> String {
        while true {
            if let dead { throw dead }
            if refreshing {
                do {
                    return try await withCheckedThrowingContinuation { waiters.append($0) }
                } catch is LeaderGaveUp {
                    try Task.checkCancellation()
                    continue
                }
            }
            return try await lead()
        }
    }

    private func lead() async throws -> String {
        guard let refreshToken else {
            throw await kill(
                reason: "the access token has expired and the connection has no refresh token",
                message: "Saxo's access token has expired and cannot be refreshed: re-authorize the connection"
            )
        }
        try Task.checkCancellation()
        refreshing = true
        let outcome: Result<String, any Error>
        do {
            let token = try await exchange(refreshToken: refreshToken)
            outcome = .success(try await adopt(token, spent: refreshToken))
        } catch {
            outcome = .failure(error)
        }
        refreshing = false
        let parked = waiters
        waiters = []
        switch outcome {
        case .success(let token):
            for waiter in parked { waiter.resume(returning: token) }
            return token
        case .failure(let error):
            let forWaiters: any Error = error is CancellationError ? LeaderGaveUp() : error
            for waiter in parked { waiter.resume(throwing: forWaiters) }
            throw error
        }
    }

    /// Takes a new token pair into use and persists it (the old refresh token is spent from now on).
    private func adopt(_ token: SaxoToken, spent: String) async throws -> String {
        let now = configuration.now()
        accessToken = token.accessToken
        expiresAt = now.addingTimeInterval(max(0, token.expiresIn ?? 1200))
        refreshToken = token.refreshToken ?? spent
        stored["accessToken"] = token.accessToken
        stored["accessTokenExpiresAt"] = expiresAt.map(SaxoTimestamp.format)
        stored["refreshToken"] = refreshToken
        logger.debug("saxo token refreshed", metadata: ["expiresIn": "\(token.expiresIn.map { Int($0) } ?? -1)"])
        do {
            try await saveCredentials(stored)
        } catch {
            // The refresh worked and this process can go on; a restart would find a spent refresh token.
            logger.error(
                "saxo could not persist the rotated refresh token",
                metadata: ["error": "\(type(of: error))"]
            )
        }
        return token.accessToken
    }

    /// `POST {authBaseURL}/token`, form `grant_type=refresh_token&refresh_token=…`, HTTP Basic app credentials.
    private func exchange(refreshToken: String) async throws -> SaxoToken {
        guard let authorization = configuration.basicAuthorization else {
            throw await kill(
                reason: "the connection has no app credentials to refresh its token",
                message: "Saxo's token cannot be refreshed without appKey and appSecret: re-authorize the connection"
            )
        }
        let call = BrokerCall(
            .post,
            url: configuration.authBaseURL + "/token",
            loggedPath: "/token",
            headers: [.authorization: authorization],
            body: BrokerURL.form([("grant_type", "refresh_token"), ("refresh_token", refreshToken)]),
            contentType: BrokerCall.form,
            timeout: configuration.tokenTimeout,
            maxResponseBytes: 256 * 1024
        )
        let response = try await http.exchange(call)
        logger.debug("saxo token exchange", metadata: ["status": "\(response.status)"])
        switch response.status {
        case 200..<300:
            guard let token = try? JSONDecoder().decode(SaxoToken.self, from: response.body), !token.accessToken.isEmpty
            else {
                throw SaxoErrors.malformed("a /token answer that is not a token")
            }
            return token
        case 400, 401:
            let oauthError = (try? JSONDecoder().decode(OAuthError.self, from: response.body))?.error
            throw await kill(
                reason: "Saxo rejected the refresh token (HTTP \(response.status)); the user must authorize the connection again",
                message: "Saxo no longer accepts this connection's refresh token: re-authorize the connection",
                brokerCode: oauthError
            )
        case 403:
            throw GatewayError(
                .forbidden,
                "Saxo refused the token exchange (HTTP 403): the app may be disabled",
                broker: .saxo,
                retryable: false
            )
        case 429:
            var error = GatewayError(.rateLimited, "Saxo's token endpoint is rate limiting (HTTP 429)", broker: .saxo)
            error.retryAfter = SaxoErrors.retryAfter(response)
            throw error
        case 500...599:
            throw GatewayError(
                .upstreamUnavailable,
                "Saxo's token endpoint is unavailable (HTTP \(response.status))",
                broker: .saxo
            )
        default:
            throw GatewayError(
                .upstreamUnavailable,
                "Saxo's token endpoint answered HTTP \(response.status)",
                broker: .saxo
            )
        }
    }

    /// Marks the refresh token dead for good: the connection needs relinking.
    private func kill(reason: String, message: String, brokerCode: String? = nil) async -> GatewayError {
        let error = GatewayError(.unauthorized, message, broker: .saxo, retryable: false, brokerCode: brokerCode)
        dead = error
        accessToken = nil
        logger.warning("saxo connection needs relinking", metadata: ["reason": "\(reason)"])
        do {
            try await saveStatus(.relinkRequired, ["reason": reason])
        } catch {
            logger.error("saxo could not record relink_required", metadata: ["error": "\(type(of: error))"])
        }
        return error
    }

    struct OAuthError: Decodable {
        var error: String?
    }
}
