public enum TimeInForce: String, WireEnum {
    case day, gtc, ioc, fok, gtd
}
