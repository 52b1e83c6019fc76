/// How an order is priced: `market` (at the market's price), `limit` (at `limitPrice` or better), `stop` (a market
/// order once `stopPrice` is reached) and `stop_limit` (a limit order at `limitPrice` once `stopPrice` is reached).
public enum OrderType: String, WireEnum {
    case market, limit, stop
    case stopLimit = "stop_limit"

    /// Whether an order of this type carries a `limitPrice` (`limit`, `stop_limit`): required then, refused otherwise.
    public var needsLimitPrice: Bool { self == .limit || self == .stopLimit }
    /// Whether an order of this type carries a `stopPrice` (`stop`, `stop_limit`): required then, refused otherwise.
    public var needsStopPrice: Bool { self == .stop || self == .stopLimit }
}
