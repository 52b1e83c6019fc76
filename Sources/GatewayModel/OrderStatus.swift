/// The gateway's order states. Closed: every broker state maps to exactly one of these.
public enum OrderStatus: String, WireEnum {
    case pendingNew = "pending_new"
    case open
    case partiallyFilled = "partially_filled"
    case filled
    case canceled
    case rejected
    case expired
    case pendingCancel = "pending_cancel"
    case replaced
    /// The gateway sent the order but could not learn whether the broker took it (a timeout, a dropped
    /// connection, a 5xx after possibly acting). Not a broker state: reconciliation replaces it with the
    /// broker's truth. Do not retry blindly; read the order again.
    case unknown

    /// Whether the order can still trade or change.
    public var isActive: Bool {
        switch self {
        case .pendingNew, .open, .partiallyFilled, .pendingCancel, .unknown: true
        case .filled, .canceled, .rejected, .expired, .replaced: false
        }
    }
}
