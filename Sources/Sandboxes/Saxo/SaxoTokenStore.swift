import Crypto
import Foundation
import SandboxKit

/// Saxo's logon state: authorization codes, access tokens and refresh tokens, all timed by the sandbox clock.
///
/// A "session" is what one sign-in starts: the code exchange opens it and every refresh continues it, so rate
/// limits (counted per session) survive a refresh, as Saxo's do. Refresh tokens rotate: using one spends it.
/// Every session belongs to one client (whose accounts it reaches) signed in through one app; a code or refresh
/// token is honoured only for the app it was issued to.
struct SaxoTokenStore: Sendable, Codable {
    /// Whose a session is: the client signed in, and the app it signed in through.
    struct Owner: Sendable, Hashable, Codable {
        var clientKey: String
        var appKey: String
    }

    struct PendingCode: Sendable, Codable {
        var redirectURI: String
        var issued: Date
        var expires: Date
        var codeChallenge: String?
        var codeChallengeMethod: String?
        var owner: Owner
    }

    struct AccessGrant: Sendable, Codable {
        var session: String
        /// nil: never expires (static tokens).
        var expires: Date?
    }

    struct RefreshGrant: Sendable, Codable {
        var session: String
        /// nil: never expires (a bootstrap token).
        var expires: Date?
        /// A bootstrap token is reusable (each use starts a new session); every other refresh token is spent by its
        /// first use.
        var reusable: Bool
        var owner: Owner
    }

    /// What `/token` answers.
    struct TokenPair: Sendable {
        var accessToken: String
        var expiresIn: Int
        var refreshToken: String
        var refreshTokenExpiresIn: Int
    }

    /// An OAuth2 error from `/token` (RFC 6749 §5.2).
    struct OAuthError: Error, Sendable {
        var status: Int
        var error: String
        var description: String
    }

    private(set) var codes: [String: PendingCode] = [:]
    private(set) var access: [String: AccessGrant] = [:]
    private(set) var refresh: [String: RefreshGrant] = [:]
    private(set) var sessions: [String: Owner] = [:]
    private var sessionCounter = 0
    /// Key bytes (SymmetricKey is not Sendable).
    private let signingKey: [UInt8]
    private var issuedSincePurge = 0

    init(configuration: SaxoSandboxConfiguration) {
        signingKey = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        adoptConfigured(configuration)
    }

    /// Makes the configuration's static access tokens and bootstrap refresh token valid in a store read back from a
    /// saved state (a configuration may name tokens the saved state did not have).
    mutating func adoptConfigured(_ configuration: SaxoSandboxConfiguration) {
        let demo = Owner(clientKey: configuration.client.clientKey, appKey: configuration.appKey)
        for token in configuration.staticAccessTokens {
            access[token] = AccessGrant(session: "static:" + token, expires: nil)
            sessions["static:" + token] = demo
        }
        if let token = configuration.bootstrapRefreshToken {
            refresh[token] = RefreshGrant(session: "", expires: nil, reusable: true, owner: demo)
        }
    }

    /// A reusable refresh token for an app opened at run time: each use starts a session of its client.
    mutating func addBootstrap(_ token: String, owner: Owner) {
        refresh[token] = RefreshGrant(session: "", expires: nil, reusable: true, owner: owner)
    }

    /// Forgets every code, session and token of a client (its app was released).
    mutating func forget(clientKey: String) {
        codes = codes.filter { $0.value.owner.clientKey != clientKey }
        refresh = refresh.filter { $0.value.owner.clientKey != clientKey }
        let gone = Set(sessions.filter { $0.value.clientKey == clientKey }.keys)
        access = access.filter { !gone.contains($0.value.session) }
        for session in gone { sessions[session] = nil }
    }

    /// The client and app a session belongs to.
    func owner(ofSession session: String) -> Owner? {
        sessions[session]
    }

    // MARK: Authorization codes

