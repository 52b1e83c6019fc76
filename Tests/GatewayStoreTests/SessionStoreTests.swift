import Crypto
import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

/// The end-user session records, store by store: passwords and lockout, one-time login codes, devices, and
/// sessions with rotating refresh tokens. (The flows built on them are tested in GatewayAppTests.)
@Suite("Store: sessions, devices, login codes")
struct SessionStoreTests {
    func hash(_ text: String) -> [UInt8] { Array(SHA256.hash(data: Data(text.utf8))) }

    func user(_ store: AnyStore, email: String = "ada@example.com") async throws -> (Tenant, User) {
        let tenant = try await store.createTenant(name: "Acme")
        let user = try await store.createUser(tenantId: tenant.id, NewUser(email: email), audit: nil)
        return (tenant, user)
    }

    @Test("a password hash is set and found by email; failures lock with doubling, success clears", arguments: StoreBackend.all)
    func passwordsAndLockout(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (tenant, user) = try await user(store)
            #expect(try await store.setPasswordHash(tenantId: tenant.id, userId: user.id, hash: "$argon2id$x", audit: nil))
            #expect(try await !store.setPasswordHash(tenantId: tenant.id, userId: "usr_none", hash: "h", audit: nil))
            let candidate = try #require(try await store.loginCandidate(tenantId: tenant.id, email: "ada@example.com"))
            #expect(candidate.user.id == user.id && candidate.passwordHash == "$argon2id$x" && candidate.failedLogins == 0)
            #expect(try await store.loginCandidate(tenantId: tenant.id, email: "bob@example.com") == nil)

            let now = StoreClock.date(StoreClock.nowMillis())
            var locks: [Date?] = []
            for _ in 0..<4 {
                locks.append(
                    try await store.recordFailedLogin(
                        tenantId: tenant.id,
                        userId: user.id,
                        threshold: 3,
                        base: 1,
                        maximum: 60,
                        now: now,
                        audit: nil
                    )
                )
            }
            #expect(locks[0] == nil && locks[1] == nil)
            #expect(locks[2] == now.addingTimeInterval(1) && locks[3] == now.addingTimeInterval(2))
            let locked = try #require(try await store.loginCandidate(tenantId: tenant.id, email: "ada@example.com"))
            #expect(locked.failedLogins == 4 && locked.lockedUntil == now.addingTimeInterval(2))
            try await store.recordSuccessfulLogin(tenantId: tenant.id, userId: user.id)
            let cleared = try #require(try await store.loginCandidate(tenantId: tenant.id, email: "ada@example.com"))
            #expect(cleared.failedLogins == 0 && cleared.lockedUntil == nil)
        }
    }

    @Test("concurrent failed logins all count", arguments: StoreBackend.all)
    func concurrentFailuresCount(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (tenant, user) = try await user(store)
            let now = Date()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        _ = try await store.recordFailedLogin(
                            tenantId: tenant.id,
                            userId: user.id,
                            threshold: 100,
                            base: 1,
                            maximum: 60,
                            now: now,
                            audit: nil
                        )
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await store.loginCandidate(tenantId: tenant.id, email: "ada@example.com")?.failedLogins == 20)
        }
    }

    @Test("a login code is spent once, before it expires, by its tenant only", arguments: StoreBackend.all)
    func loginCodes(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (tenant, user) = try await user(store)
            let other = try await store.createTenant(name: "Other")
            let now = StoreClock.date(StoreClock.nowMillis())
            try await store.createLoginCode(
                tenantId: tenant.id,
                userId: user.id,
                hash: hash("code-1"),
                expiresAt: now.addingTimeInterval(60),
                audit: nil
            )
            try await store.createLoginCode(
                tenantId: tenant.id,
                userId: user.id,
                hash: hash("code-2"),
                expiresAt: now.addingTimeInterval(60),
                audit: nil
            )
            #expect(try await store.consumeLoginCode(tenantId: other.id, hash: hash("code-1"), now: now) == nil)
            let spent = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<10 {
                    group.addTask { try await store.consumeLoginCode(tenantId: tenant.id, hash: self.hash("code-1"), now: now) }
                }
                var all: [String] = []
                for try await userId in group { if let userId { all.append(userId) } }
                return all
            }
            #expect(spent == [user.id])
            #expect(try await store.consumeLoginCode(tenantId: tenant.id, hash: hash("code-2"), now: now.addingTimeInterval(60)) == nil)
            await expectGatewayError(.notFound) {
                try await store.createLoginCode(
                    tenantId: other.id,
                    userId: user.id,
                    hash: self.hash("code-3"),
                    expiresAt: now.addingTimeInterval(60),
                    audit: nil
                )
            }
        }
    }

    @Test("devices: a known fingerprint is the same device, the limit holds, updates and deletes are the user's", arguments: StoreBackend.all)
    func devices(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (tenant, user) = try await user(store)
            let phone = try await store.registerDevice(
                tenantId: tenant.id,
                userId: user.id,
                NewDevice(name: "Phone", type: "ios", fingerprint: "fp-1"),
                limit: 2
            )
            #expect(!phone.trusted)
            let again = try await store.registerDevice(
                tenantId: tenant.id,
                userId: user.id,
                NewDevice(name: "Phone 2", type: "ios", os: "18", fingerprint: "fp-1"),
                limit: 2
            )
            #expect(again.id == phone.id && again.name == "Phone 2" && again.os == "18")
            let laptop = try await store.registerDevice(
                tenantId: tenant.id,
                userId: user.id,
                NewDevice(name: "Laptop", type: "web"),
                limit: 2
            )
            await expectGatewayError(.conflict) {
                try await store.registerDevice(tenantId: tenant.id, userId: user.id, NewDevice(name: "Third", type: "web"), limit: 2)
            }
            #expect(try await store.devices(tenantId: tenant.id, userId: user.id).map(\.id) == [phone.id, laptop.id])
            let trusted = try await store.updateDevice(tenantId: tenant.id, userId: user.id, id: laptop.id, name: nil, trusted: true)
            #expect(trusted?.trusted == true && trusted?.name == "Laptop")
            #expect(try await store.updateDevice(tenantId: tenant.id, userId: "usr_other", id: laptop.id, name: "x", trusted: nil) == nil)
            #expect(try await store.device(tenantId: tenant.id, userId: user.id, id: laptop.id)?.trusted == true)
            #expect(try await !store.deleteDevice(tenantId: tenant.id, userId: "usr_other", id: laptop.id, audit: nil))
            #expect(try await store.deleteDevice(tenantId: tenant.id, userId: user.id, id: laptop.id, audit: nil))
            #expect(try await store.device(tenantId: tenant.id, userId: user.id, id: laptop.id) == nil)
            await expectGatewayError(.notFound) {
                try await store.registerDevice(tenantId: tenant.id, userId: "usr_none", NewDevice(name: "X", type: "web"), limit: 2)
            }
        }
    }

    @Test("of devices registered at once, no more than the limit are kept", arguments: StoreBackend.all)
    func deviceLimitUnderConcurrency(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (tenant, user) = try await user(store)
            let registered = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        do {
                            _ = try await store.registerDevice(
                                tenantId: tenant.id,
                                userId: user.id,
                                NewDevice(name: "D\(index)", type: "web"),
                                limit: 3
                            )
                            return true
                        } catch let error as GatewayError where error.code == .conflict {
                            return false
                        }
                    }
                }
                var count = 0
                for try await ok in group where ok { count += 1 }
                return count
            }
            #expect(registered == 3)
            #expect(try await store.devices(tenantId: tenant.id, userId: user.id).count == 3)
        }
    }

    @Test("a refresh token rotates once; presenting a spent one revokes its session; revocation and extension", arguments: StoreBackend.all)
    func sessionsAndRefreshTokens(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (tenant, user) = try await user(store)
            let device = try await store.registerDevice(
                tenantId: tenant.id,
                userId: user.id,
                NewDevice(name: "Phone", type: "ios"),
                limit: 5
            )
            let start = StoreClock.date(StoreClock.nowMillis())
            let session = try await store.createSession(
                tenantId: tenant.id,
                userId: user.id,
                deviceId: device.id,
                refreshHash: hash("r1"),
                expiresAt: start.addingTimeInterval(3600),
                audit: nil
            )
            #expect(try await store.session(id: session.id) == session)
            let audit: @Sendable (SessionRecord) -> AuditRecord = { session in
                AuditRecord(tenantId: session.tenantId, actor: session.userId, action: "session.reuse", target: session.id)
            }
            // Of concurrent refreshes with one token, one rotates; the others present a spent token: reuse.
            let outcomes = try await withThrowingTaskGroup(of: RefreshOutcome.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        try await store.rotateRefreshToken(
                            presented: self.hash("r1"),
                            newHash: self.hash("r2-\(index)"),
                            now: start,
                            audit: audit
                        )
                    }
                }
                var all: [RefreshOutcome] = []
                for try await outcome in group { all.append(outcome) }
                return all
            }
            #expect(outcomes.filter { if case .rotated = $0 { true } else { false } }.count == 1)
            #expect(outcomes.filter { if case .reused = $0 { true } else { false } }.count == 5)
            let revoked = try #require(try await store.session(id: session.id))
            #expect(revoked.revokedReason == "refresh_reuse" && revoked.revokedAt != nil)
            // One audit event for the reuse, however many presented it.
            #expect(try await store.auditEvents(tenantId: tenant.id, before: nil, limit: 10).filter { $0.action == "session.reuse" }.count == 1)
            #expect(try await store.rotateRefreshToken(presented: hash("never"), newHash: hash("x"), now: start, audit: audit) == .unknown)

            let second = try await store.createSession(
                tenantId: tenant.id,
                userId: user.id,
                deviceId: device.id,
                refreshHash: hash("s1"),
                expiresAt: start.addingTimeInterval(60),
                audit: nil
            )
            let extended = try await store.extendSession(id: second.id, expiresAt: start.addingTimeInterval(120), now: start)
            #expect(extended?.expiresAt == start.addingTimeInterval(120))
            let notShortened = try await store.extendSession(id: second.id, expiresAt: start.addingTimeInterval(30), now: start)
            #expect(notShortened?.expiresAt == start.addingTimeInterval(120))
            #expect(try await store.liveSessions(tenantId: tenant.id, userId: user.id, deviceId: nil, now: start).map(\.id) == [second.id])
            #expect(try await store.liveSessions(tenantId: tenant.id, userId: user.id, deviceId: nil, now: start.addingTimeInterval(121)).isEmpty)
            if case .ended = try await store.rotateRefreshToken(
                presented: hash("s1"),
                newHash: hash("s2"),
                now: start.addingTimeInterval(121),
                audit: audit
            ) {
            } else {
                Issue.record("an expired session's token rotated")
            }
            #expect(
                try await store.revokeSessions(
                    tenantId: tenant.id,
                    userId: user.id,
                    sessionId: nil,
                    deviceId: device.id,
                    reason: "logout",
                    audit: nil
                ) == 1
            )
            #expect(
                try await store.revokeSessions(
                    tenantId: tenant.id,
                    userId: user.id,
                    sessionId: nil,
                    deviceId: nil,
                    reason: "logout",
                    audit: nil
                ) == 0
            )
            #expect(try await store.extendSession(id: second.id, expiresAt: start.addingTimeInterval(500), now: start) == nil)
            await expectGatewayError(.notFound) {
                try await store.createSession(
                    tenantId: tenant.id,
                    userId: user.id,
                    deviceId: "dev_none",
                    refreshHash: self.hash("z"),
                    expiresAt: start.addingTimeInterval(60),
                    audit: nil
                )
            }
            // Deleting the device ends its sessions with it.
            #expect(try await store.deleteDevice(tenantId: tenant.id, userId: user.id, id: device.id, audit: nil))
            #expect(try await store.session(id: second.id) == nil)
        }
    }

    @Test("deleting a user takes their devices and sessions, and revokes their keys", arguments: StoreBackend.all)
    func deletingAUser(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (tenant, user) = try await user(store)
            let device = try await store.registerDevice(
                tenantId: tenant.id,
                userId: user.id,
                NewDevice(name: "Phone", type: "ios"),
                limit: 5
            )
            let session = try await store.createSession(
                tenantId: tenant.id,
                userId: user.id,
                deviceId: device.id,
                refreshHash: hash("r"),
                expiresAt: Date().addingTimeInterval(600),
                audit: nil
            )
            let key = try await store.issueAPIKey(tenantId: tenant.id, label: "bound", scopes: ["read"], userId: user.id, audit: nil)
            #expect(try await store.deleteUser(tenantId: tenant.id, id: user.id, audit: nil))
            #expect(try await store.session(id: session.id) == nil)
            #expect(try await store.device(tenantId: tenant.id, userId: user.id, id: device.id) == nil)
            #expect(try await store.authenticateAPIKey(key.plaintext) == nil)
            #expect(try await store.apiKey(tenantId: tenant.id, id: key.id)?.revokedAt != nil)
        }
    }

    @Test(
        "within the grace window a spent token whose successor is still live replays; past it, or once the successor is spent, it is reuse",
        arguments: StoreBackend.all
    )
    func refreshGrace(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let (tenant, user) = try await user(store)
            let device = try await store.registerDevice(
                tenantId: tenant.id,
                userId: user.id,
                NewDevice(name: "Phone", type: "ios"),
                limit: 5
            )
            let start = StoreClock.date(StoreClock.nowMillis())
            let audit: @Sendable (SessionRecord) -> AuditRecord = { session in
                AuditRecord(tenantId: session.tenantId, actor: session.userId, action: "session.reuse", target: session.id)
            }
            func session(_ token: String) async throws -> SessionRecord {
                try await store.createSession(
                    tenantId: tenant.id,
                    userId: user.id,
                    deviceId: device.id,
                    refreshHash: hash(token),
                    expiresAt: start.addingTimeInterval(3600),
                    audit: nil
                )
            }
            func rotate(_ presented: String, to next: String, at seconds: TimeInterval) async throws -> RefreshOutcome {
                try await store.rotateRefreshToken(
                    presented: hash(presented),
                    newHash: hash(next),
                    now: start.addingTimeInterval(seconds),
                    grace: 10,
                    audit: audit
                )
            }
            let racing = try await session("a1")
            guard case .rotated = try await rotate("a1", to: "a2", at: 0) else {
                Issue.record("a live token did not rotate")
                return
            }
            // The same token, rotating to the same successor, 9 s later: a racing refresh; nothing changes.
            #expect(try await rotate("a1", to: "a2", at: 9) == .replayed(try #require(try await store.session(id: racing.id))))
            #expect(try await store.session(id: racing.id)?.revokedAt == nil)
            // Another successor than the live one is not the same rotation: reuse.
            let forged = try await session("f1")
            _ = try await rotate("f1", to: "f2", at: 0)
            guard case .reused = try await rotate("f1", to: "other", at: 1) else {
                Issue.record("a mismatched replay was not reuse")
                return
            }

            let late = try await session("b1")
            _ = try await rotate("b1", to: "b2", at: 0)
            guard case .reused(let revoked) = try await rotate("b1", to: "b2", at: 11) else {
                Issue.record("a replay past the grace window was not reuse")
                return
            }
            #expect(revoked.id == late.id && revoked.revokedReason == "refresh_reuse")

            let moved = try await session("c1")
            _ = try await rotate("c1", to: "c2", at: 0)
            _ = try await rotate("c2", to: "c3", at: 1)
            guard case .reused = try await rotate("c1", to: "c2", at: 2) else {
                Issue.record("a replay after the successor was spent was not reuse")
                return
            }
            #expect(try await store.session(id: moved.id)?.revokedReason == "refresh_reuse")
            #expect(try await store.session(id: forged.id)?.revokedReason == "refresh_reuse")
        }
    }
}
