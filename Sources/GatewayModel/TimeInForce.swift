/// How long an order stays working: `day` (until the end of the trading day), `gtc` (good till canceled), `ioc`
/// (immediate or cancel: what cannot fill at once is canceled), `fok` (fill or kill: all at once or nothing) and `gtd`
/// (good till `expiresAt`). Which of them a broker takes is its adapter's declaration (`GET /v1/brokers`).
public enum TimeInForce: String, WireEnum {
    case day, gtc, ioc, fok, gtd
}
