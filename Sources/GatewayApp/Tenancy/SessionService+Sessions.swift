import Crypto
public import Foundation
public import GatewayCore
import GatewayModel
public import GatewayStore

/// A device as a login names it, checked: every text on one line, within its length.
extension NewDevice {
    func checked() throws -> NewDevice {
        var problems: [FieldProblem] = []
        func text(_ value: String?, _ field: String, required: Bool, max: Int) -> String? {
            guard let value else {
                if required { problems.append(FieldProblem(field: field, problem: "is required")) }
                return nil
            }
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.count > max || trimmed.contains(where: \.isNewline) {
                problems.append(FieldProblem(field: field, problem: "must be 1 to \(max) characters on one line"))
            }
            return trimmed
        }
        let device = NewDevice(
            name: text(name, "device.name", required: true, max: 100) ?? "",
            type: text(type, "device.type", required: true, max: 32) ?? "",
            model: text(model, "device.model", required: false, max: 100),
            os: text(os, "device.os", required: false, max: 100),
            appVersion: text(appVersion, "device.appVersion", required: false, max: 64),
            fingerprint: text(fingerprint, "device.fingerprint", required: false, max: 256)
        )
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        return device
    }
}

/// A login: with the user's email and password, or with a one-time code the tenant's backend minted for them.
public struct LoginRequest: Sendable {
    /// The tenant the user belongs to (`ten_…`): users, their emails and their sessions are each tenant's own.
    public var tenantId: String
    /// The user's email, with `password`; compared lowercased.
    public var email: String?
    /// The user's password, with `email`.
    public var password: String?
    /// A one-time login code (`bgc_…`) instead of email and password.
    public var code: String?
    /// The device the session is opened on: registered (or found again) for the user, within their device limit.
    public var device: NewDevice
    /// The client's network address, which the login's rate and lockout are kept by (`nil` when unknown).
    public var clientAddress: String?

    /// A login by email and password or by code (exactly one of the two, which ``SessionService/login(_:)`` checks).
    public init(
        tenantId: String,
        email: String? = nil,
        password: String? = nil,
        code: String? = nil,
        device: NewDevice,
        clientAddress: String? = nil
    ) {
        self.tenantId = tenantId
        self.email = email
        self.password = password
        self.code = code
        self.device = device
        self.clientAddress = clientAddress
    }
}

/// What a login or a refresh hands the device: a short-lived access token, the session's new refresh token (shown
/// once), the session and its device.
public struct IssuedSession: Sendable {
    /// The access token (a JWS, ES256) every request of the session carries until it expires.
    public var accessToken: String
    /// The refresh token (`bgr_…`), spent by its first use; the store keeps only its hash.
    public var refreshToken: String
    /// Seconds the access token lives.
    public var expiresIn: Int
    /// The session opened or refreshed, with its end.
    public var session: SessionRecord
    /// The device the session is on, as registered.
    public var device: Device
}

/// End users' sessions (seed 003): login, refresh with rotation and reuse detection, logout, and the access tokens
/// every request of a session carries.
extension SessionService {
    static let refreshTokenPrefix = "bgr_"
    static let loginCodePrefix = "bgc_"

    /// The one answer to every failed login, whatever failed, so it tells nobody which emails exist.
    static let invalidLogin = GatewayError(.unauthorized, "the login is not valid (email and password, or code)", retryable: false)

