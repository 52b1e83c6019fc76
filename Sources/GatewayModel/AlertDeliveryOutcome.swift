/// How one delivery attempt ended: `delivered` (the receiver took it: a 2xx status), `retrying` or `failed`.
public enum AlertDeliveryOutcome: String, WireEnum {
    case delivered
    /// Failed and tried again (the next attempt has its own entry).
    case retrying
    /// Failed for good: no attempt follows.
    case failed
}
