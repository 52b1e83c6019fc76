public enum OrderType: String, WireEnum {
    case market, limit, stop
    case stopLimit = "stop_limit"

    public var needsLimitPrice: Bool { self == .limit || self == .stopLimit }
    public var needsStopPrice: Bool { self == .stop || self == .stopLimit }
}