    /// Logs a user in. Before any password is hashed, the login passes its (client address, tenant, email)'s
    /// lockout and its address's and email's rates (``LoginGuard``); the hash then runs in the tenant's share of
    /// the hashing slots (``HashingGate``). Every refusal of these is 429 `rate_limited` with Retry-After, alike
    /// for emails that exist and emails that do not.
    public func login(_ request: LoginRequest) async throws -> IssuedSession {
        let device = try request.device.checked()
        let now = sessions.now()
        let email = request.email.map { $0.lowercased() }
        let tenantId = String(request.tenantId.prefix(64))
        try logins.admit(address: request.clientAddress, tenantId: tenantId, email: email.map { String($0.prefix(320)) }, now: now)
        guard request.tenantId.hasPrefix("ten_"), request.tenantId.count <= 64,
            let tenant = try await store.tenant(id: request.tenantId), tenant.disabledAt == nil
        else {
            // The same work as a real check, so an unknown tenant answers in the same time.
            if let password = request.password {
                try await passwords.verifyNothing(String(password.prefix(PasswordHasher.maximumLength)), tenant: PasswordHasher.unknownTenant)
            }
            if let email { logins.recordFailure(address: request.clientAddress, tenantId: tenantId, email: String(email.prefix(320)), now: now) }
            throw Self.invalidLogin
        }
        let userId: String
        switch (request.email, request.password, request.code) {
        case (let email?, let password?, nil):
            userId = try await passwordLogin(
                tenant: tenant,
                email: String(email.lowercased().prefix(320)),
                password: password,
                address: request.clientAddress,
                now: now
            )
        case (nil, nil, let code?):
            guard code.hasPrefix(Self.loginCodePrefix), code.count <= 128,
                let found = try await store.consumeLoginCode(tenantId: tenant.id, hash: Self.sha256(code), now: now)
            else {
                try await store.recordAudit(
                    AuditRecord(tenantId: tenant.id, actor: "anonymous", action: "login", outcome: .failed, detail: ["method": "code"])
                )
                throw Self.invalidLogin
            }
            userId = found
        default:
            throw GatewayError.unprocessable([FieldProblem(field: "email", problem: "log in with email and password, or with code alone")])
        }
        let registered = try await store.registerDevice(tenantId: tenant.id, userId: userId, device, limit: sessions.maxDevicesPerUser)
        let refresh = Self.newSecret(prefix: Self.refreshTokenPrefix)
        let session = try await store.createSession(
            tenantId: tenant.id,
            userId: userId,
            deviceId: registered.id,
            refreshHash: Self.sha256(refresh),
            expiresAt: now.addingTimeInterval(sessions.sessionLifetime.seconds),
            audit: AuditRecord(
                tenantId: tenant.id,
                actor: userId,
                action: "login",
                detail: ["method": request.code == nil ? "password" : "code", "deviceId": registered.id]
            )
        )
        return try await issue(session: session, device: registered, refreshToken: refresh, tenant: tenant)
    }

    /// The lockout is the login guard's, per (address, tenant, email), not the user's stored one: failures from an
    /// attacker's address never lock the real user out at theirs, and an unknown email locks exactly like a real one.
    private func passwordLogin(tenant: Tenant, email: String, password: String, address: String?, now: Date) async throws -> String {
        guard password.count <= PasswordHasher.maximumLength, let candidate = try await store.loginCandidate(tenantId: tenant.id, email: email) else {
            try await passwords.verifyNothing(String(password.prefix(PasswordHasher.maximumLength)), tenant: tenant.id)
            logins.recordFailure(address: address, tenantId: tenant.id, email: email, now: now)
            try await store.recordAudit(
                AuditRecord(tenantId: tenant.id, actor: "anonymous", action: "login", outcome: .failed, detail: ["method": "password"])
            )
            throw Self.invalidLogin
        }
        let matches =
            if let stored = candidate.passwordHash {
                try await passwords.verify(password, against: stored, tenant: tenant.id)
            } else {
                try await {
                    try await passwords.verifyNothing(password, tenant: tenant.id)
                    return false
                }()
            }
        guard matches else {
            logins.recordFailure(address: address, tenantId: tenant.id, email: email, now: now)
            try await store.recordAudit(
                AuditRecord(
                    tenantId: tenant.id,
                    actor: candidate.user.id,
                    action: "login",
                    target: candidate.user.id,
                    outcome: .failed,
                    detail: ["method": "password"]
                )
            )
            throw Self.invalidLogin
        }
        logins.recordSuccess(address: address, tenantId: tenant.id, email: email)
        return candidate.user.id
    }

