import Crypto
import Foundation
import GatewayCore
import GatewayModel
import Synchronization
import Testing

@testable import GatewayPostgresStore
@testable import GatewaySQLiteStore
@testable import GatewayStore

/// `MasterKeyRotation` on both backends (issue 31): every stored secret re-sealed under a new key while other
/// instances read and write, instances on either key served while the rotation is open, only the new key after it.
@Suite("Master key rotation")
struct MasterKeyRotationTests {
    /// A tenant with `connections` connections and `alerts` alerts, each with secrets of its own.
    struct Seeded: Sendable {
        var tenantId: String
        var userId: String
        var credentials: [String: BrokerCredentials]
        var webhookSecrets: [String: String]
    }

    func seed(_ store: AnyStore, connections: Int, alerts: Int, tenant name: String = "rotation") async throws -> Seeded {
        let tenant = try await store.createTenant(name: name)
        let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
        var seeded = Seeded(tenantId: tenant.id, userId: user.id, credentials: [:], webhookSecrets: [:])
        for index in 0..<connections {
            let credentials = BrokerCredentials(["keyId": "KEY-\(index)", "secretKey": "secret-\(index)-\(UUID().uuidString)"])
            let made = try await store.createConnection(
                tenantId: tenant.id,
                userId: user.id,
                NewConnection(
                    broker: BrokerKind("alpaca"),
                    displayName: "A\(index)",
                    baseURL: "https://paper-api.alpaca.markets",
                    credentials: credentials
                )
            )
            seeded.credentials[made.id] = credentials
        }
        for index in 0..<alerts {
            let secret = "whsec_\(index)_\(UUID().uuidString)"
            let alert = try await store.createAlert(
                tenantId: tenant.id,
                userId: user.id,
                AlertStoreTests.draft(name: "alert \(index)"),
                webhookSecret: secret,
                limit: 100,
                audit: nil
            )
            seeded.webhookSecrets[alert.id] = secret
        }
        return seeded
    }

