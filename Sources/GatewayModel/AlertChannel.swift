/// The channel one delivery attempt used.
public enum AlertChannel: String, WireEnum {
    case webhook
    case apns
}
