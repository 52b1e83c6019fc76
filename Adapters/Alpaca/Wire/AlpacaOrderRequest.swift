/// The body of `POST /v2/orders`. Decimals go out as strings, never as JSON numbers.
/// Exactly one of `qty` and `notional` is set; the other is left out (Alpaca refuses both).
struct AlpacaOrderRequest: Encodable, Sendable {
    var symbol: String
    var qty: String?
    var notional: String?
    var side: String
    var type: String
    var timeInForce: String
    var limitPrice: String?
    var stopPrice: String?
    var clientOrderId: String

    enum CodingKeys: String, CodingKey {
        case symbol, qty, notional, side, type
        case timeInForce = "time_in_force"
        case limitPrice = "limit_price"
        case stopPrice = "stop_price"
        case clientOrderId = "client_order_id"
    }
}

/// The body of `PATCH /v2/orders/{id}`: only the fields that change.
struct AlpacaReplaceRequest: Encodable, Sendable {
    var qty: String?
    var timeInForce: String?
    var limitPrice: String?
    var stopPrice: String?

    enum CodingKeys: String, CodingKey {
        case qty
        case timeInForce = "time_in_force"
        case limitPrice = "limit_price"
        case stopPrice = "stop_price"
    }
}
