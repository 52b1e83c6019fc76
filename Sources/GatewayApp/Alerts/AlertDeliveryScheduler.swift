/// Which alert deliveries start next, so that no tenant and no receiver can take every delivery slot (issue 27, N4).
///
/// One FIFO queue per tenant, served round-robin: each start goes to the next tenant in turn that has a delivery it may
/// start, so a tenant with thousands waiting gets one start per round like a tenant with one. A delivery starts only
/// while fewer than `total` run, fewer than `perTenant` of its tenant's and fewer than `perDestination` to its receiver;
/// within a tenant's queue the first whose receiver has room goes (one hanging host holds up only what goes to it).
/// Each tenant may have `pendingPerTenant` deliveries queued, running or waiting for a retry; a new one past that is
/// refused, so a full queue costs only its own tenant.
///
/// Pure state, no I/O and no clock: `AlertEngine` keeps it under a lock and runs what `next()` hands out.
struct AlertDeliveryScheduler<Item: Sendable>: Sendable {
    struct Limits: Sendable, Equatable {
        /// Deliveries running at once, across tenants.
        var total: Int
        /// Deliveries of one tenant running at once.
        var perTenant: Int
        /// Deliveries to one receiver (a webhook's host and port, APNs) running at once.
        var perDestination: Int
        /// Deliveries of one tenant queued, running or waiting for a retry.
        var pendingPerTenant: Int

        init(total: Int, perTenant: Int, perDestination: Int, pendingPerTenant: Int) {
            self.total = max(1, total)
            self.perTenant = max(1, perTenant)
            self.perDestination = max(1, perDestination)
            self.pendingPerTenant = max(1, pendingPerTenant)
        }
    }

    /// A delivery, whose it is and where it goes.
    struct Entry: Sendable {
        var item: Item
        var tenant: String
        var destination: String
    }

    let limits: Limits
    private var queues: [String: [Entry]] = [:]
    /// The tenants with queued deliveries in the order they are served; `cursor` is the one offered the next start.
    private var rotation: [String] = []
    private var cursor = 0
    private(set) var running = 0
    private var runningByTenant: [String: Int] = [:]
    private var runningByDestination: [String: Int] = [:]
    private var pendingByTenant: [String: Int] = [:]

    init(limits: Limits) {
        self.limits = limits
    }

    /// The tenant's deliveries queued, running or waiting for a retry.
    func pending(tenant: String) -> Int { pendingByTenant[tenant, default: 0] }

    /// The tenant's deliveries waiting for a slot.
    func queued(tenant: String) -> Int { queues[tenant]?.count ?? 0 }

    /// Admits a new delivery at the back of its tenant's queue; `false`, and nothing changes, when the tenant already
    /// has `pendingPerTenant` (the caller drops it: the newest goes, never another tenant's).
    mutating func enqueue(_ entry: Entry) -> Bool {
        guard pending(tenant: entry.tenant) < limits.pendingPerTenant else { return false }
        pendingByTenant[entry.tenant, default: 0] += 1
        insert(entry, atFront: false)
        return true
    }

    /// A delivery whose retry is due: at the front of its tenant's queue (it is older than what waits there). It was
    /// admitted before and still counts as pending, so it is never refused.
    mutating func requeue(_ entry: Entry) {
        insert(entry, atFront: true)
    }

    /// The next delivery to start, now counted as running; `nil` when none may start (all slots taken, or every
    /// queued delivery's tenant or receiver at its limit).
    mutating func next() -> Entry? {
        guard running < limits.total, !rotation.isEmpty else { return nil }
        for offset in 0..<rotation.count {
            let index = (cursor + offset) % rotation.count
            let tenant = rotation[index]
            guard runningByTenant[tenant, default: 0] < limits.perTenant,
                let position = queues[tenant]?.firstIndex(where: { runningByDestination[$0.destination, default: 0] < limits.perDestination }),
                let entry = queues[tenant]?.remove(at: position)
            else { continue }
            running += 1
            runningByTenant[tenant, default: 0] += 1
            runningByDestination[entry.destination, default: 0] += 1
            if queues[tenant]?.isEmpty ?? true {
                queues[tenant] = nil
                rotation.remove(at: index)
                // The tenant after it has moved into `index`: it is next.
                cursor = rotation.isEmpty ? 0 : index % rotation.count
            } else {
                cursor = (index + 1) % rotation.count
            }
            return entry
        }
        return nil
    }

    /// A started delivery's slot is free again. `retrying`: it still counts as pending while it waits for its
    /// backoff (then `requeue`, or `abandon` if it never comes back).
    mutating func release(_ entry: Entry, retrying: Bool) {
        running = max(0, running - 1)
        Self.decrement(&runningByTenant, entry.tenant)
        Self.decrement(&runningByDestination, entry.destination)
        if !retrying { Self.decrement(&pendingByTenant, entry.tenant) }
    }

    /// A delivery waiting for its retry that will not run again (the engine is stopping).
    mutating func abandon(tenant: String) {
        Self.decrement(&pendingByTenant, tenant)
    }

    private mutating func insert(_ entry: Entry, atFront: Bool) {
        if queues[entry.tenant] == nil {
            // A tenant that starts waiting is served after every tenant already waiting: it joins just before the
            // cursor, the end of the current round.
            rotation.insert(entry.tenant, at: cursor)
            cursor += 1
        }
        if atFront {
            queues[entry.tenant, default: []].insert(entry, at: 0)
        } else {
            queues[entry.tenant, default: []].append(entry)
        }
    }

    private static func decrement(_ counts: inout [String: Int], _ key: String) {
        let left = counts[key, default: 0] - 1
        counts[key] = left > 0 ? left : nil
    }
}
