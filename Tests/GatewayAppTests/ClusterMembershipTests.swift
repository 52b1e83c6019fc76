import Foundation
import GatewayCore
import GatewaySQLiteStore
import GatewayStore
import Logging
import Testing

@testable import GatewayApp

/// How instances on one database learn how many of them share each broker's rate limits (two stores on one SQLite
/// file stand for two processes; the leases' SQL is tested on both backends in GatewayStoreTests).
@Suite("Cluster membership")
struct ClusterMembershipTests {
    @Test("each instance's share follows the live members: a new one halves it, a dead one's lapse restores it, a leave is seen at once")
    func sharesFollowMembers() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "ClusterMembership-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appending(path: "gateway.sqlite").path(percentEncoded: false)
        let cipher = CredentialCipher.random()
        let first = try await SQLiteStore.opening(path: path, cipher: cipher)
        let second = try await SQLiteStore.opening(path: path, cipher: cipher)
        let logger = Logger(label: "test")
        let shareA = InstanceShare()
        let shareB = InstanceShare()
        let a = ClusterMembership(leases: first, share: shareA, ttl: .seconds(15), holder: "a", logger: logger)
        let b = ClusterMembership(leases: second, share: shareB, ttl: .seconds(15), holder: "b", logger: logger)
        let start = Date(timeIntervalSince1970: 1_800_000_000)

        #expect(await a.beat(now: start) == 1)
        #expect(shareA.instances == 1)
        #expect(await b.beat(now: start.addingTimeInterval(1)) == 2)
        #expect(shareB.instances == 2)
        #expect(await a.beat(now: start.addingTimeInterval(5)) == 2)
        #expect(shareA.instances == 2)
        // b dies after its beat at +1 s: its lease lapses at +16 s.
        #expect(await a.beat(now: start.addingTimeInterval(10)) == 2)
        #expect(await a.beat(now: start.addingTimeInterval(16)) == 1)
        #expect(shareA.instances == 1)
        // b comes back, then leaves cleanly: a sees it at its next beat, without waiting for a lapse.
        #expect(await b.beat(now: start.addingTimeInterval(17)) == 2)
        #expect(await a.beat(now: start.addingTimeInterval(18)) == 2)
        await b.leave()
        #expect(await a.beat(now: start.addingTimeInterval(19)) == 1)
        try first.close()
        try second.close()
    }

    @Test("an instance that cannot reach its store keeps the share it had")
    func unreachableStoreKeepsTheShare() async throws {
        let store = try SQLiteStore(inMemoryWith: .random())
        try store.close()
        let share = InstanceShare(instances: 3)
        let membership = ClusterMembership(leases: store, share: share, holder: "a", logger: Logger(label: "test"))
        #expect(await membership.beat() == nil)
        #expect(share.instances == 3)
    }
}
