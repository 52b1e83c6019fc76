/// Which way an order trades: `buy`, `sell`, `sell_short` (sell what the account does not hold, opening a short) and
/// `buy_to_cover` (buy back what was sold short).
public enum OrderSide: String, WireEnum {
    case buy, sell
    case sellShort = "sell_short"
    case buyToCover = "buy_to_cover"

    /// Whether the order adds to (buy, buy to cover) or takes from (sell, sell short) the position.
    public var isBuy: Bool { self == .buy || self == .buyToCover }
}