    /// Every secret of `seeded` reads back through `store`'s API as it was written.
    func expectEverySecretOpens(_ store: AnyStore, _ seeded: Seeded, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for (id, credentials) in seeded.credentials {
            #expect(try await store.credentials(tenantId: seeded.tenantId, connectionId: id) == credentials, sourceLocation: sourceLocation)
        }
        for (id, secret) in seeded.webhookSecrets {
            #expect(
                try await store.alertWebhookSecret(tenantId: seeded.tenantId, userId: seeded.userId, id: id) == secret,
                sourceLocation: sourceLocation
            )
        }
    }

    /// Which key each stored value is sealed under, read below the API.
    func sealedUnder(_ store: AnyStore, _ key: CredentialCipher) async throws -> (under: Int, other: Int) {
        var counts = (under: 0, other: 0)
        for kind in SealedSecretKind.allCases {
            for row in try await store.sealedSecrets(kind, after: nil, limit: 10_000) {
                if CredentialCipher.open(row.sealed, with: [key.key], authenticating: row.associatedData) != nil {
                    counts.under += 1
                } else {
                    counts.other += 1
                }
            }
        }
        return counts
    }

    @Test("every secret re-sealed under the new key; either key opens the database until finish, then only the new one", arguments: StoreBackend.all)
    func rotateThenFinish(backend: StoreBackend) async throws {
        try await withStoreDatabase(backend) { database in
            let (old, new) = (CredentialCipher.random(), CredentialCipher.random())
            let seeded = try await database.with(old) { store in try await seed(store, connections: 7, alerts: 3) }

            let report = try await database.with(old) { store in
                let (target, opened) = try await MasterKeyRotation.begin(store: store, newKey: new)
                #expect(opened && target.hasSameKey(as: new))
                return try await MasterKeyRotation.reseal(store: store, pageSize: 3)
            }
            #expect(report.resealed == [.credentials: 7, .webhookSecret: 3])
            #expect(report.alreadyResealed.isEmpty && report.undecryptable.isEmpty && !report.finished)
            #expect(report.newKeyID == MasterKeyRotation.keyID(new) && report.oldKeyID == MasterKeyRotation.keyID(old))
            #expect(report.newKeyID != report.oldKeyID)

            // Open: an instance started with the new key and one started with the old key both read everything.
            try await database.with(new) { store in
                try await expectEverySecretOpens(store, seeded)
                #expect(try await sealedUnder(store, new) == (under: 10, other: 0))
            }
            try await database.with(old) { store in try await expectEverySecretOpens(store, seeded) }
            // A key that is neither is refused, as before.
            await #expect(throws: MasterKeyError.self) { try await database.with(.random()) { _ in } }

            // Finishing needs nothing re-sealed; afterwards the old key is refused and the new one opens everything.
            let finished = try await database.with(new) { store in try await MasterKeyRotation.finish(store: store) }
            #expect(finished.finished && finished.resealed.isEmpty && finished.alreadyResealed == [.credentials: 7, .webhookSecret: 3])
            let refused = await #expect(throws: MasterKeyError.self) { try await database.with(old) { _ in } }
            #expect(refused?.code == .keyMismatch)
            try await database.with(new) { store in
                try await expectEverySecretOpens(store, seeded)
                let records = try await store.masterKeyRecords()
                #expect(records.check != nil && records.next == nil && records.previous == nil)
                // Nothing left to finish.
                let again = await #expect(throws: MasterKeyError.self) { try await MasterKeyRotation.finish(store: store) }
                #expect(again?.code == .notRotating)
            }
        }
    }

    @Test("an interrupted rotation resumes: values under either key are finished, another new key is refused", arguments: StoreBackend.all)
    func resume(backend: StoreBackend) async throws {
        try await withStoreDatabase(backend) { database in
            let (old, new) = (CredentialCipher.random(), CredentialCipher.random())
            var seeded = try await database.with(old) { store in try await seed(store, connections: 4, alerts: 1) }
            // An instance started before the rotation keeps only the old key, and keeps writing with it.
            try await database.with(old) { straggler in
                try await database.with(old) { operatorStore in
                    _ = try await MasterKeyRotation.begin(store: operatorStore, newKey: new)
                    _ = try await MasterKeyRotation.reseal(store: operatorStore)
                }
                let late = try await seed(straggler, connections: 3, alerts: 1, tenant: "late")
                seeded.credentials.merge(late.credentials) { $1 }
                seeded.webhookSecrets.merge(late.webhookSecrets) { $1 }
                seeded.tenantId = late.tenantId
                seeded.userId = late.userId
                #expect(try await sealedUnder(straggler, new).other == 4, "the straggler sealed its new values under the old key")
            }
            try await database.with(old) { store in
                // Resumed with the same key (given again, or not at all): only what is still under the old key.
                let resumed = try await MasterKeyRotation.begin(store: store, newKey: nil)
                #expect(!resumed.opened && resumed.key.hasSameKey(as: new))
                #expect(try await MasterKeyRotation.begin(store: store, newKey: new).opened == false)
                let report = try await MasterKeyRotation.reseal(store: store)
                #expect(report.resealed == [.credentials: 3, .webhookSecret: 1])
                #expect(report.alreadyResealed == [.credentials: 4, .webhookSecret: 1])
                // A different new key while one rotation is open is refused.
                let other = await #expect(throws: MasterKeyError.self) {
                    try await MasterKeyRotation.begin(store: store, newKey: .random())
                }
                #expect(other?.code == .rotationInProgress)
            }
            try await database.with(new) { store in
                _ = try await MasterKeyRotation.finish(store: store)
                let late = try await store.connections(tenantId: seeded.tenantId)
                #expect(late.count == 3)
                for connection in late {
                    #expect(try await store.credentials(tenantId: seeded.tenantId, connectionId: connection.id) == seeded.credentials[connection.id])
                }
                let same = await #expect(throws: MasterKeyError.self) { try await MasterKeyRotation.begin(store: store, newKey: new) }
                #expect(same?.code == .invalidKey)
            }
        }
    }

    /// What the load tasks share.
    final class Load: Sendable {
        let stop = Atomic(false)
        let failures = Mutex<[String]>([])
        let reads = Atomic(0)
    }

    @Test("under load: an instance on the old key reads and writes through the rotation, and nothing fails or is lost", arguments: StoreBackend.all)
    func underLoad(backend: StoreBackend) async throws {
        try await withStoreDatabase(backend) { database in
            let (old, new) = (CredentialCipher.random(), CredentialCipher.random())
            let seeded = try await database.with(old) { store in try await seed(store, connections: 40, alerts: 5) }
            let ids = seeded.credentials.keys.sorted()
            let (reads, failures, writes) = try await database.with(old) { serving in
                // The serving instance: started before the rotation, with the old key only.
                let load = Load()
                let (rounds, roundDone) = AsyncStream.makeStream(of: Int.self)
                let reader = Task {
                    defer { roundDone.finish() }
                    var round = 0
                    while !load.stop.load(ordering: .relaxed) {
                        round += 1
                        for id in ids {
                            do {
                                _ = try await serving.credentials(tenantId: seeded.tenantId, connectionId: id)
                                load.reads.add(1, ordering: .relaxed)
                            } catch {
                                load.failures.withLock { $0.append("read \(id): \(error)") }
                            }
                        }
                        for (id, secret) in seeded.webhookSecrets {
                            do {
                                let read = try await serving.alertWebhookSecret(tenantId: seeded.tenantId, userId: seeded.userId, id: id)
                                if read != secret { load.failures.withLock { $0.append("webhook secret \(id) changed") } }
                            } catch {
                                load.failures.withLock { $0.append("webhook secret \(id): \(error)") }
                            }
                        }
                        roundDone.yield(round)
                    }
                }
                // Its writes: the first ten connections get new credentials over and over.
                let writer = Task {
                    var last: [String: BrokerCredentials] = [:]
                    var round = 0
                    while !load.stop.load(ordering: .relaxed) || round < 3 {
                        round += 1
                        for id in ids.prefix(10) {
                            let credentials = BrokerCredentials(["keyId": "ROUND-\(round)", "secretKey": "\(id)-\(round)"])
                            do {
                                try await serving.updateCredentials(tenantId: seeded.tenantId, connectionId: id, credentials)
                                last[id] = credentials
                            } catch {
                                load.failures.withLock { $0.append("write \(id): \(error)") }
                            }
                        }
                    }
                    return last
                }
                // The rotation starts once the load is running, and the load goes on for a while after it.
                var completedRounds = rounds.makeAsyncIterator()
                for _ in 0..<2 { _ = await completedRounds.next() }
                let report = try await database.with(old) { operatorStore in
                    _ = try await MasterKeyRotation.begin(store: operatorStore, newKey: new)
                    return try await MasterKeyRotation.reseal(store: operatorStore, pageSize: 7)
                }
                for _ in 0..<2 { _ = await completedRounds.next() }
                #expect((report.resealed[.credentials] ?? 0) + (report.alreadyResealed[.credentials] ?? 0) >= 30)
                // It learned the new key from the database the first time a value did not open, and seals under it.
                #expect(serving.cipher.ring.isRotating && serving.cipher.ring.sealing == new.key)
                load.stop.store(true, ordering: .relaxed)
                await reader.value
                let writes = await writer.value
                return (load.reads.load(ordering: .relaxed), load.failures.withLock { $0 }, writes)
            }
            #expect(failures.isEmpty, "\(failures.prefix(5))")
            #expect(reads >= 4 * ids.count)
            // Every instance restarted with the new key (the documented step), then the rotation finished.
            try await database.with(new) { store in
                _ = try await MasterKeyRotation.finish(store: store)
                for id in ids {
                    let expected = writes[id] ?? seeded.credentials[id]
                    #expect(try await store.credentials(tenantId: seeded.tenantId, connectionId: id) == expected, "\(id)")
                }
                for (id, secret) in seeded.webhookSecrets {
                    #expect(try await store.alertWebhookSecret(tenantId: seeded.tenantId, userId: seeded.userId, id: id) == secret)
                }
                #expect(try await sealedUnder(store, new) == (under: 45, other: 0))
            }
        }
    }
}
