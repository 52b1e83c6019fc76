/// Where an order's view comes from, when it is not the broker's answer of the moment.
public enum OrderSource: String, WireEnum {
    /// The broker's own report of the order.
    case broker
    /// The broker no longer reports this order (it left the broker's lists, or the broker now uses its id for another
    /// order): this is the journal's last confirmed state, as of `updatedAt`.
    case journal
}