    mutating func issueCode(
        redirectURI: String,
        challenge: String?,
        method: String?,
        owner: Owner,
        now: Date,
        lifetime: TimeInterval
    ) -> String {
        purgeIfNeeded(now: now)
        let code = RandomID.uuid()
        codes[code] = PendingCode(
            redirectURI: redirectURI,
            issued: now,
            expires: now.addingTimeInterval(lifetime),
            codeChallenge: challenge,
            codeChallengeMethod: method,
            owner: owner
        )
        return code
    }

    /// Exchanges a code (single use) for a new session's token pair.
    /// - Parameter verifier: the PKCE `code_verifier`, when the client authenticated that way.
    /// - Parameter appKey: the app (`client_id`) asking; a code issued to another app is `invalid_grant`.
    mutating func exchange(
        code: String,
        appKey: String,
        redirectURI: String?,
        verifier: String?,
        clientAuthenticated: Bool,
        now: Date,
        configuration: SaxoSandboxConfiguration
    ) throws(OAuthError) -> TokenPair {
        // A code is spent by any attempt, as OAuth2 servers do, so a leaked code cannot be retried.
        guard let pending = codes.removeValue(forKey: code), pending.owner.appKey == appKey else {
            throw OAuthError(status: 400, error: "invalid_grant", description: "The authorization code is invalid or has already been used.")
        }
        guard now < pending.expires else {
            throw OAuthError(status: 400, error: "invalid_grant", description: "The authorization code has expired.")
        }
        if let redirectURI, redirectURI != pending.redirectURI {
            throw OAuthError(status: 400, error: "invalid_grant", description: "redirect_uri does not match the one used to obtain the code.")
        }
        if let challenge = pending.codeChallenge {
            guard let verifier else {
                throw OAuthError(status: 400, error: "invalid_grant", description: "code_verifier is required.")
            }
            let computed: String =
                pending.codeChallengeMethod == "plain" ? verifier : Self.base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))
            guard computed == challenge else {
                throw OAuthError(status: 400, error: "invalid_grant", description: "code_verifier does not match the code_challenge.")
            }
        } else if !clientAuthenticated {
            throw OAuthError(status: 401, error: "invalid_client", description: "Client authentication failed.")
        }
        // Saxo counts the token's lifetime from the sign-in, so a code exchanged late yields a smaller (even negative)
        // `expires_in`, as Saxo's own samples warn.
        return startSession(owner: pending.owner, now: now, issuedAt: pending.issued, configuration: configuration)
    }

    // MARK: Refresh

    /// - Parameter appKey: the app (`client_id`) asking; a token issued to another app is `invalid_grant`.
    mutating func refresh(token: String, appKey: String, now: Date, configuration: SaxoSandboxConfiguration) throws(OAuthError) -> TokenPair {
        guard let grant = refresh[token], grant.owner.appKey == appKey else {
            throw OAuthError(status: 400, error: "invalid_grant", description: "The refresh token is invalid or has already been used.")
        }
        if let expires = grant.expires, now >= expires {
            refresh.removeValue(forKey: token)
            throw OAuthError(status: 400, error: "invalid_grant", description: "The refresh token has expired.")
        }
        if grant.reusable {
            return startSession(owner: grant.owner, now: now, configuration: configuration)
        }
        refresh.removeValue(forKey: token)
        return issuePair(session: grant.session, now: now, configuration: configuration)
    }

    // MARK: Access

    /// The session an access token belongs to, if the token is known and unexpired.
    func session(forAccessToken token: String, now: Date) -> String? {
        guard let grant = access[token] else { return nil }
        if let expires = grant.expires, now >= expires { return nil }
        return grant.session
    }

    /// Issues a pair for a new session without any OAuth exchange (tests and in-process bootstraps).
    mutating func startSession(owner: Owner, now: Date, issuedAt: Date? = nil, configuration: SaxoSandboxConfiguration) -> TokenPair {
        sessionCounter += 1
        let session = "session-\(sessionCounter)"
        sessions[session] = owner
        return issuePair(session: session, now: now, issuedAt: issuedAt ?? now, configuration: configuration)
    }

    /// An access token alone for a new session (a developer-portal token): no refresh token goes with it.
    mutating func developerToken(owner: Owner, now: Date, lifetime: TimeInterval) -> (accessToken: String, expiresAt: Date) {
        purgeIfNeeded(now: now)
        sessionCounter += 1
        let session = "session-\(sessionCounter)"
        sessions[session] = owner
        // Whole seconds, as the token's `exp` says.
        let expires = Date(timeIntervalSince1970: now.addingTimeInterval(lifetime).timeIntervalSince1970.rounded(.down))
        let token = makeJWT(session: session, clientKey: owner.clientKey, issued: now, expires: expires)
        access[token] = AccessGrant(session: session, expires: expires)
        return (token, expires)
    }

    private mutating func issuePair(session: String, now: Date, issuedAt: Date? = nil, configuration: SaxoSandboxConfiguration) -> TokenPair {
        purgeIfNeeded(now: now)
        let issued = issuedAt ?? now
        let accessExpiry = issued.addingTimeInterval(configuration.accessTokenLifetime)
        let refreshExpiry = issued.addingTimeInterval(configuration.refreshTokenLifetime)
        let owner = sessions[session] ?? Owner(clientKey: configuration.client.clientKey, appKey: configuration.appKey)
        let accessToken = makeJWT(session: session, clientKey: owner.clientKey, issued: issued, expires: accessExpiry)
        let refreshToken = RandomID.uuid()
        access[accessToken] = AccessGrant(session: session, expires: accessExpiry)
        refresh[refreshToken] = RefreshGrant(session: session, expires: refreshExpiry, reusable: false, owner: owner)
        return TokenPair(
            accessToken: accessToken,
            expiresIn: Int(accessExpiry.timeIntervalSince(now).rounded()),
            refreshToken: refreshToken,
            refreshTokenExpiresIn: Int(refreshExpiry.timeIntervalSince(now).rounded())
        )
    }

    /// Saxo's access tokens are JWTs; clients read `exp` from them, the UserKey from `uid` and the ClientKey from `cid`
    /// (SaxoBank/openapi-samples-php reads `uid` to call `port/v1/users/{UserKey}`). Signed with a per-sandbox key.
    private func makeJWT(session: String, clientKey: String, issued issuedDate: Date, expires: Date) -> String {
        let issued = Int64(issuedDate.timeIntervalSince1970.rounded(.down))
        let header: JSON = ["alg": "HS256", "typ": "JWT", "x5t": "sandbox"]
        let payload: JSON = [
            "oaa": "77770",
            "iss": "oa",
            "aid": "109",
            "uid": .string(clientKey),
            "cid": .string(clientKey),
            "isa": "False",
            "tid": "2002",
            "sid": .string(session),
            "dgi": "84",
            "exp": .int64(Int64(expires.timeIntervalSince1970.rounded(.down))),
            "oal": "1F",
            "iid": .string(RandomID.uuid()),
            "nbf": .int64(issued),
        ]
        let signingInput = Self.base64URL(Data(header.serialized.utf8)) + "." + Self.base64URL(Data(payload.serialized.utf8))
        let signature = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: SymmetricKey(data: signingKey))
        return signingInput + "." + Self.base64URL(Data(signature))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Drops expired grants now and then, so a long-running demo does not grow without bound.
    private mutating func purgeIfNeeded(now: Date) {
        issuedSincePurge += 1
        guard issuedSincePurge >= 256 else { return }
        issuedSincePurge = 0
        codes = codes.filter { now < $0.value.expires }
        access = access.filter { $0.value.expires.map { now < $0 } ?? true }
        refresh = refresh.filter { $0.value.expires.map { now < $0 } ?? true }
        let live = Set(access.values.map(\.session)).union(refresh.values.map(\.session))
        sessions = sessions.filter { live.contains($0.key) }
    }
}
