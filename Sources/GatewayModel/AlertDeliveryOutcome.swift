public enum AlertDeliveryOutcome: String, WireEnum {
    case delivered
    /// Failed and tried again (the next attempt has its own entry).
    case retrying
    /// Failed for good: no attempt follows.
    case failed
}
