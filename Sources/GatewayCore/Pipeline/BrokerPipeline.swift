public import CoreMetrics
public import GatewayModel

/// The chain every adapter's HTTP call passes through, and what it measures per connection.
///
/// (Skeleton: the chain itself lands with issue #11's pipeline work.)
public final class BrokerPipeline: Sendable {
    /// Where the pipeline's metrics go: a Prometheus registry's factory in the server, a no-op one by default.
    public let metrics: any MetricsFactory

    public init(metrics: any MetricsFactory = NOOPMetricsHandler.instance) {
        self.metrics = metrics
    }

    /// One connection's health over the last five minutes.
    public func health(connectionId: String, broker: BrokerKind) -> ConnectionHealth {
        ConnectionHealth(connectionId: connectionId, broker: broker)
    }
}