    /// Exchanges a refresh token for a new pair. The presented token is spent; presenting it again revokes the
    /// session (every token of it) and is audited, except within the grace window (`SessionSettings.refreshGrace`)
    /// after its rotation while the token it was rotated to is still the session's: then it is two refreshes racing
    /// on one device, and the late one gets the session's current refresh token (and a new access token) too.
    ///
    /// That works without keeping any token: the token a refresh token rotates to is derived from it
    /// (``rotatedRefreshToken(from:)``), so only its holder can compute it again, while the store keeps hashes only.
    public func refresh(token: String) async throws -> IssuedSession {
        guard token.hasPrefix(Self.refreshTokenPrefix), token.count <= 128 else {
            throw GatewayError(.unauthorized, "the refresh token is not valid", retryable: false)
        }
        let fresh = Self.rotatedRefreshToken(from: token)
        let outcome = try await store.rotateRefreshToken(
            presented: Self.sha256(token),
            newHash: Self.sha256(fresh),
            now: sessions.now(),
            grace: sessions.refreshGrace.seconds
        ) { session in
            AuditRecord(
                tenantId: session.tenantId,
                actor: session.userId,
                action: "session.refresh_reuse",
                target: session.id,
                outcome: .failed,
                detail: ["deviceId": session.deviceId]
            )
        }
        switch outcome {
        case .rotated(let session), .replayed(let session):
            guard let tenant = try await store.tenant(id: session.tenantId), tenant.disabledAt == nil,
                let device = try await store.device(tenantId: session.tenantId, userId: session.userId, id: session.deviceId)
            else {
                throw GatewayError(.unauthorized, "the session has ended", retryable: false)
            }
            return try await issue(session: session, device: device, refreshToken: fresh, tenant: tenant)
        case .reused:
            throw GatewayError(
                .unauthorized,
                "this refresh token was already used: the session is revoked for safety; log in again",
                retryable: false
            )
        case .ended:
            throw GatewayError(.unauthorized, "the session has ended; log in again", retryable: false)
        case .unknown:
            throw GatewayError(.unauthorized, "the refresh token is not valid", retryable: false)
        }
    }

    private func issue(session: SessionRecord, device: Device, refreshToken: String, tenant: Tenant) async throws -> IssuedSession {
        let now = sessions.now()
        let lifetime = min(sessions.accessTokenLifetime.seconds, max(1, session.expiresAt.timeIntervalSince(now)))
        let claims = AccessTokenClaims(
            iss: sessions.issuer,
            sub: session.userId,
            tid: tenant.id,
            sid: session.id,
            did: device.id,
            scope: "read trade",
            iat: now,
            exp: now.addingTimeInterval(lifetime)
        )
        let token = try sessionKeys.sign(claims)
        return IssuedSession(accessToken: token, refreshToken: refreshToken, expiresIn: Int(lifetime), session: session, device: device)
    }

    /// The principal of a request with an end user's access token: signed by one of the gateway's keys, not
    /// expired, its session live (not logged out, its device not removed) and its tenant not disabled, read from the
    /// store, or from the cache while the store's change stamp is unchanged (``HotReads``). A session reads and trades for its own user only.
    public func principal(accessToken: String, requiredScope: Scope, actingFor header: String?, deviceHeader: String?) async throws -> Principal {
        let now = sessions.now()
        let claims = try sessionKeys.verify(accessToken, now: now, issuer: sessions.issuer)
        let store = self.store
        guard let session = try await hotReads.read(hotReads.sessions, claims.sid, load: { try await store.session(id: claims.sid) }),
            session.isLive(at: now), session.userId == claims.sub, session.tenantId == claims.tid,
            session.deviceId == claims.did,
            let tenant = try await hotReads.read(hotReads.tenants, claims.tid, load: { try await store.tenant(id: claims.tid) })
        else {
            throw GatewayError(.unauthorized, "the session has ended (logged out, its device removed, or expired)", retryable: false)
        }
        guard tenant.disabledAt == nil else { throw GatewayError(.forbidden, "the tenant is disabled", retryable: false) }
        let scopes: Set<Scope> = [.read, .trade]
        guard scopes.contains(requiredScope) else {
            throw GatewayError(
                .forbidden,
                "an end user's session cannot do this; it needs a tenant API key with the '\(requiredScope.rawValue)' scope",
                retryable: false,
                details: [FieldProblem(field: "scope", problem: "'\(requiredScope.rawValue)' is not a session's")]
            )
        }
        if let header, header != session.userId {
            throw GatewayError(
                .forbidden,
                "a session acts for its own user only",
                retryable: false,
                details: [FieldProblem(field: "X-User-ID", problem: "names another user than the session's")]
            )
        }
        if let deviceHeader, deviceHeader != session.deviceId {
            throw GatewayError(
                .forbidden,
                "the access token belongs to another device",
                retryable: false,
                details: [FieldProblem(field: "X-Device-ID", problem: "is not the device of this session")]
            )
        }
        if deviceSeen.due(session.deviceId, now: now) { try await store.touchDevice(id: session.deviceId, now: now) }
        return Principal(tenant: tenant, userId: session.userId, scopes: scopes, credential: .session(id: session.id, deviceId: session.deviceId))
    }

