public import Foundation
import GatewayCore
import GatewayModel
public import GatewayStore
import PostgresNIO

extension PostgresStore {
    static let deviceColumns =
        "id, tenant_id, user_id, name, type, model, os, app_version, fingerprint, trusted, created_at, last_seen_at, "
        + "push_token, push_platform, push_active, push_registered_at, push_deactivated_at, push_deactivated_reason"
    static let sessionColumns =
        "id, tenant_id, user_id, device_id, created_at, refreshed_at, expires_at, revoked_at, revoked_reason"

    // MARK: Passwords and login codes

    /// Implements `SessionStore.setPasswordHash(tenantId:userId:hash:audit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func setPasswordHash(tenantId: String, userId: String, hash: String?, audit: AuditRecord?) async throws -> Bool {
        let now = StoreClock.nowMillis()
        return try await write("setPasswordHash") { db in
            let changed = try await db.count(
                """
                UPDATE users SET password_hash = ?, failed_logins = 0, locked_until = NULL,
                    updated_at = GREATEST(?, updated_at + 1)
                WHERE tenant_id = ? AND id = ? RETURNING id
                """,
                [hash, now, tenantId, userId]
            )
            guard changed > 0 else { return false }
            if let audit { try await Self.insertAudit(db, audit, at: now) }
            return true
        }
    }

    /// Implements `SessionStore.loginCandidate(tenantId:email:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func loginCandidate(tenantId: String, email: String) async throws -> LoginCandidate? {
        try await read("loginCandidate") { db in
            try await db.row(
                """
                SELECT \(Self.userColumns), password_hash, failed_logins, locked_until FROM users
                WHERE tenant_id = ? AND email = ?
                """,
                [tenantId, email]
            ).map { row in
                LoginCandidate(
                    user: try User(row: row),
                    passwordHash: try row.optionalString("password_hash"),
                    failedLogins: try row.int("failed_logins"),
                    lockedUntil: try row.optionalDate("locked_until")
                )
            }
        }
    }

    /// The count is incremented by one statement that returns it, so failures on several instances add up exactly.
    public func recordFailedLogin(
        tenantId: String,
        userId: String,
        threshold: Int,
        base: Double,
        maximum: Double,
        now date: Date,
        audit: AuditRecord?
    ) async throws -> Date? {
        let now = StoreClock.millis(date)
        return try await write("recordFailedLogin") { db in
            let failures =
                try await db.row(
                    "UPDATE users SET failed_logins = failed_logins + 1 WHERE tenant_id = ? AND id = ? RETURNING failed_logins",
                    [tenantId, userId]
                )?.int("failed_logins") ?? 0
            var lockedUntil: Int64?
            if failures >= threshold {
                let seconds = min(maximum, base * pow(2, Double(failures - threshold)))
                lockedUntil = now + Int64(seconds * 1000)
                try await db.execute(
                    "UPDATE users SET locked_until = ? WHERE tenant_id = ? AND id = ?",
                    [lockedUntil, tenantId, userId]
                )
            }
            if let audit { try await Self.insertAudit(db, audit, at: now) }
            return lockedUntil.map(StoreClock.date)
        }
    }

    /// Implements `SessionStore.recordSuccessfulLogin(tenantId:userId:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func recordSuccessfulLogin(tenantId: String, userId: String) async throws {
        try await write("recordSuccessfulLogin") { db in
            try await db.execute(
                "UPDATE users SET failed_logins = 0, locked_until = NULL WHERE tenant_id = ? AND id = ?",
                [tenantId, userId]
            )
        }
    }

    /// Implements `SessionStore.createLoginCode(tenantId:userId:hash:expiresAt:audit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func createLoginCode(
        tenantId: String,
        userId: String,
        hash: [UInt8],
        expiresAt: Date,
        audit: AuditRecord?
    ) async throws {
        let now = StoreClock.nowMillis()
        try await write("createLoginCode") { db in
            try await Self.requireUser(db, tenantId: tenantId, userId)
            try await db.execute("DELETE FROM login_codes WHERE expires_at < ?", [now])
            try await db.execute(
                "INSERT INTO login_codes (hash, tenant_id, user_id, expires_at) VALUES (?, ?, ?, ?)",
                [Data(hash), tenantId, userId, StoreClock.millis(expiresAt)]
            )
            if let audit { try await Self.insertAudit(db, audit, at: now) }
        }
    }

    /// Implements `SessionStore.consumeLoginCode(tenantId:hash:now:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func consumeLoginCode(tenantId: String, hash: [UInt8], now: Date) async throws -> String? {
        let nowMillis = StoreClock.millis(now)
        return try await write("consumeLoginCode") { db in
            try await db.row(
                """
                UPDATE login_codes SET used_at = ?
                WHERE hash = ? AND tenant_id = ? AND used_at IS NULL AND expires_at > ?
                RETURNING user_id
                """,
                [nowMillis, Data(hash), tenantId, nowMillis]
            )?.string("user_id")
        }
    }

    // MARK: Devices

    /// Under the user's row lock, so the device limit and the fingerprint look-up hold across instances.
    public func registerDevice(tenantId: String, userId: String, _ device: NewDevice, limit: Int) async throws -> Device {
        let now = StoreClock.nowMillis()
        let id = StoreIdentifier.make(StoreIdentifier.device)
        return try await write("registerDevice") { db in
            guard
                try await db.row(
                    "SELECT 1 FROM users WHERE tenant_id = ? AND id = ? FOR NO KEY UPDATE",
                    [tenantId, userId]
                ) != nil
            else { throw GatewayError(.notFound, "no user '\(userId)'") }
            if let fingerprint = device.fingerprint,
                let existing = try await db.row(
                    "SELECT id FROM devices WHERE user_id = ? AND fingerprint = ?",
                    [userId, fingerprint]
                )?.string("id")
            {
                try await db.execute(
                    """
                    UPDATE devices SET name = ?, type = ?, model = ?, os = ?, app_version = ?, last_seen_at = ?
                    WHERE id = ?
                    """,
                    [device.name, device.type, device.model, device.os, device.appVersion, now, existing]
                )
                return try await Self.requireDevice(db, tenantId: tenantId, userId: userId, id: existing)
            }
            let count =
                try await db.row(
                    "SELECT COUNT(*) AS count FROM devices WHERE tenant_id = ? AND user_id = ?",
                    [tenantId, userId]
                )?.int("count") ?? 0
            guard count < limit else {
                throw GatewayError(
                    .conflict,
                    "this user already has \(limit) devices, the most allowed: remove one (DELETE /v1/devices/{id}) first",
                    retryable: false,
                    details: [FieldProblem(field: "device", problem: "is over the limit of \(limit) devices")]
                )
            }
            let created = try await Self.creationTime(db, in: "devices", tenantId: tenantId, userId: userId)
            try await db.execute(
                """
                INSERT INTO devices (id, tenant_id, user_id, name, type, model, os, app_version, fingerprint,
                    created_at, last_seen_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    id, tenantId, userId, device.name, device.type, device.model, device.os, device.appVersion,
                    device.fingerprint, created, created,
                ]
            )
            return try await Self.requireDevice(db, tenantId: tenantId, userId: userId, id: id)
        }
    }

    /// Implements `DeviceStore.devices(tenantId:userId:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func devices(tenantId: String, userId: String) async throws -> [Device] {
        try await read("devices") { db in
            try await db.rows(
                "SELECT \(Self.deviceColumns) FROM devices WHERE tenant_id = ? AND user_id = ? ORDER BY created_at, id",
                [tenantId, userId]
            ).map(Device.init(row:))
        }
    }

    /// Implements `DeviceStore.device(tenantId:userId:id:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func device(tenantId: String, userId: String, id: String) async throws -> Device? {
        try await read("device") { db in try await Self.fetchDevice(db, tenantId: tenantId, userId: userId, id: id) }
    }

    /// Implements `DeviceStore.updateDevice(tenantId:userId:id:name:trusted:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func updateDevice(tenantId: String, userId: String, id: String, name: String?, trusted: Bool?) async throws -> Device? {
        try await write("updateDevice") { db in
            try await db.row(
                """
                UPDATE devices SET name = COALESCE(?, name), trusted = COALESCE(?, trusted)
                WHERE tenant_id = ? AND user_id = ? AND id = ? RETURNING \(Self.deviceColumns)
                """,
                [name, trusted, tenantId, userId, id]
            ).map(Device.init(row:))
        }
    }

    /// Implements `DeviceStore.deleteDevice(tenantId:userId:id:audit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func deleteDevice(tenantId: String, userId: String, id: String, audit: AuditRecord?) async throws -> Bool {
        let now = StoreClock.nowMillis()
        return try await write("deleteDevice") { db in
            let changed = try await db.count(
                "DELETE FROM devices WHERE tenant_id = ? AND user_id = ? AND id = ? RETURNING id",
                [tenantId, userId, id]
            )
            guard changed > 0 else { return false }
            if let audit { try await Self.insertAudit(db, audit, at: now) }
            return true
        }
    }

    // MARK: Push tokens

    /// Under the user's row lock, so two devices registering one token at once end with it on one of them.
    public func setPushToken(
        tenantId: String,
        userId: String,
        deviceId: String,
        token: String,
        platform: PushPlatform,
        audit: AuditRecord?
    ) async throws -> Device? {
        let now = StoreClock.nowMillis()
        return try await write("setPushToken") { db in
            guard
                try await db.row(
                    "SELECT 1 FROM users WHERE tenant_id = ? AND id = ? FOR NO KEY UPDATE",
                    [tenantId, userId]
                ) != nil,
                let device = try await Self.fetchDevice(db, tenantId: tenantId, userId: userId, id: deviceId)
            else { return nil }
            if device.holdsActivePushToken(token, platform: platform) { return device }
            // One device per token per user: the app reinstalled, or the token moved to this device.
            try await db.execute(
                """
                UPDATE devices SET push_token = NULL, push_platform = NULL, push_active = NULL, push_registered_at = NULL,
                    push_deactivated_at = NULL, push_deactivated_reason = NULL
                WHERE tenant_id = ? AND user_id = ? AND push_token = ? AND id <> ?
                """,
                [tenantId, userId, token, deviceId]
            )
            let updated = try await db.row(
                """
                UPDATE devices SET push_token = ?, push_platform = ?, push_active = TRUE, push_registered_at = ?,
                    push_deactivated_at = NULL, push_deactivated_reason = NULL
                WHERE tenant_id = ? AND user_id = ? AND id = ? RETURNING \(Self.deviceColumns)
                """,
                [token, platform.rawValue, now, tenantId, userId, deviceId]
            ).map(Device.init(row:))
            if let audit { try await Self.insertAudit(db, audit, at: now) }
            return updated
        }
    }

    /// Implements `DeviceStore.removePushToken(tenantId:userId:deviceId:audit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func removePushToken(tenantId: String, userId: String, deviceId: String, audit: AuditRecord?) async throws -> Bool {
        let now = StoreClock.nowMillis()
        return try await write("removePushToken") { db in
            let changed = try await db.count(
                """
                UPDATE devices SET push_token = NULL, push_platform = NULL, push_active = NULL, push_registered_at = NULL,
                    push_deactivated_at = NULL, push_deactivated_reason = NULL
                WHERE tenant_id = ? AND user_id = ? AND id = ? AND push_token IS NOT NULL RETURNING id
                """,
                [tenantId, userId, deviceId]
            )
            guard changed > 0 else { return false }
            if let audit { try await Self.insertAudit(db, audit, at: now) }
            return true
        }
    }

    /// Implements `DeviceStore.deactivatePushToken(tenantId:userId:deviceId:token:reason:at:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func deactivatePushToken(
        tenantId: String,
        userId: String,
        deviceId: String,
        token: String,
        reason: String,
        at date: Date
    ) async throws -> Bool {
        try await write("deactivatePushToken") { db in
            try await db.count(
                """
                UPDATE devices SET push_active = FALSE, push_deactivated_at = ?, push_deactivated_reason = ?
                WHERE tenant_id = ? AND user_id = ? AND id = ? AND push_token = ? AND push_active RETURNING id
                """,
                [StoreClock.millis(date), reason, tenantId, userId, deviceId, token]
            ) > 0
        }
    }

    static func fetchDevice(_ db: PostgresSQL, tenantId: String, userId: String, id: String) async throws -> Device? {
        try await db.row(
            "SELECT \(deviceColumns) FROM devices WHERE tenant_id = ? AND user_id = ? AND id = ?",
            [tenantId, userId, id]
        ).map(Device.init(row:))
    }

    static func requireDevice(_ db: PostgresSQL, tenantId: String, userId: String, id: String) async throws -> Device {
        guard let device = try await fetchDevice(db, tenantId: tenantId, userId: userId, id: id) else {
            throw GatewayError(.notFound, "no device '\(id)'")
        }
        return device
    }

    // MARK: Sessions

    /// Implements `SessionStore.createSession(tenantId:userId:deviceId:refreshHash:expiresAt:audit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func createSession(
        tenantId: String,
        userId: String,
        deviceId: String,
        refreshHash: [UInt8],
        expiresAt: Date,
        audit: AuditRecord?
    ) async throws -> SessionRecord {
        let now = StoreClock.nowMillis()
        let id = StoreIdentifier.make(StoreIdentifier.session)
        return try await write("createSession") { db in
            guard try await Self.fetchDevice(db, tenantId: tenantId, userId: userId, id: deviceId) != nil else {
                throw GatewayError(.notFound, "no device '\(deviceId)'")
            }
            try await db.execute(
                """
                INSERT INTO sessions (id, tenant_id, user_id, device_id, refresh_hash, created_at, refreshed_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [id, tenantId, userId, deviceId, Data(refreshHash), now, now, StoreClock.millis(expiresAt)]
            )
            try await db.execute("UPDATE devices SET last_seen_at = ? WHERE id = ?", [now, deviceId])
            if let audit { try await Self.insertAudit(db, audit.targeting(id), at: now) }
            return try await Self.requireSession(db, id: id)
        }
    }

    /// Implements `SessionStore.session(id:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func session(id: String) async throws -> SessionRecord? {
        try await read("session") { db in try await Self.fetchSession(db, id: id) }
    }

    /// Implements `SessionStore.liveSessions(tenantId:userId:deviceId:now:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func liveSessions(tenantId: String, userId: String, deviceId: String?, now: Date) async throws -> [SessionRecord] {
        try await read("liveSessions") { db in
            var sql = """
                SELECT \(Self.sessionColumns) FROM sessions
                WHERE tenant_id = ? AND user_id = ? AND revoked_at IS NULL AND expires_at > ?
                """
            var arguments: [any SQLArgument] = [tenantId, userId, StoreClock.millis(now)]
            if let deviceId {
                sql += " AND device_id = ?"
                arguments.append(deviceId)
            }
            return try await db.rows(sql + " ORDER BY created_at, id", arguments).map(SessionRecord.init(row:))
        }
    }

    /// The session is found by its live token's hash with `FOR UPDATE`: of two refreshes with one token on any
    /// instances, the second waits for the first, then finds the token no longer live and spent (reuse), as it
    /// would in SQLite's serial order.
    public func rotateRefreshToken(
        presented: [UInt8],
        newHash: [UInt8],
        now: Date,
        grace: TimeInterval,
        audit: @escaping @Sendable (SessionRecord) -> AuditRecord
    ) async throws -> RefreshOutcome {
        let nowMillis = StoreClock.millis(now)
        return try await write("rotateRefreshToken") { db in
            if let session = try await db.row(
                "SELECT \(Self.sessionColumns) FROM sessions WHERE refresh_hash = ? FOR UPDATE",
                [Data(presented)]
            ).map(SessionRecord.init(row:)) {
                guard session.isLive(at: StoreClock.date(nowMillis)) else { return .ended(session) }
                try await db.execute(
                    "UPDATE sessions SET refresh_hash = ?, refreshed_at = ? WHERE id = ? AND refresh_hash = ?",
                    [Data(newHash), nowMillis, session.id, Data(presented)]
                )
                try await db.execute(
                    "INSERT INTO spent_refresh_tokens (hash, session_id, spent_at) VALUES (?, ?, ?)",
                    [Data(presented), session.id, nowMillis]
                )
                return .rotated(try await Self.requireSession(db, id: session.id))
            }
            guard let spent = try await db.row("SELECT session_id, spent_at FROM spent_refresh_tokens WHERE hash = ?", [Data(presented)])
            else { return .unknown }
            let sessionId = try spent.string("session_id")
            // A second refresh racing the first: within the grace window, while the session's live token is still
            // the one this token was rotated to.
            if grace > 0, nowMillis - (try spent.int64("spent_at")) <= Int64(min(grace, 86_400) * 1000),
                let session = try await db.row(
                    "SELECT \(Self.sessionColumns) FROM sessions WHERE id = ? AND refresh_hash = ?",
                    [sessionId, Data(newHash)]
                ).map(SessionRecord.init(row:)),
                session.isLive(at: StoreClock.date(nowMillis))
            {
                return .replayed(session)
            }
            let newlyRevoked =
                try await db.count(
                    """
                    UPDATE sessions SET revoked_at = ?, revoked_reason = 'refresh_reuse'
                    WHERE id = ? AND revoked_at IS NULL RETURNING id
                    """,
                    [nowMillis, sessionId]
                ) > 0
            let revoked = try await Self.requireSession(db, id: sessionId)
            if newlyRevoked { try await Self.insertAudit(db, audit(revoked), at: nowMillis) }
            return .reused(revoked)
        }
    }

    /// Implements `SessionStore.revokeSessions(tenantId:userId:sessionId:deviceId:reason:audit:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func revokeSessions(
        tenantId: String,
        userId: String,
        sessionId: String?,
        deviceId: String?,
        reason: String,
        audit: AuditRecord?
    ) async throws -> Int {
        let now = StoreClock.nowMillis()
        return try await write("revokeSessions") { db in
            var sql =
                "UPDATE sessions SET revoked_at = ?, revoked_reason = ? WHERE tenant_id = ? AND user_id = ? AND revoked_at IS NULL"
            var arguments: [any SQLArgument] = [now, reason, tenantId, userId]
            if let sessionId {
                sql += " AND id = ?"
                arguments.append(sessionId)
            }
            if let deviceId {
                sql += " AND device_id = ?"
                arguments.append(deviceId)
            }
            let count = try await db.count(sql + " RETURNING id", arguments)
            if count > 0, var audit {
                audit.detail["sessions"] = String(count)
                try await Self.insertAudit(db, audit, at: now)
            }
            return count
        }
    }

    /// Implements `SessionStore.extendSession(id:expiresAt:now:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func extendSession(id: String, expiresAt: Date, now: Date) async throws -> SessionRecord? {
        try await write("extendSession") { db in
            try await db.row(
                """
                UPDATE sessions SET expires_at = GREATEST(expires_at, ?)
                WHERE id = ? AND revoked_at IS NULL AND expires_at > ? RETURNING \(Self.sessionColumns)
                """,
                [StoreClock.millis(expiresAt), id, StoreClock.millis(now)]
            ).map(SessionRecord.init(row:))
        }
    }

    /// Implements `DeviceStore.touchDevice(id:now:)` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func touchDevice(id: String, now: Date) async throws {
        let nowMillis = StoreClock.millis(now)
        try await write("touchDevice") { db in
            try await db.execute(
                "UPDATE devices SET last_seen_at = ? WHERE id = ? AND last_seen_at < ?",
                [nowMillis, id, nowMillis - 60_000]
            )
        }
    }

    static func requireSession(_ db: PostgresSQL, id: String) async throws -> SessionRecord {
        guard let session = try await fetchSession(db, id: id) else { throw GatewayError(.notFound, "no session '\(id)'") }
        return session
    }

    static func fetchSession(_ db: PostgresSQL, id: String) async throws -> SessionRecord? {
        try await db.row("SELECT \(sessionColumns) FROM sessions WHERE id = ?", [id]).map(SessionRecord.init(row:))
    }
}
