import Foundation
import GatewayCore
import Synchronization
import Testing

@testable import GatewayApp

/// Issue 27, N2 and N9, in the small: the hashing slots shared between tenants (``HashingGate``) and the login
/// guard's lockout and rates (``LoginGuard``).
@Suite("Logins: hashing shares per tenant, lockout per client address, rates", .timeLimit(.minutes(1)))
struct LoginLimitsTests {
    /// A body that runs until the test lets it go, and says when it has started.
    final class Held: Sendable {
        private let state = Mutex<(started: Bool, release: CheckedContinuation<Void, Never>?, released: Bool)>((false, nil, false))
        let (startedStream, startedSink) = AsyncStream.makeStream(of: Void.self)

        func body() async {
            startedSink.yield()
            await withCheckedContinuation { continuation in
                let already = state.withLock { state -> Bool in
                    if state.released { return true }
                    state.release = continuation
                    return false
                }
                if already { continuation.resume() }
            }
        }

        func started() async {
            var iterator = startedStream.makeAsyncIterator()
            _ = await iterator.next()
        }

        func release() {
            let continuation = state.withLock { state in
                state.released = true
                defer { state.release = nil }
                return state.release
            }
            continuation?.resume()
        }
    }

    /// The order the hashes ran in.
    final class Order: Sendable {
        private let list = Mutex<[String]>([])
        var names: [String] { list.withLock { $0 } }
        func append(_ name: String) { list.withLock { $0.append(name) } }
    }

    /// Waits until the gate has queued `count` of the tenant's hashes (the queue is entered on another task).
    func waitForQueue(_ gate: HashingGate, _ tenant: String, _ count: Int) async {
        while gate.load(tenant: tenant).waiting < count { await Task.yield() }
    }