    // MARK: Logout and the session

    /// The session a request of an end user comes with.
    func currentSession(_ principal: Principal) throws -> (id: String, deviceId: String, userId: String) {
        guard case .session(let id, let deviceId) = principal.credential, let userId = principal.userId else {
            throw GatewayError(.forbidden, "this operation is an end user's session's own: call it with an access token", retryable: false)
        }
        return (id, deviceId, userId)
    }

    /// What a logout ends: this session (`.session`), every session of one device (`.device`, the current one by
    /// default), or every session of the user (`.allDevices`).
    public enum LogoutScope: Sendable {
        case session
        case device(String?)
        case allDevices
    }

    /// Logs out as the session's own user, within the scope, and audits it; how many sessions were revoked. A device
    /// that is not the user's is 404.
    public func logout(_ principal: Principal, _ scope: LogoutScope) async throws -> Int {
        let current = try currentSession(principal)
        let (sessionId, deviceId, reason): (String?, String?, String) =
            switch scope {
            case .session: (current.id, nil, "logout")
            case .device(let device): (nil, device ?? current.deviceId, "device_logout")
            case .allDevices: (nil, nil, "all_devices_logout")
            }
        if let deviceId, try await store.device(tenantId: principal.tenant.id, userId: current.userId, id: deviceId) == nil {
            throw GatewayError(.notFound, "no device '\(deviceId)'")
        }
        return try await store.revokeSessions(
            tenantId: principal.tenant.id,
            userId: current.userId,
            sessionId: sessionId,
            deviceId: deviceId,
            reason: reason,
            audit: AuditRecord(
                tenantId: principal.tenant.id,
                actor: current.userId,
                action: "session.revoked",
                target: sessionId ?? deviceId,
                detail: ["reason": reason]
            )
        )
    }

    /// This session and every live session of the user.
    public func sessionOverview(_ principal: Principal) async throws -> (current: SessionRecord, live: [SessionRecord]) {
        let current = try currentSession(principal)
        guard let session = try await store.session(id: current.id) else { throw GatewayError(.unauthorized, "the session has ended") }
        let live = try await store.liveSessions(tenantId: principal.tenant.id, userId: current.userId, deviceId: nil, now: sessions.now())
        return (session, live)
    }

    /// Moves the session's end to `seconds` from now (by default the most allowed): at most the session lifetime, or
    /// the trusted lifetime on a trusted device.
    public func extendSession(_ principal: Principal, seconds: Int?) async throws -> SessionRecord {
        let current = try currentSession(principal)
        let device = try await store.device(tenantId: principal.tenant.id, userId: current.userId, id: current.deviceId)
        let maximum = (device?.trusted == true ? sessions.trustedSessionLifetime : sessions.sessionLifetime).seconds
        if let seconds, !(60...Int(maximum)).contains(seconds) {
            throw GatewayError.unprocessable([FieldProblem(field: "seconds", problem: "must be from 60 to \(Int(maximum)) on this device")])
        }
        let now = sessions.now()
        guard
            let extended = try await store.extendSession(
                id: current.id,
                expiresAt: now.addingTimeInterval(seconds.map(TimeInterval.init) ?? maximum),
                now: now
            )
        else {
            throw GatewayError(.unauthorized, "the session has ended", retryable: false)
        }
        return extended
    }

