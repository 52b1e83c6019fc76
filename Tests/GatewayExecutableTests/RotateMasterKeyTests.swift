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

/// `gateway keys rotate-master` (issue 31) on a data folder whose master key is its `master.key`, while an instance
/// that started with the old key keeps reading: the rotation opens, resumes, finishes, and nothing fails for it.
@Suite("gateway keys rotate-master", .heavyWorld)
struct RotateMasterKeyTests {
    func keyFile(_ folder: String) throws -> String {
        try String(contentsOfFile: folder + "/master.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What the reader shares with the test.
    final class Load: Sendable {
        let stop = Atomic(false)
        let failures = Mutex<[String]>([])
    }

    @Test("a rotation while an old-key instance reads: opened, resumed, finished; then only the new key opens the folder")
    func rotateWhileServing() async throws {
        try await withTemporaryFolder("bg-rotate") { root in
            let live = root.appending(path: "live").path
            let serving = try await StoreOptions.parse(["--data-dir", live]).openStore()
            let oldKey = try keyFile(live)
            let seeded = try await seedConnections(serving, tenant: "rotate", count: 12)
            let (tenantId, expected) = (seeded.tenantId, seeded.credentials)

            // The serving instance reads every connection's credentials, round after round, through the rotation.
            let load = Load()
            let (rounds, roundDone) = AsyncStream.makeStream(of: Void.self)
            let reader = Task { [expected] in
                defer { roundDone.finish() }
                while !load.stop.load(ordering: .relaxed) {
                    for (id, credentials) in expected {
                        do {
                            let read = try await serving.credentials(tenantId: tenantId, connectionId: id)
                            if read != credentials { load.failures.withLock { $0.append("\(id) read other credentials") } }
                        } catch {
                            load.failures.withLock { $0.append("\(id): \(error)") }
                        }
                    }
                    roundDone.yield()
                }
            }
            var completed = rounds.makeAsyncIterator()
            _ = await completed.next()

            let opened = try await runOperatorCommand(["keys", "rotate-master", "--data-dir", live])
            let newKey = try keyFile(live)
            #expect(newKey != oldKey)
            #expect(try posixPermissions(live + "/master.key") == 0o600)
            let newID = MasterKeyRotation.keyID(try CredentialCipher(base64Key: newKey))
            let oldID = MasterKeyRotation.keyID(try CredentialCipher(base64Key: oldKey))
            #expect(opened.first == "rotation\topened\tnew-key\t\(newID)\told-key\t\(oldID)", "\(opened)")
            #expect(opened.contains("credentials\tresealed\t12\talready\t0"), "\(opened)")
            #expect(opened.last?.contains("--finish") == true)

            // Run again (as after an interruption): it resumes the same rotation, with nothing left to do.
            let resumed = try await runOperatorCommand(["keys", "rotate-master", "--data-dir", live])
            #expect(resumed.first == "rotation\tresumed\tnew-key\t\(newID)\told-key\t\(oldID)", "\(resumed)")
            #expect(resumed.contains("credentials\tresealed\t0\talready\t12"), "\(resumed)")
            #expect(try keyFile(live) == newKey)

            _ = await completed.next()
            _ = await completed.next()
            load.stop.store(true, ordering: .relaxed)
            await reader.value
            #expect(load.failures.withLock { $0 }.isEmpty, "\(load.failures.withLock { $0.prefix(3) })")
            try serving.close()

            // Every instance now runs with the new key (here: the folder's key file); then the rotation finishes.
            let finished = try await runOperatorCommand(["keys", "rotate-master", "--finish", "--data-dir", live])
            #expect(finished.first == "rotation\tfinished\tnew-key\t\(newID)\told-key\t\(oldID)", "\(finished)")
            let reopened = try await StoreOptions.parse(["--data-dir", live]).openStore()
            for (id, credentials) in expected {
                #expect(try await reopened.credentials(tenantId: tenantId, connectionId: id) == credentials)
            }
            try reopened.close()
            let refused = #expect(throws: MasterKeyError.self) {
                _ = try SQLiteStore(path: live + "/" + SQLiteStore.databaseFileName, cipher: try CredentialCipher(base64Key: oldKey))
            }
            #expect(refused?.code == .keyMismatch)
            let nothingOpen = await #expect(throws: ValidationError.self) {
                try await runOperatorCommand(["keys", "rotate-master", "--finish", "--data-dir", live])
            }
            #expect(nothingOpen?.message.contains("not_rotating") == true, "\(String(describing: nothingOpen))")
        }
    }

    @Test("the new key from --new-key-file ends up in master.key; a malformed one is refused and changes nothing")
    func suppliedNewKey() async throws {
        try await withTemporaryFolder("bg-rotate") { root in
            let live = root.appending(path: "live").path
            let store = try await StoreOptions.parse(["--data-dir", live]).openStore()
            let tenant = try await store.createTenant(name: "supplied")
            let user = try await store.issueDefaultUserKey(tenantId: tenant.id, label: "supplied").info.userId
            let credentials = BrokerCredentials(["keyId": "K", "secretKey": "S"])
            let connection = try await store.createConnection(
                tenantId: tenant.id,
                userId: user,
                NewConnection(broker: BrokerKind("alpaca"), displayName: "A", baseURL: "https://paper-api.alpaca.markets", credentials: credentials)
            )
            try store.close()
            let oldKey = try keyFile(live)

            let bad = root.appending(path: "bad.key").path
            try Data("not a key\n".utf8).write(to: URL(fileURLWithPath: bad))
            let refused = await #expect(throws: ValidationError.self) {
                try await runOperatorCommand(["keys", "rotate-master", "--new-key-file", bad, "--data-dir", live])
            }
            #expect(refused?.message.contains("invalid_key") == true, "\(String(describing: refused))")
            #expect(try keyFile(live) == oldKey)

            let supplied = root.appending(path: "new.key").path
            let newKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            try Data((newKey + "\n").utf8).write(to: URL(fileURLWithPath: supplied))
            let lines = try await runOperatorCommand(["keys", "rotate-master", "--new-key-file", supplied, "--data-dir", live])
            #expect(lines.contains("credentials\tresealed\t1\talready\t0"), "\(lines)")
            #expect(try keyFile(live) == newKey)
            // The same key again resumes; another one is refused while this rotation is open.
            _ = try await runOperatorCommand(["keys", "rotate-master", "--new-key-file", supplied, "--data-dir", live])
            let other = root.appending(path: "other.key").path
            try Data((Data(repeating: 7, count: 32).base64EncodedString() + "\n").utf8).write(to: URL(fileURLWithPath: other))
            let inProgress = await #expect(throws: ValidationError.self) {
                try await runOperatorCommand(["keys", "rotate-master", "--new-key-file", other, "--data-dir", live])
            }
            #expect(inProgress?.message.contains("rotation_in_progress") == true, "\(String(describing: inProgress))")

            _ = try await runOperatorCommand(["keys", "rotate-master", "--finish", "--data-dir", live])
            let reopened = try await StoreOptions.parse(["--data-dir", live]).openStore()
            #expect(try await reopened.credentials(tenantId: tenant.id, connectionId: connection.id) == credentials)
            try reopened.close()
        }
    }
}
