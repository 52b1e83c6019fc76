public import Crypto
public import Foundation
import GatewayCore
import Synchronization

/// How end users' sessions work: the keys their access tokens are signed with, how long tokens and sessions live,
/// how many devices a user may have, and the clock (a test moves it past a token's life without waiting).
public struct SessionSettings: Sendable {
    /// The signing keys, oldest first; the last signs, every one verifies. `gateway serve` loads the data folder's
    /// (`SessionKeyFiles`); by default one key that lives in memory only (tests, throwaway gateways).
    public var signingKeys: [(kid: String, key: P256.Signing.PrivateKey)]
    /// How long an access token is accepted after it is issued (never past its session's end): short, because a
    /// request checks only the token's signature and the session it names, so a stolen token lives this long.
    public var accessTokenLifetime: Duration
    /// A session's life from login; a refresh never reaches past it, an extension moves it.
    public var sessionLifetime: Duration
    /// The longest a session of a trusted device may be extended to, from now.
    public var trustedSessionLifetime: Duration
    /// How many devices a user may have registered at once; a login on one more is refused until one is removed.
    public var maxDevicesPerUser: Int
    /// How long a one-time login code minted by a tenant's backend can be used.
    public var loginCodeLifetime: Duration
    /// scrypt's cost as log2(N) (N = 2^15 by default, r = 8, p = 1): about 32 MiB and a tenth of a second a hash.
    public var passwordCost: Int
    /// The access tokens' `iss`: a token of another issuer (another gateway's, sharing keys by mistake) is refused.
    public var issuer: String
    /// Logins' rates, lockout and password-hashing shares (``LoginLimits``).
    public var logins: LoginLimits
    /// How long after a refresh token's rotation presenting it again still answers with the session's current
    /// tokens (two refreshes racing on one device) instead of revoking the session as a stolen copy.
    public var refreshGrace: Duration
    /// The clock tokens and sessions are issued and checked by; a test moves it instead of waiting.
    public var now: @Sendable () -> Date

    /// Settings with the defaults a production gateway uses, apart from the signing keys: by default one key in
    /// memory, which `gateway serve` replaces by the data folder's.
    public init(
        signingKeys: [(kid: String, key: P256.Signing.PrivateKey)] = [("memory", P256.Signing.PrivateKey())],
        accessTokenLifetime: Duration = .seconds(15 * 60),
        sessionLifetime: Duration = .seconds(30 * 86_400),
        trustedSessionLifetime: Duration = .seconds(90 * 86_400),
        maxDevicesPerUser: Int = 10,
        loginCodeLifetime: Duration = .seconds(300),
        passwordCost: Int = 15,
        issuer: String = "brokergateway",
        logins: LoginLimits = LoginLimits(),
        refreshGrace: Duration = .seconds(10),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.signingKeys = signingKeys
        self.accessTokenLifetime = accessTokenLifetime
        self.sessionLifetime = sessionLifetime
        self.trustedSessionLifetime = trustedSessionLifetime
        self.maxDevicesPerUser = maxDevicesPerUser
        self.loginCodeLifetime = loginCodeLifetime
        self.passwordCost = passwordCost
        self.issuer = issuer
        self.logins = logins
        self.refreshGrace = refreshGrace
        self.now = now
    }
}

/// The signing keys, ready for every request: every key verifies (picked by the token's `kid`), the newest signs.
/// Tokens are compact JWS with ES256 (``CompactJWS``).
struct SessionKeyRing: Sendable {
    private let signing: (kid: String, key: P256.Signing.PrivateKey)?
    private let verifying: [String: P256.Signing.PublicKey]

    init(_ keys: [(kid: String, key: P256.Signing.PrivateKey)]) {
        signing = keys.last
        // A kid listed twice verifies with its later key, the one that signs under it.
        verifying = Dictionary(keys.map { ($0.kid, $0.key.publicKey) }, uniquingKeysWith: { _, later in later })
    }

    /// An access token of `claims`, signed by the newest key and naming it as `kid`.
    func sign(_ claims: AccessTokenClaims) throws -> String {
        guard let signing else {
            throw GatewayError(.internalError, "no key to sign session tokens with is configured", retryable: false)
        }
        return try CompactJWS.signES256(payload: claims, kid: signing.kid, key: signing.key)
    }

    /// The claims of an access token signed by one of the keys, unexpired at `now` and of `issuer`. Refusals are
    /// the API's 401s: "not valid" for every token that is not exactly one of ours (whatever is wrong with it, so a
    /// prober learns nothing), "expired" for one of ours past its `exp` (or another issuer's).
    func verify(_ token: String, now: Date, issuer: String) throws(GatewayError) -> AccessTokenClaims {
        let claims: AccessTokenClaims
        do {
            claims = try verifiedClaims(token)
        } catch {
            throw GatewayError(.unauthorized, "the access token is not valid", retryable: false)
        }
        guard claims.exp > now, claims.iss == issuer else {
            throw GatewayError(.unauthorized, "the access token has expired: refresh it", retryable: false)
        }
        return claims
    }

    /// The claims of a token whose form, header and signature check out; its `kid` must name one of the keys.
    func verifiedClaims(_ token: String) throws(CompactJWS.Refusal) -> AccessTokenClaims {
        let parsed = try CompactJWS.parse(token)
        guard let kid = parsed.header.kid, let key = verifying[kid] else { throw .unknownKey(parsed.header.kid) }
        try CompactJWS.verifyES256(parsed, key: key)
        return try CompactJWS.claims(AccessTokenClaims.self, of: parsed)
    }
}

/// The claims of an end user's access token, as JSON: the registered `iss`, `sub`, `iat` and `exp` (NumericDate,
/// RFC 7519 §4.1) and the gateway's own. `exp` is checked by the gateway against its own clock.
struct AccessTokenClaims: Codable, Sendable, Equatable {
    var iss: String
    /// The user.
    var sub: String
    /// The tenant.
    var tid: String
    /// The session.
    var sid: String
    /// The device.
    var did: String
    var scope: String
    var iat: Date
    var exp: Date
}

/// When this process last marked each device seen: a session's requests write `last_seen_at` at most once a minute
/// per device, so reads never queue for the database's write lock.
final class DeviceSeenThrottle: Sendable {
    static let interval: TimeInterval = 60
    private let marked = Mutex<[String: Date]>([:])

    /// Whether the device is due to be marked seen now (and, if so, it counts as marked).
    func due(_ deviceId: String, now: Date) -> Bool {
        marked.withLock { marked in
            if let last = marked[deviceId], now.timeIntervalSince(last) < Self.interval { return false }
            if marked.count > 100_000 { marked.removeAll(keepingCapacity: true) }
            marked[deviceId] = now
            return true
        }
    }
}