    // MARK: Passwords and login codes (a tenant's backend)

    /// Sets a user's password as the request's principal: a password logs in to a session that reads and trades, so
    /// setting one needs both scopes besides `admin`, and a bound key sets its own user's only
    /// (``tenancy.requireAuthority(toLogIn:as:act:)``). Removing one (`nil`) hands nobody anything and needs `admin` only.
    public func setPassword(principal: Principal, userId: String, password: String?) async throws {
        // Another tenant's user is one that does not exist (404), whoever asks.
        guard try await store.user(tenantId: principal.tenant.id, id: userId) != nil else {
            throw GatewayError(.notFound, "no user '\(userId)'")
        }
        if password != nil { try await tenancy.requireAuthority(toLogIn: userId, as: principal, act: "setting a password") }
        try await setPassword(tenant: principal.tenant, actor: principal.actor, userId: userId, password: password)
    }

    /// Sets a user's password (10 to 256 characters), or with `nil` removes it (then only login codes log them in).
    public func setPassword(tenant: Tenant, actor: String, userId: String, password: String?) async throws {
        var hash: String?
        if let password {
            guard (PasswordHasher.minimumLength...PasswordHasher.maximumLength).contains(password.count) else {
                throw GatewayError.unprocessable([
                    FieldProblem(
                        field: "password",
                        problem: "must be \(PasswordHasher.minimumLength) to \(PasswordHasher.maximumLength) characters"
                    )
                ])
            }
            hash = try await passwords.hash(password, tenant: tenant.id)
        }
        guard
            try await store.setPasswordHash(
                tenantId: tenant.id,
                userId: userId,
                hash: hash,
                audit: AuditRecord(
                    tenantId: tenant.id,
                    actor: actor,
                    action: password == nil ? "user.password_removed" : "user.password_set",
                    target: userId
                )
            )
        else {
            throw GatewayError(.notFound, "no user '\(userId)'")
        }
    }

    /// A one-time login code for one of the tenant's users, for the tenant's backend to hand its own authenticated
    /// user (so the app need not share passwords): single use, short-lived, stored as a hash.
    public func mintLoginCode(principal: Principal, userId: String) async throws -> (code: String, expiresAt: Date) {
        guard try await store.user(tenantId: principal.tenant.id, id: userId) != nil else {
            throw GatewayError(.notFound, "no user '\(userId)'")
        }
        // The code logs in to a session that reads and trades: minting it needs both, and a bound key's own user.
        try await tenancy.requireAuthority(toLogIn: userId, as: principal, act: "a login code")
        let code = Self.newSecret(prefix: Self.loginCodePrefix)
        let expiresAt = sessions.now().addingTimeInterval(sessions.loginCodeLifetime.seconds)
        try await store.createLoginCode(
            tenantId: principal.tenant.id,
            userId: userId,
            hash: Self.sha256(code),
            expiresAt: expiresAt,
            audit: AuditRecord(tenantId: principal.tenant.id, actor: principal.actor, action: "user.login_code_issued", target: userId)
        )
        return (code, expiresAt)
    }

    /// The refresh token `token` rotates to: an HMAC of a fixed label keyed by the token itself, so the same token
    /// always rotates to the same successor, which nobody without the token (the store holds hashes only) can compute.
    static func rotatedRefreshToken(from token: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data("brokergateway refresh rotation".utf8), using: SymmetricKey(data: Data(token.utf8)))
        return refreshTokenPrefix + code.map { byte in String(byte, radix: 16).leftPadded(to: 2) }.joined()
    }

    static func newSecret(prefix: String) -> String {
        prefix + RandomIdentifier.hex(byteCount: 32)
    }

    static func sha256(_ text: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(text.utf8)))
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
