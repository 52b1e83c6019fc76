import Testing

@testable import GatewayApp

@Suite("Alert delivery scheduler: tenants served round-robin, shares per tenant and per receiver, bounded queues")
struct AlertDeliverySchedulerTests {
    typealias Scheduler = AlertDeliveryScheduler<String>

    static func scheduler(total: Int = 100, perTenant: Int = 100, perDestination: Int = 100, pending: Int = 100) -> Scheduler {
        Scheduler(limits: .init(total: total, perTenant: perTenant, perDestination: perDestination, pendingPerTenant: pending))
    }

    static func entry(_ item: String, _ tenant: String, to destination: String = "hooks.example:443") -> Scheduler.Entry {
        Scheduler.Entry(item: item, tenant: tenant, destination: destination)
    }

    /// Starts deliveries until none may start; their items in the order they started.
    static func drain(_ scheduler: inout Scheduler) -> [String] {
        var started: [String] = []
        while let entry = scheduler.next() { started.append(entry.item) }
        return started
    }

    @Test("two tenants' queues are served in turn, whatever their lengths; each in its own order")
    func roundRobin() {
        var scheduler = Self.scheduler()
        let admitted =
            ["a1", "a2", "a3", "a4"].map { scheduler.enqueue(Self.entry($0, "A")) } + ["b1", "b2"].map { scheduler.enqueue(Self.entry($0, "B")) }
        #expect(admitted.allSatisfy { $0 })
        #expect(Self.drain(&scheduler) == ["a1", "b1", "a2", "b2", "a3", "a4"])
    }

    @Test("a tenant that starts waiting is served after those already waiting, then in turn")
    func lateTenantJoinsTheRound() {
        var scheduler = Self.scheduler()
        for item in ["a1", "a2", "a3"] { _ = scheduler.enqueue(Self.entry(item, "A")) }
        for item in ["b1", "b2"] { _ = scheduler.enqueue(Self.entry(item, "B")) }
        let first = scheduler.next()
        #expect(first?.item == "a1")
        for item in ["c1", "c2"] { _ = scheduler.enqueue(Self.entry(item, "C")) }
        #expect(Self.drain(&scheduler) == ["b1", "a2", "c1", "b2", "a3", "c2"])
    }

    @Test("a tenant at its share waits while another tenant's delivery starts; a slot it frees is its own again")
    func perTenantShare() {
        var scheduler = Self.scheduler(total: 4, perTenant: 2)
        for index in 1...6 { _ = scheduler.enqueue(Self.entry("a\(index)", "A", to: "hang.example:443")) }
        let first = Self.drain(&scheduler)
        #expect(first == ["a1", "a2"])
        #expect(scheduler.running == 2 && scheduler.queued(tenant: "A") == 4)
        // B's alert, queued behind A's four, starts at once.
        _ = scheduler.enqueue(Self.entry("b1", "B", to: "b.example:443"))
        #expect(Self.drain(&scheduler) == ["b1"])
        scheduler.release(Self.entry("a1", "A", to: "hang.example:443"), retrying: false)
        #expect(Self.drain(&scheduler) == ["a3"])
    }

    @Test("all slots taken: nothing starts until one is released, then the next tenant in turn")
    func totalSlots() {
        var scheduler = Self.scheduler(total: 2)
        for item in ["a1", "a2", "a3"] { _ = scheduler.enqueue(Self.entry(item, "A", to: "a\(item):443")) }
        _ = scheduler.enqueue(Self.entry("b1", "B"))
        #expect(Self.drain(&scheduler) == ["a1", "b1"])
        scheduler.release(Self.entry("b1", "B"), retrying: false)
        #expect(Self.drain(&scheduler) == ["a2"])
    }

    @Test("a receiver at its share holds up only what goes to it: the tenant's next delivery elsewhere starts")
    func perDestinationShare() {
        var scheduler = Self.scheduler(perDestination: 1)
        _ = scheduler.enqueue(Self.entry("a1", "A", to: "slow.example:443"))
        _ = scheduler.enqueue(Self.entry("a2", "A", to: "slow.example:443"))
        _ = scheduler.enqueue(Self.entry("a3", "A", to: "fast.example:443"))
        _ = scheduler.enqueue(Self.entry("b1", "B", to: "slow.example:443"))
        #expect(Self.drain(&scheduler) == ["a1", "a3"])
        scheduler.release(Self.entry("a1", "A", to: "slow.example:443"), retrying: false)
        // Round-robin: B is next in turn for the freed receiver.
        #expect(Self.drain(&scheduler) == ["b1"])
    }

    @Test("a tenant's full queue refuses its own newest delivery, never another tenant's")
    func boundedPerTenant() {
        var scheduler = Self.scheduler(total: 1, pending: 3)
        let admitted = ["a1", "a2", "a3", "a4"].map { scheduler.enqueue(Self.entry($0, "A")) }
        #expect(admitted == [true, true, true, false])
        #expect(scheduler.pending(tenant: "A") == 3 && scheduler.queued(tenant: "A") == 3)
        let other = scheduler.enqueue(Self.entry("b1", "B"))
        #expect(other)
        #expect(Self.drain(&scheduler) == ["a1"])
        // A running delivery still counts; a finished one makes room.
        let whileRunning = scheduler.enqueue(Self.entry("a4", "A"))
        scheduler.release(Self.entry("a1", "A"), retrying: false)
        let afterRelease = scheduler.enqueue(Self.entry("a4", "A"))
        #expect(!whileRunning && afterRelease)
        #expect(Self.drain(&scheduler) == ["b1"])
    }

    @Test("a retry waiting for its backoff holds no slot but stays pending; requeued, it goes before its tenant's newer ones")
    func retryHoldsNoSlot() {
        var scheduler = Self.scheduler(total: 1, pending: 2)
        _ = scheduler.enqueue(Self.entry("a1", "A"))
        _ = scheduler.enqueue(Self.entry("a2", "A"))
        let first = scheduler.next()
        #expect(first?.item == "a1")
        scheduler.release(Self.entry("a1", "A"), retrying: true)
        #expect(scheduler.running == 0 && scheduler.pending(tenant: "A") == 2)
        let refused = !scheduler.enqueue(Self.entry("a3", "A"))
        #expect(refused)
        let second = scheduler.next()
        #expect(second?.item == "a2")
        scheduler.release(Self.entry("a2", "A"), retrying: false)
        _ = scheduler.enqueue(Self.entry("a3", "A"))
        scheduler.requeue(Self.entry("a1 again", "A"))
        #expect(Self.drain(&scheduler) == ["a1 again"])
        scheduler.release(Self.entry("a1 again", "A"), retrying: true)
        scheduler.abandon(tenant: "A")
        #expect(scheduler.pending(tenant: "A") == 1)
        #expect(Self.drain(&scheduler) == ["a3"])
    }
}