    @Test("a tenant holding its share with its queue full is refused at once, while another tenant's hash runs")
    func shareAndQueue() async throws {
        let gate = HashingGate(
            limits: LoginLimits(
                hashingSlots: 2,
                hashingSlotsPerTenant: 1,
                hashingQueuePerTenant: 1,
                hashingWait: .seconds(3600)
            )
        )
        let held = Held()
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Whatever fails below, the held hash ends, so the group does too.
            defer { held.release() }
            group.addTask { try await gate.run(tenant: "A") { await held.body() } }
            await held.started()
            group.addTask { try await gate.run(tenant: "A") {} }
            await waitForQueue(gate, "A", 1)
            // A's share (1) and queue (1) are full: the next is refused now, not after the hour-long wait.
            await #expect(throws: GatewayError.self) { try await gate.run(tenant: "A") {} }
            do {
                try await gate.run(tenant: "A") {}
            } catch let error as GatewayError {
                #expect(error.code == .rateLimited && error.retryAfter == 1)
            }
            // Another tenant takes the second slot while A's first hash is still running.
            let ran = try await gate.run(tenant: "B") { true }
            #expect(ran)
            #expect(gate.load(tenant: "A") == (1, 1))
            held.release()
            try await group.waitForAll()
        }
        #expect(gate.load(tenant: "A") == (0, 0) && gate.load(tenant: "B") == (0, 0))
    }

    @Test("a freed slot goes to the tenants with waiters in turn, not first come first served")
    func roundRobin() async throws {
        let gate = HashingGate(
            limits: LoginLimits(
                hashingSlots: 1,
                hashingSlotsPerTenant: 1,
                hashingQueuePerTenant: 5,
                hashingWait: .seconds(3600)
            )
        )
        let held = Held()
        let order = Order()
        try await withThrowingTaskGroup(of: Void.self) { group in
            defer { held.release() }
            group.addTask { try await gate.run(tenant: "X") { await held.body() } }
            await held.started()
            for (index, name) in ["A1", "A2", "A3"].enumerated() {
                group.addTask { try await gate.run(tenant: "A") { order.append(name) } }
                await waitForQueue(gate, "A", index + 1)
            }
            group.addTask { try await gate.run(tenant: "B") { order.append("B1") } }
            await waitForQueue(gate, "B", 1)
            held.release()
            try await group.waitForAll()
        }
        #expect(order.names == ["A1", "B1", "A2", "A3"])
    }

    @Test("a queued hash that finds no slot within the wait is refused, and its place is given back")
    func waitRunsOut() async throws {
        let gate = HashingGate(
            limits: LoginLimits(
                hashingSlots: 1,
                hashingSlotsPerTenant: 1,
                hashingQueuePerTenant: 2,
                hashingWait: .milliseconds(50)
            )
        )
        let held = Held()
        try await withThrowingTaskGroup(of: Void.self) { group in
            defer { held.release() }
            group.addTask { try await gate.run(tenant: "A") { await held.body() } }
            await held.started()
            await #expect(throws: GatewayError.self) { try await gate.run(tenant: "A") {} }
            #expect(gate.load(tenant: "A") == (1, 0))
            held.release()
            try await group.waitForAll()
        }
        #expect(try await gate.run(tenant: "A") { true })
    }

    @Test("failures lock out one (address, tenant, email), known or not; another address is not locked out; success forgets")
    func lockoutPerAddress() throws {
        let guardian = LoginGuard(limits: LoginLimits(perAddressPerMinute: 1000, perAddressBurst: 1000, failuresBeforeLockout: 3))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for _ in 0..<3 {
            try guardian.admit(address: "10.0.0.1", tenantId: "ten_a", email: "ann@example.com", now: now)
            guardian.recordFailure(address: "10.0.0.1", tenantId: "ten_a", email: "ann@example.com", now: now)
        }
        #expect(throws: GatewayError.self) {
            try guardian.admit(address: "10.0.0.1", tenantId: "ten_a", email: "ann@example.com", now: now)
        }
        do {
            try guardian.admit(address: "10.0.0.1", tenantId: "ten_a", email: "ann@example.com", now: now)
        } catch let error as GatewayError {
            #expect(error.code == .rateLimited && error.retryAfter == 30)
        }
        // Another address, another email, another tenant: all free.
        try guardian.admit(address: "10.0.0.2", tenantId: "ten_a", email: "ann@example.com", now: now)
        try guardian.admit(address: "10.0.0.1", tenantId: "ten_a", email: "bob@example.com", now: now)
        try guardian.admit(address: "10.0.0.1", tenantId: "ten_b", email: "ann@example.com", now: now)
        // The lockout ends; one more failure locks it again for twice as long.
        try guardian.admit(address: "10.0.0.1", tenantId: "ten_a", email: "ann@example.com", now: now.addingTimeInterval(31))
        guardian.recordFailure(address: "10.0.0.1", tenantId: "ten_a", email: "ann@example.com", now: now.addingTimeInterval(31))
        do {
            try guardian.admit(address: "10.0.0.1", tenantId: "ten_a", email: "ann@example.com", now: now.addingTimeInterval(32))
            Issue.record("a fourth failure did not lock again")
        } catch let error as GatewayError {
            #expect(error.retryAfter == 59)
        }
        guardian.recordSuccess(address: "10.0.0.1", tenantId: "ten_a", email: "ann@example.com")
        try guardian.admit(address: "10.0.0.1", tenantId: "ten_a", email: "ann@example.com", now: now.addingTimeInterval(33))
    }

    @Test("an address's and an email's rates are each limited, with the seconds until a token is back")
    func rates() throws {
        let guardian = LoginGuard(limits: LoginLimits(perAddressPerMinute: 6, perAddressBurst: 2, perEmailPerMinute: 60, perEmailBurst: 3))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try guardian.admit(address: "10.0.0.1", tenantId: "ten_a", email: "a@example.com", now: now)
        try guardian.admit(address: "10.0.0.1", tenantId: "ten_a", email: "b@example.com", now: now)
        do {
            try guardian.admit(address: "10.0.0.1", tenantId: "ten_a", email: "c@example.com", now: now)
            Issue.record("the address's burst was not enforced")
        } catch let error as GatewayError {
            #expect(error.code == .rateLimited && error.retryAfter == 10)
        }
        try guardian.admit(address: "10.0.0.1", tenantId: "ten_a", email: "c@example.com", now: now.addingTimeInterval(10))
        // One email from many addresses.
        try guardian.admit(address: "10.0.0.2", tenantId: "ten_a", email: "z@example.com", now: now)
        try guardian.admit(address: "10.0.0.3", tenantId: "ten_a", email: "z@example.com", now: now)
        try guardian.admit(address: "10.0.0.4", tenantId: "ten_a", email: "z@example.com", now: now)
        #expect(throws: GatewayError.self) { try guardian.admit(address: "10.0.0.5", tenantId: "ten_a", email: "z@example.com", now: now) }
    }

    @Test("the lockout table stays bounded whatever the number of addresses")
    func bounded() throws {
        let guardian = LoginGuard(limits: LoginLimits(perAddressPerMinute: 1, perAddressBurst: 1, lockoutEntries: 100))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for index in 0..<1_000 {
            try guardian.admit(address: "10.0.\(index / 256).\(index % 256)", tenantId: "ten_a", email: "x\(index)@example.com", now: now)
            guardian.recordFailure(address: "10.0.\(index / 256).\(index % 256)", tenantId: "ten_a", email: "x\(index)@example.com", now: now)
        }
        let (buckets, failures) = guardian.entryCount
        #expect(buckets <= 202 && failures <= 100, "\(buckets) buckets, \(failures) failures")
    }
}
