import Foundation
import GatewayCore
import GatewaySQLiteStore
import GatewayStore
import Logging
import Testing

@testable import GatewayApp

/// The reconciler's leadership among instances on one database (two stores on one SQLite file stand for two
/// processes; the PostgreSQL lease itself is tested in GatewayStoreTests on both backends).
@Suite("Reconciler leadership")
struct ReconcilerLeadershipTests {
    @Test("one instance leads; when it stops renewing, another takes over at the end of the ttl; a release hands over at once")
    func takeOver() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "ReconcilerLeadership-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appending(path: "gateway.sqlite").path(percentEncoded: false)
        let cipher = CredentialCipher.random()
        let first = try await SQLiteStore.opening(path: path, cipher: cipher)
        let second = try await SQLiteStore.opening(path: path, cipher: cipher)
        let logger = Logger(label: "test")
        let a = ReconcilerLeadership(leases: first, ttl: .seconds(10), holder: "a", logger: logger)
        let b = ReconcilerLeadership(leases: second, ttl: .seconds(10), holder: "b", logger: logger)
        let start = Date(timeIntervalSince1970: 1_800_000_000)

        #expect(await a.lead(now: start))
        #expect(await !b.lead(now: start))
        // The leader renews on each pass; the follower keeps asking.
        #expect(await a.lead(now: start.addingTimeInterval(2)))
        #expect(await !b.lead(now: start.addingTimeInterval(11)))
        // a dies after its renewal at +2 s: its lease lapses at +12 s, and b's next pass takes it.
        #expect(await !b.lead(now: start.addingTimeInterval(11.999)))
        #expect(await b.lead(now: start.addingTimeInterval(12)))
        #expect(await !a.lead(now: start.addingTimeInterval(13)))
        // A clean shutdown hands over at once.
        await b.release()
        #expect(await a.lead(now: start.addingTimeInterval(14)))
        try first.close()
        try second.close()
    }

    @Test("an instance that cannot reach its store does not lead")
    func unreachableStoreDoesNotLead() async throws {
        let store = try SQLiteStore(inMemoryWith: .random())
        try store.close()
        let leadership = ReconcilerLeadership(leases: store, ttl: .seconds(10), holder: "a", logger: Logger(label: "test"))
        #expect(await !leadership.lead())
    }
}
