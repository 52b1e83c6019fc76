public enum OrderSide: String, WireEnum {
    case buy, sell
    case sellShort = "sell_short"
    case buyToCover = "buy_to_cover"

    /// Whether the order adds to (buy, buy to cover) or takes from (sell, sell short) the position.
    public var isBuy: Bool { self == .buy || self == .buyToCover }
}
