import ArgumentParser
import Foundation
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import Synchronization
import TestWorlds
import Testing

@testable import BrokerGatewayServer

/// `gateway backup` and `gateway restore` (issue 31): a backup taken while the store is being written, restored into
/// a fresh data folder, opens with what the backup holds, and every connection's credentials read back.
@Suite("gateway backup and restore", .heavyWorld)
struct BackupRestoreTests {
    func run(_ arguments: [String]) async throws -> [String] {
        try await runOperatorCommand(arguments)
    }

    @Test("a backup taken during writes restores into a fresh folder where every credential opens")
    func backupWhileWritingThenRestore() async throws {
        try await withTemporaryFolder("bg-backup") { root in
            let live = root.appending(path: "live").path
            let store = try await StoreOptions.parse(["--data-dir", live]).openStore()
            let seeded = try await seedConnections(store, tenant: "backup", count: 20)
            let (tenantId, user, expected) = (seeded.tenantId, seeded.userId, seeded.credentials)

            // The gateway keeps writing while the backup is taken: connections made during it may or may not be in
            // the copy, but whatever is in it is whole.
            let stop = Atomic(false)
            let writer = Task {
                var made = 0
                while !stop.load(ordering: .relaxed), made < 500 {
                    _ = try await store.createConnection(
                        tenantId: tenantId,
                        userId: user,
                        NewConnection(
                            broker: BrokerKind("alpaca"),
                            displayName: "during \(made)",
                            baseURL: "https://paper-api.alpaca.markets",
                            credentials: BrokerCredentials(["keyId": "K\(made)", "secretKey": "S\(made)"])
                        )
                    )
                    made += 1
                }
                return made
            }
            let backup = root.appending(path: "backup").path
            let backedUp = try await run(["backup", "--to", backup, "--data-dir", live])
            // Stopped, not cancelled: a cancelled write ends with CancellationError, which is not this test's subject.
            stop.store(true, ordering: .relaxed)
            _ = try await writer.value
            #expect(backedUp.first?.hasPrefix("database\t\(backup)/gateway.sqlite") == true, "\(backedUp)")
            #expect(backedUp.contains("key\tmaster.key"), "\(backedUp)")
            #expect(try posixPermissions(backup) == 0o700)
            #expect(try posixPermissions(backup + "/gateway.sqlite") == 0o600)
            #expect(try posixPermissions(backup + "/master.key") == 0o600)
            // One self-contained file.
            #expect(!FileManager.default.fileExists(atPath: backup + "/gateway.sqlite-wal"))

            let restoredFolder = root.appending(path: "restored").path
            let restored = try await run(["restore", "--from", backup, "--data-dir", restoredFolder])
            #expect(restored.last?.hasPrefix("connections\t") == true, "\(restored)")
            let count = try #require(restored.last?.split(separator: "\t").dropFirst().first.flatMap { Int($0) })
            #expect(count >= expected.count)

            // The restored folder is a data folder the gateway opens, with every credential as it was written.
            let reopened = try await StoreOptions.parse(["--data-dir", restoredFolder]).openStore()
            for (id, credentials) in expected {
                #expect(try await reopened.credentials(tenantId: tenantId, connectionId: id) == credentials)
            }
            #expect(try await reopened.connections(tenantId: tenantId).count == count)
        }
    }

    @Test("a backup never overwrites, a restore only fills a new data folder, and a wrong master key restores nothing")
    func refusals() async throws {
        try await withTemporaryFolder("bg-backup") { root in
            let live = root.appending(path: "live").path
            let store = try await StoreOptions.parse(["--data-dir", live]).openStore()
            _ = try await store.createTenant(name: "refusals")
            let backup = root.appending(path: "backup").path
            _ = try await run(["backup", "--to", backup, "--data-dir", live])
            await #expect(throws: ValidationError.self) { try await run(["backup", "--to", backup, "--data-dir", live]) }
            // The live folder already holds a database and keys: a restore refuses to touch it.
            let occupied = await #expect(throws: ValidationError.self) {
                try await run(["restore", "--from", backup, "--data-dir", live])
            }
            #expect(occupied?.message.contains("new data folder") == true)
            await #expect(throws: ValidationError.self) {
                try await run(["restore", "--from", root.appending(path: "nothing").path, "--data-dir", root.appending(path: "x").path])
            }

            // A backup whose master key is replaced by another: the database does not open, and nothing is left.
            let tampered = root.appending(path: "tampered").path
            try FileManager.default.copyItem(atPath: backup, toPath: tampered)
            try FileManager.default.removeItem(atPath: tampered + "/master.key")
            try Data((Data(repeating: 9, count: 32).base64EncodedString() + "\n").utf8).write(to: URL(fileURLWithPath: tampered + "/master.key"))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tampered + "/master.key")
            let target = root.appending(path: "target").path
            let mismatch = await #expect(throws: ValidationError.self) {
                try await run(["restore", "--from", tampered, "--data-dir", target])
            }
            #expect(mismatch?.message.contains("key_mismatch") == true, "\(String(describing: mismatch))")
            let left = (try? FileManager.default.contentsOfDirectory(atPath: target)) ?? []
            #expect(left.filter { !$0.hasPrefix("session-keys") }.isEmpty, "left behind: \(left)")
        }
    }
}
