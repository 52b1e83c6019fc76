/// What an order alert waits for.
public enum AlertOrderEvent: String, WireEnum {
    /// The order was filled (an update `filled`, or `reconciled` with status filled).
    case filled
    /// The broker rejected the order (an update `rejected`, or `reconciled` with status rejected).
    case rejected
    /// The order's outcome stayed unknown for longer than `unknownForSeconds`.
    case unknown
}
