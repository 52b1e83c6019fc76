public import Crypto
public import Foundation
import JWTKit
import Synchronization

/// How end users' sessions work: the keys their access tokens are signed with, how long tokens and sessions live,
/// how many devices a user may have, and the clock (a test moves it past a token's life without waiting).
public struct SessionSettings: Sendable {
    /// The signing keys, oldest first; the last signs, every one verifies. `gateway serve` loads the data folder's
    /// (`SessionKeyFiles`); by default one key that lives in memory only (tests, throwaway gateways).
    public var signingKeys: [(kid: String, key: P256.Signing.PrivateKey)]
    public var accessTokenLifetime: Duration
    /// A session's life from login; a refresh never reaches past it, an extension moves it.
    public var sessionLifetime: Duration
    /// The longest a session of a trusted device may be extended to, from now.
    public var trustedSessionLifetime: Duration
    public var maxDevicesPerUser: Int
    /// How long a one-time login code minted by a tenant's backend can be used.
    public var loginCodeLifetime: Duration
    /// scrypt's cost as log2(N) (N = 2^15 by default, r = 8, p = 1): about 32 MiB and a tenth of a second a hash.
    public var passwordCost: Int
    public var issuer: String
    /// Logins' rates, lockout and password-hashing shares (``LoginLimits``).
    public var logins: LoginLimits
    /// How long after a refresh token's rotation presenting it again still answers with the session's current
    /// tokens (two refreshes racing on one device) instead of revoking the session as a stolen copy.
    public var refreshGrace: Duration
    public var now: @Sendable () -> Date

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

    var signingKid: String? { signingKeys.last?.kid }
}

/// The signing keys as jwt-kit's collection, built once on first use and shared by every request: every key verifies
/// (by its `kid`), the newest signs.
final class SessionKeyRing: Sendable {
    private let keys: [(kid: String, key: P256.Signing.PrivateKey)]
    private let built = Mutex<JWTKeyCollection?>(nil)

    init(_ keys: [(kid: String, key: P256.Signing.PrivateKey)]) {
        self.keys = keys
    }

    func collection() async throws -> JWTKeyCollection {
        if let ready = built.withLock({ $0 }) { return ready }
        let collection = JWTKeyCollection()
        for (kid, key) in keys {
            await collection.add(ecdsa: try ES256PrivateKey(backing: key), kid: JWKIdentifier(string: kid))
        }
        // Two first requests may both build one; the first stored is the one everyone uses from then on.
        return built.withLock { stored in
            if let stored { return stored }
            stored = collection
            return collection
        }
    }
}

/// The claims of an end user's access token. `exp` is checked by the gateway against its own clock.
struct AccessTokenClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    /// The tenant.
    var tid: String
    /// The session.
    var sid: String
    /// The device.
    var did: String
    var scope: String
    var iat: IssuedAtClaim
    var exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {}
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
