import Foundation
import GatewayModel

/// An order as Alpaca's Trading API v2 sends it (`GET/POST /v2/orders`, `PATCH /v2/orders/{id}`).
///
/// Decimals arrive as strings from the live API and as numbers in some recorded fixtures; both are parsed strictly.
/// Enum fields stay raw strings here: the mapping decides what each value means and rejects unknown ones.
struct AlpacaOrder: Decodable, Sendable {
    var id: String
    var clientOrderId: String
    var createdAt: Date?
    var updatedAt: Date?
    var submittedAt: Date?
    var filledAt: Date?
    var canceledAt: Date?
    var expiredAt: Date?
    var replacedBy: String?
    var replaces: String?
    var assetId: String?
    var symbol: String
    var assetClass: String?
    var notional: Decimal?
    var qty: Decimal?
    var filledQty: Decimal
    var filledAvgPrice: Decimal?
    var type: String
    var side: String
    var positionIntent: String?
    var timeInForce: String
    var limitPrice: Decimal?
    var stopPrice: Decimal?
    var status: String

    enum CodingKeys: String, CodingKey {
        case id, symbol, notional, qty, type, side, status
        case clientOrderId = "client_order_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case submittedAt = "submitted_at"
        case filledAt = "filled_at"
        case canceledAt = "canceled_at"
        case expiredAt = "expired_at"
        case replacedBy = "replaced_by"
        case replaces
        case assetId = "asset_id"
        case assetClass = "asset_class"
        case filledQty = "filled_qty"
        case filledAvgPrice = "filled_avg_price"
        case orderType = "order_type"
        case positionIntent = "position_intent"
        case timeInForce = "time_in_force"
        case limitPrice = "limit_price"
        case stopPrice = "stop_price"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        clientOrderId = try c.decode(String.self, forKey: .clientOrderId)
        createdAt = try c.decodeTimestampIfPresent(forKey: .createdAt)
        updatedAt = try c.decodeTimestampIfPresent(forKey: .updatedAt)
        submittedAt = try c.decodeTimestampIfPresent(forKey: .submittedAt)
        filledAt = try c.decodeTimestampIfPresent(forKey: .filledAt)
        canceledAt = try c.decodeTimestampIfPresent(forKey: .canceledAt)
        expiredAt = try c.decodeTimestampIfPresent(forKey: .expiredAt)
        replacedBy = try c.decodeIfPresent(String.self, forKey: .replacedBy)
        replaces = try c.decodeIfPresent(String.self, forKey: .replaces)
        assetId = try c.decodeIfPresent(String.self, forKey: .assetId)
        symbol = try c.decode(String.self, forKey: .symbol)
        assetClass = try c.decodeIfPresent(String.self, forKey: .assetClass)
        notional = try c.decodeDecimalIfPresent(forKey: .notional)
        qty = try c.decodeDecimalIfPresent(forKey: .qty)
        filledQty = try c.decodeDecimalIfPresent(forKey: .filledQty) ?? 0
        filledAvgPrice = try c.decodeDecimalIfPresent(forKey: .filledAvgPrice)
        // `order_type` is the deprecated copy of `type`; older payloads carry only one of them.
        if let type = try c.decodeIfPresent(String.self, forKey: .type) {
            self.type = type
        } else {
            type = try c.decode(String.self, forKey: .orderType)
        }
        side = try c.decode(String.self, forKey: .side)
        positionIntent = try c.decodeIfPresent(String.self, forKey: .positionIntent)
        timeInForce = try c.decode(String.self, forKey: .timeInForce)
        limitPrice = try c.decodeDecimalIfPresent(forKey: .limitPrice)
        stopPrice = try c.decodeDecimalIfPresent(forKey: .stopPrice)
        status = try c.decode(String.self, forKey: .status)
    }
}
