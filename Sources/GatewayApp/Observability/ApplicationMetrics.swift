import CoreMetrics
import Foundation
import GatewayCore
import GatewayModel
import Synchronization

/// The application's own series, beside the broker-call pipeline's (`BrokerPipeline`): fan-outs in flight and their
/// partial answers, how reads were served, and the order pipeline. They go to the same factory as the pipeline's,
/// never to the global `MetricsSystem` (tests run many gateways in one process).
///
/// Labels are bounded sets: an operation, a broker kind, an outcome. Never a tenant, a connection or an account.
final class ApplicationMetrics: Sendable {
    let factory: any MetricsFactory
    private let fanOutsInFlight: Gauge
    private let inFlight = Atomic<Int>(0)
    private let awaitingReconciliation: Gauge
    private let reconciliationLag: Gauge

    init(factory: any MetricsFactory) {
        self.factory = factory
        fanOutsInFlight = Gauge(label: "brokergateway_fanouts_in_flight", factory: factory)
        awaitingReconciliation = Gauge(label: "brokergateway_orders_awaiting_reconciliation", factory: factory)
        reconciliationLag = Gauge(label: "brokergateway_reconciliation_lag_seconds", factory: factory)
        fanOutsInFlight.record(0)
        awaitingReconciliation.record(0)
        reconciliationLag.record(0)
    }

    /// Counts a fan-out for as long as `body` runs, then its answer: partial or whole, and how each source was served.
    func fanOut<Item>(operation: BrokerOperation, _ body: () async throws -> FanOut<Item>) async rethrows -> FanOut<Item> {
        fanOutsInFlight.record(inFlight.add(1, ordering: .relaxed).newValue)
        defer { fanOutsInFlight.record(inFlight.subtract(1, ordering: .relaxed).newValue) }
        let answer = try await body()
        Counter(
            label: "brokergateway_fanout_reads_total",
            dimensions: [("operation", operation.rawValue), ("partial", answer.partial ? "true" : "false")],
            factory: factory
        ).increment()
        for source in answer.sources {
            Counter(
                label: "brokergateway_source_reads_total",
                dimensions: [
                    ("broker", source.broker.rawValue), ("served", source.served?.rawValue ?? "none"),
                    ("outcome", source.error?.code.rawValue ?? "ok"),
                ],
                factory: factory
            ).increment()
        }
        return answer
    }

    /// One attempt to deliver an alert: its channel (`webhook`, `apns`) and outcome (`delivered`, `retrying`,
    /// `failed`).
    func alertDelivery(channel: AlertChannel, outcome: AlertDeliveryOutcome) {
        Counter(
            label: "brokergateway_alert_deliveries_total",
            dimensions: [("channel", channel.rawValue), ("outcome", outcome.rawValue)],
            factory: factory
        ).increment()
    }

    /// An alert fired: `price` or `order`.
    func alertFired(kind: AlertNotification.Kind) {
        Counter(label: "brokergateway_alerts_fired_total", dimensions: [("kind", kind.rawValue)], factory: factory).increment()
    }

    /// A placement's outcome: `accepted`, `rejected` or `unknown` (awaiting reconciliation).
    func placement(_ outcome: String) {
        Counter(label: "brokergateway_orders_total", dimensions: [("outcome", outcome)], factory: factory).increment()
    }

    /// After a reconciliation pass: how many orders still wait, and how long the oldest has waited.
    func reconciliation(pending: Int, oldest: Date?) {
        awaitingReconciliation.record(pending)
        reconciliationLag.record(oldest.map { max(0, Date().timeIntervalSince($0)) } ?? 0)
    }
}
