public import Foundation
import GRDB
import GatewayCore
import GatewayModel
public import GatewayStore

extension SQLiteStore {
    static let deviceColumns =
        "id, tenant_id, user_id, name, type, model, os, app_version, fingerprint, trusted, created_at, last_seen_at, "
        + "push_token, push_platform, push_active, push_registered_at, push_deactivated_at, push_deactivated_reason"
    static let sessionColumns =
        "id, tenant_id, user_id, device_id, created_at, refreshed_at, expires_at, revoked_at, revoked_reason"

    // MARK: Passwords and login codes

    /// Implements `SessionStore.setPasswordHash(tenantId:userId:hash:audit:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func setPasswordHash(tenantId: String, userId: String, hash: String?, audit: AuditRecord?) async throws -> Bool {
        let now = StoreClock.nowMillis()
        return try await write("setPasswordHash") { db in
            try db.execute(
                sql: """
                    UPDATE users SET password_hash = ?, failed_logins = 0, locked_until = NULL,
                        updated_at = MAX(?, updated_at + 1)
                    WHERE tenant_id = ? AND id = ?
                    """,
                arguments: [hash, now, tenantId, userId]
            )
            guard db.changesCount > 0 else { return false }
            if let audit { try Self.insertAudit(db, audit, at: now) }
            return true
        }
    }

    /// Implements `SessionStore.loginCandidate(tenantId:email:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func loginCandidate(tenantId: String, email: String) async throws -> LoginCandidate? {
        try await read("loginCandidate") { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT \(Self.userColumns), password_hash, failed_logins, locked_until FROM users
                    WHERE tenant_id = ? AND email = ?
                    """,
                arguments: [tenantId, email]
            ).map { row in
                LoginCandidate(
                    user: try User(row: row),
                    passwordHash: try row.decode(String?.self, forColumn: "password_hash"),
                    failedLogins: try row.decode(forColumn: "failed_logins"),
                    lockedUntil: try row.decode(Int64?.self, forColumn: "locked_until").map(StoreClock.date)
                )
            }
        }
    }

    /// One more failed login in a row: from the `threshold`th on, the user is locked for `base` seconds, doubling with
    /// each further failure up to `maximum`. The lock, if any, is returned. `audit` is written with it.
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
            try db.execute(
                sql: "UPDATE users SET failed_logins = failed_logins + 1 WHERE tenant_id = ? AND id = ?",
                arguments: [tenantId, userId]
            )
            let failures =
                try Int.fetchOne(
                    db,
                    sql: "SELECT failed_logins FROM users WHERE tenant_id = ? AND id = ?",
                    arguments: [tenantId, userId]
                ) ?? 0
            var lockedUntil: Int64?
            if failures >= threshold {
                let seconds = min(maximum, base * pow(2, Double(failures - threshold)))
                lockedUntil = now + Int64(seconds * 1000)
                try db.execute(
                    sql: "UPDATE users SET locked_until = ? WHERE tenant_id = ? AND id = ?",
                    arguments: [lockedUntil, tenantId, userId]
                )
            }
            if let audit { try Self.insertAudit(db, audit, at: now) }
            return lockedUntil.map(StoreClock.date)
        }
    }

    /// Implements `SessionStore.recordSuccessfulLogin(tenantId:userId:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func recordSuccessfulLogin(tenantId: String, userId: String) async throws {
        try await write("recordSuccessfulLogin") { db in
            try db.execute(
                sql: "UPDATE users SET failed_logins = 0, locked_until = NULL WHERE tenant_id = ? AND id = ?",
                arguments: [tenantId, userId]
            )
        }
    }

    /// Implements `SessionStore.createLoginCode(tenantId:userId:hash:expiresAt:audit:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func createLoginCode(tenantId: String, userId: String, hash: [UInt8], expiresAt: Date, audit: AuditRecord?) async throws {
        let now = StoreClock.nowMillis()
        try await write("createLoginCode") { db in
            try Self.requireUser(db, tenantId: tenantId, userId)
            try db.execute(sql: "DELETE FROM login_codes WHERE expires_at < ?", arguments: [now])
            try db.execute(
                sql: "INSERT INTO login_codes (hash, tenant_id, user_id, expires_at) VALUES (?, ?, ?, ?)",
                arguments: [Data(hash), tenantId, userId, StoreClock.millis(expiresAt)]
            )
            if let audit { try Self.insertAudit(db, audit, at: now) }
        }
    }

    /// Spends a live code of the tenant in one update: of any number of concurrent callers, one gets its user.
    public func consumeLoginCode(tenantId: String, hash: [UInt8], now: Date) async throws -> String? {
        let nowMillis = StoreClock.millis(now)
        return try await write("consumeLoginCode") { db in
            try String.fetchOne(
                db,
                sql: """
                    UPDATE login_codes SET used_at = ?
                    WHERE hash = ? AND tenant_id = ? AND used_at IS NULL AND expires_at > ?
                    RETURNING user_id
                    """,
                arguments: [nowMillis, Data(hash), tenantId, nowMillis]
            )
        }
    }

    // MARK: Devices

    /// Registers a device for a user, or, with a fingerprint the user already has, returns that device (seen now,
    /// its details updated).
    /// - Throws: `GatewayError(.conflict)` when the user already has `limit` devices.
    public func registerDevice(tenantId: String, userId: String, _ device: NewDevice, limit: Int) async throws -> Device {
        let now = StoreClock.nowMillis()
        let id = StoreIdentifier.make(StoreIdentifier.device)
        return try await write("registerDevice") { db in
            try Self.requireUser(db, tenantId: tenantId, userId)
            if let fingerprint = device.fingerprint,
                let existing = try String.fetchOne(
                    db,
                    sql: "SELECT id FROM devices WHERE user_id = ? AND fingerprint = ?",
                    arguments: [userId, fingerprint]
                )
            {
                try db.execute(
                    sql: """
                        UPDATE devices SET name = ?, type = ?, model = ?, os = ?, app_version = ?, last_seen_at = ?
                        WHERE id = ?
                        """,
                    arguments: [device.name, device.type, device.model, device.os, device.appVersion, now, existing]
                )
                return try Self.requireDevice(db, tenantId: tenantId, userId: userId, id: existing)
            }
            let count =
                try Int.fetchOne(
                    db,
                    sql: "SELECT COUNT(*) FROM devices WHERE tenant_id = ? AND user_id = ?",
                    arguments: [tenantId, userId]
                ) ?? 0
            guard count < limit else {
                throw GatewayError(
                    .conflict,
                    "this user already has \(limit) devices, the most allowed: remove one (DELETE /v1/devices/{id}) first",
                    retryable: false,
                    details: [FieldProblem(field: "device", problem: "is over the limit of \(limit) devices")]
                )
            }
            let created = try Self.creationTime(db, in: "devices", tenantId: tenantId, userId: userId)
            try db.execute(
                sql: """
                    INSERT INTO devices (id, tenant_id, user_id, name, type, model, os, app_version, fingerprint,
                        created_at, last_seen_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    id, tenantId, userId, device.name, device.type, device.model, device.os, device.appVersion,
                    device.fingerprint, created, created,
                ]
            )
            return try Self.requireDevice(db, tenantId: tenantId, userId: userId, id: id)
        }
    }

    /// Implements `DeviceStore.devices(tenantId:userId:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func devices(tenantId: String, userId: String) async throws -> [Device] {
        try await read("devices") { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(Self.deviceColumns) FROM devices WHERE tenant_id = ? AND user_id = ? ORDER BY created_at, id",
                arguments: [tenantId, userId]
            ).map(Device.init(row:))
        }
    }

    /// Implements `DeviceStore.device(tenantId:userId:id:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func device(tenantId: String, userId: String, id: String) async throws -> Device? {
        try await read("device") { db in try Self.fetchDevice(db, tenantId: tenantId, userId: userId, id: id) }
    }

    /// Changes a device's name and/or trust; `nil` keeps each. `nil` when the user has no such device.
    public func updateDevice(tenantId: String, userId: String, id: String, name: String?, trusted: Bool?) async throws -> Device? {
        try await write("updateDevice") { db in
            try db.execute(
                sql: """
                    UPDATE devices SET name = COALESCE(?, name), trusted = COALESCE(?, trusted)
                    WHERE tenant_id = ? AND user_id = ? AND id = ?
                    """,
                arguments: [name, trusted, tenantId, userId, id]
            )
            return try Self.fetchDevice(db, tenantId: tenantId, userId: userId, id: id)
        }
    }

    /// Deletes a device and with it its sessions. `false` when the user has no such device.
    public func deleteDevice(tenantId: String, userId: String, id: String, audit: AuditRecord?) async throws -> Bool {
        let now = StoreClock.nowMillis()
        return try await write("deleteDevice") { db in
            try db.execute(
                sql: "DELETE FROM devices WHERE tenant_id = ? AND user_id = ? AND id = ?",
                arguments: [tenantId, userId, id]
            )
            guard db.changesCount > 0 else { return false }
            if let audit { try Self.insertAudit(db, audit, at: now) }
            return true
        }
    }

    // MARK: Push tokens

    /// Implements `DeviceStore.setPushToken(tenantId:userId:deviceId:token:platform:audit:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
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
            guard let device = try Self.fetchDevice(db, tenantId: tenantId, userId: userId, id: deviceId) else { return nil }
            if device.holdsActivePushToken(token, platform: platform) { return device }
            // One device per token per user: the app reinstalled, or the token moved to this device.
            try db.execute(
                sql: """
                    UPDATE devices SET push_token = NULL, push_platform = NULL, push_active = NULL, push_registered_at = NULL,
                        push_deactivated_at = NULL, push_deactivated_reason = NULL
                    WHERE tenant_id = ? AND user_id = ? AND push_token = ? AND id <> ?
                    """,
                arguments: [tenantId, userId, token, deviceId]
            )
            try db.execute(
                sql: """
                    UPDATE devices SET push_token = ?, push_platform = ?, push_active = 1, push_registered_at = ?,
                        push_deactivated_at = NULL, push_deactivated_reason = NULL
                    WHERE tenant_id = ? AND user_id = ? AND id = ?
                    """,
                arguments: [token, platform.rawValue, now, tenantId, userId, deviceId]
            )
            if let audit { try Self.insertAudit(db, audit, at: now) }
            return try Self.fetchDevice(db, tenantId: tenantId, userId: userId, id: deviceId)
        }
    }

    /// Implements `DeviceStore.removePushToken(tenantId:userId:deviceId:audit:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func removePushToken(tenantId: String, userId: String, deviceId: String, audit: AuditRecord?) async throws -> Bool {
        let now = StoreClock.nowMillis()
        return try await write("removePushToken") { db in
            try db.execute(
                sql: """
                    UPDATE devices SET push_token = NULL, push_platform = NULL, push_active = NULL, push_registered_at = NULL,
                        push_deactivated_at = NULL, push_deactivated_reason = NULL
                    WHERE tenant_id = ? AND user_id = ? AND id = ? AND push_token IS NOT NULL
                    """,
                arguments: [tenantId, userId, deviceId]
            )
            guard db.changesCount > 0 else { return false }
            if let audit { try Self.insertAudit(db, audit, at: now) }
            return true
        }
    }

    /// Implements `DeviceStore.deactivatePushToken(tenantId:userId:deviceId:token:reason:at:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func deactivatePushToken(
        tenantId: String,
        userId: String,
        deviceId: String,
        token: String,
        reason: String,
        at date: Date
    ) async throws -> Bool {
        try await write("deactivatePushToken") { db in
            try db.execute(
                sql: """
                    UPDATE devices SET push_active = 0, push_deactivated_at = ?, push_deactivated_reason = ?
                    WHERE tenant_id = ? AND user_id = ? AND id = ? AND push_token = ? AND push_active = 1
                    """,
                arguments: [StoreClock.millis(date), reason, tenantId, userId, deviceId, token]
            )
            return db.changesCount > 0
        }
    }

    static func fetchDevice(_ db: Database, tenantId: String, userId: String, id: String) throws -> Device? {
        try Row.fetchOne(
            db,
            sql: "SELECT \(deviceColumns) FROM devices WHERE tenant_id = ? AND user_id = ? AND id = ?",
            arguments: [tenantId, userId, id]
        ).map(Device.init(row:))
    }

    // MARK: Sessions

    /// Implements `SessionStore.createSession(tenantId:userId:deviceId:refreshHash:expiresAt:audit:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
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
            guard try Self.fetchDevice(db, tenantId: tenantId, userId: userId, id: deviceId) != nil else {
                throw GatewayError(.notFound, "no device '\(deviceId)'")
            }
            try db.execute(
                sql: """
                    INSERT INTO sessions (id, tenant_id, user_id, device_id, refresh_hash, created_at, refreshed_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [id, tenantId, userId, deviceId, Data(refreshHash), now, now, StoreClock.millis(expiresAt)]
            )
            try db.execute(sql: "UPDATE devices SET last_seen_at = ? WHERE id = ?", arguments: [now, deviceId])
            if let audit { try Self.insertAudit(db, audit.targeting(id), at: now) }
            return try Self.requireSession(db, id: id)
        }
    }

    /// Implements `SessionStore.session(id:)` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func session(id: String) async throws -> SessionRecord? {
        try await read("session") { db in try Self.fetchSession(db, id: id) }
    }

    /// The user's sessions that are live at `now`, oldest first.
    public func liveSessions(tenantId: String, userId: String, deviceId: String?, now: Date) async throws -> [SessionRecord] {
        try await read("liveSessions") { db in
            var sql = """
                SELECT \(Self.sessionColumns) FROM sessions
                WHERE tenant_id = ? AND user_id = ? AND revoked_at IS NULL AND expires_at > ?
                """
            var arguments: StatementArguments = [tenantId, userId, StoreClock.millis(now)]
            if let deviceId {
                sql += " AND device_id = ?"
                arguments += [deviceId]
            }
            return try Row.fetchAll(db, sql: sql + " ORDER BY created_at, id", arguments: arguments).map(SessionRecord.init(row:))
        }
    }

    /// Exchanges a refresh token, in one write: the session whose live token it is gets `newHash` (the presented one
    /// is recorded as spent), so of two concurrent refreshes with one token exactly one rotates. A token already
    /// spent revokes its session and every token of it (reuse: a copy is in someone else's hands).
    public func rotateRefreshToken(
        presented: [UInt8],
        newHash: [UInt8],
        now: Date,
        grace: TimeInterval,
        audit: @escaping @Sendable (SessionRecord) -> AuditRecord
    ) async throws -> RefreshOutcome {
        let nowMillis = StoreClock.millis(now)
        return try await write("rotateRefreshToken") { db in
            if let session = try Row.fetchOne(
                db,
                sql: "SELECT \(Self.sessionColumns) FROM sessions WHERE refresh_hash = ?",
                arguments: [Data(presented)]
            ).map(SessionRecord.init(row:)) {
                guard session.isLive(at: StoreClock.date(nowMillis)) else { return .ended(session) }
                try db.execute(
                    sql: "UPDATE sessions SET refresh_hash = ?, refreshed_at = ? WHERE id = ? AND refresh_hash = ?",
                    arguments: [Data(newHash), nowMillis, session.id, Data(presented)]
                )
                try db.execute(
                    sql: "INSERT INTO spent_refresh_tokens (hash, session_id, spent_at) VALUES (?, ?, ?)",
                    arguments: [Data(presented), session.id, nowMillis]
                )
                return .rotated(try Self.requireSession(db, id: session.id))
            }
            guard
                let spent = try Row.fetchOne(
                    db,
                    sql: "SELECT session_id, spent_at FROM spent_refresh_tokens WHERE hash = ?",
                    arguments: [Data(presented)]
                )
            else { return .unknown }
            let sessionId: String = spent["session_id"]
            let spentAt: Int64 = spent["spent_at"]
            // A second refresh racing the first: within the grace window, while the session's live token is still
            // the one this token was rotated to.
            if grace > 0, nowMillis - spentAt <= Int64(min(grace, 86_400) * 1000),
                let session = try Row.fetchOne(
                    db,
                    sql: "SELECT \(Self.sessionColumns) FROM sessions WHERE id = ? AND refresh_hash = ?",
                    arguments: [sessionId, Data(newHash)]
                ).map(SessionRecord.init(row:)),
                session.isLive(at: StoreClock.date(nowMillis))
            {
                return .replayed(session)
            }
            try db.execute(
                sql: """
                    UPDATE sessions SET revoked_at = ?, revoked_reason = 'refresh_reuse'
                    WHERE id = ? AND revoked_at IS NULL
                    """,
                arguments: [nowMillis, sessionId]
            )
            let newlyRevoked = db.changesCount > 0
            let revoked = try Self.requireSession(db, id: sessionId)
            if newlyRevoked { try Self.insertAudit(db, audit(revoked), at: nowMillis) }
            return .reused(revoked)
        }
    }

    /// Revokes live sessions of a user: one (`sessionId`), one device's (`deviceId`), or all of them. Their count.
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
            var sql = "UPDATE sessions SET revoked_at = ?, revoked_reason = ? WHERE tenant_id = ? AND user_id = ? AND revoked_at IS NULL"
            var arguments: StatementArguments = [now, reason, tenantId, userId]
            if let sessionId {
                sql += " AND id = ?"
                arguments += [sessionId]
            }
            if let deviceId {
                sql += " AND device_id = ?"
                arguments += [deviceId]
            }
            try db.execute(sql: sql, arguments: arguments)
            let count = db.changesCount
            if count > 0, var audit {
                audit.detail["sessions"] = String(count)
                try Self.insertAudit(db, audit, at: now)
            }
            return count
        }
    }

    /// Moves a live session's end to `expiresAt` (never earlier than it is). `nil` when it is not live.
    public func extendSession(id: String, expiresAt: Date, now: Date) async throws -> SessionRecord? {
        try await write("extendSession") { db in
            try db.execute(
                sql: """
                    UPDATE sessions SET expires_at = MAX(expires_at, ?)
                    WHERE id = ? AND revoked_at IS NULL AND expires_at > ?
                    """,
                arguments: [StoreClock.millis(expiresAt), id, StoreClock.millis(now)]
            )
            guard db.changesCount > 0 else { return nil }
            return try Self.fetchSession(db, id: id)
        }
    }

    /// Marks the device seen (each authenticated request of its session), at most once a minute per device.
    public func touchDevice(id: String, now: Date) async throws {
        let nowMillis = StoreClock.millis(now)
        try await write("touchDevice") { db in
            try db.execute(
                sql: "UPDATE devices SET last_seen_at = ? WHERE id = ? AND last_seen_at < ?",
                arguments: [nowMillis, id, nowMillis - 60_000]
            )
        }
    }

    static func requireSession(_ db: Database, id: String) throws -> SessionRecord {
        guard let session = try fetchSession(db, id: id) else { throw GatewayError(.notFound, "no session '\(id)'") }
        return session
    }

    static func requireDevice(_ db: Database, tenantId: String, userId: String, id: String) throws -> Device {
        guard let device = try fetchDevice(db, tenantId: tenantId, userId: userId, id: id) else {
            throw GatewayError(.notFound, "no device '\(id)'")
        }
        return device
    }

    static func fetchSession(_ db: Database, id: String) throws -> SessionRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(sessionColumns) FROM sessions WHERE id = ?"), arguments: [id])
            .map(SessionRecord.init(row:))
    }
}
