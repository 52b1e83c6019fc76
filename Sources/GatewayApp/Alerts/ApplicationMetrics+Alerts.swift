import CoreMetrics
import GatewayModel

extension ApplicationMetrics {
    /// An alert delivery its tenant's full queue refused (it is also in the alert's delivery log): by channel.
    func alertDeliveryDropped(channel: AlertChannel) {
        Counter(label: "brokergateway_alert_deliveries_dropped_total", dimensions: [("channel", channel.rawValue)], factory: factory)
            .increment()
    }
}
