import Synchronization

/// How many gateway instances share each connection's rate-limit budgets: the pipeline paces this instance's calls
/// within `1 / instances` of every budget, so the brokers' limits are shared by a cluster, not multiplied by it.
///
/// A broker counts calls per credential (per connection), whichever instance sends them. Two instances that each
/// paced calls within the whole budget would together send twice the broker's limit and meet its 429s. One in-process
/// gateway keeps the default, 1; several on one database learn the count from the store (`ClusterMembership` in
/// GatewayApp sets it from the instances' membership leases), so every instance paces within its share.
///
/// The count is read on every reservation: a change (an instance joins or dies) re-scales every bucket at its next
/// call. Between an instance starting and the others' next membership beat, the cluster can briefly use more than its
/// budget; the reserve each bucket keeps (`PipelineSettings.rateLimitReserve`) and the broker's own headers, which
/// count every instance's calls, absorb that.
public final class InstanceShare: Sendable {
    private let count: Atomic<Int>

    /// A share among `instances` (at least 1); the default, 1, is a gateway alone with its brokers.
    public init(instances: Int = 1) {
        count = Atomic(max(1, instances))
    }

    /// Instances sharing the budgets now, at least 1.
    public var instances: Int { count.load(ordering: .relaxed) }

    /// Sets the number of instances (at least 1); `true` when it changed.
    @discardableResult
    public func set(instances: Int) -> Bool {
        count.exchange(max(1, instances), ordering: .relaxed) != max(1, instances)
    }
}
