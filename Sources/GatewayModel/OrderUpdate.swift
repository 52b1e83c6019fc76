public import Foundation

/// One change of one of the user's orders, as the stream (`GET /v1/stream`, event `order`) and the order alerts see
/// it. Each comes from an event of the order journal, so an update is never lost between a change and its delivery:
/// a client that reconnects with `Last-Event-ID` is sent every update after the one it last saw.
public struct OrderUpdate: Codable, Sendable, Hashable {
    /// What happened, in the order's own terms.
    public enum Kind: String, WireEnum {
        /// The broker accepted the order.
        case placed
        case partiallyFilled = "partially_filled"
        case filled
        case canceled
        case rejected
        case expired
        /// The order was changed (or replaced by a new one at the broker).
        case modified
        /// An order whose outcome was unknown was found at the broker. (One proven never to have arrived there is
        /// `rejected`, with the reason in `detail`.)
        case reconciled
        /// The broker's answer was lost: the gateway is finding out whether it has the order.
        case unknown
        /// Nothing reached the broker, or it refused before acting: the order is not there, its key released.
        case released
        /// Any other change of the broker's status (pending cancel, a modification or cancel refused).
        case statusChanged = "status_changed"
    }

    /// What happened to the order.
    public var kind: Kind
    /// The gateway's order id.
    public var orderId: String
    /// The gateway connection (`conn_…`) of the order.
    public var connectionId: String
    /// The dialect of that connection's broker, where the journal knows it.
    public var broker: BrokerKind?
    /// The broker's order status after the change, where known.
    public var status: OrderStatus?
    /// The order as the journal holds it now (a replayed update carries the order's latest state, and `status`
    /// the status right after this change), where the broker has it.
    public var order: Order?
    /// Human-readable detail (a rejection's reason, say); never a secret.
    public var detail: String?
    /// When the gateway's journal recorded the change.
    public var at: Date

    /// An update of the order `orderId`, as the journal's event says.
    public init(
        kind: Kind,
        orderId: String,
        connectionId: String,
        broker: BrokerKind? = nil,
        status: OrderStatus? = nil,
        order: Order? = nil,
        detail: String? = nil,
        at: Date
    ) {
        self.kind = kind
        self.orderId = orderId
        self.connectionId = connectionId
        self.broker = broker
        self.status = status
        self.order = order
        self.detail = detail
        self.at = at
    }
}
