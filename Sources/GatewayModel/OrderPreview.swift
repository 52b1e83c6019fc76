public import Foundation

/// What an order would cost and do, before it is placed.
public struct OrderPreview: Codable, Sendable, Hashable {
    /// The gateway's preview id; `POST /v1/orders` may reference it until `expiresAt`.
    public var id: String
    /// Until when the preview may be confirmed by a placement (`previewId`).
    public var expiresAt: Date
    /// The order request this preview is for.
    public var request: OrderRequest
    /// The currency of the estimated amounts.
    public var currency: String
    /// The price the order is expected to trade at: its limit (or stop) price, or for a market order the quote where
    /// the adapter has one; `nil` when unknown.
    @OptionalDecimalString public var estimatedPrice: Decimal?
    /// What the order is expected to cost (or raise, for a sale), in `currency`: the broker's estimate where it
    /// previews natively (Saxo, TradeIt), else the gateway's (price × quantity, or the notional); `nil` when it cannot
    /// be estimated.
    @OptionalDecimalString public var estimatedCost: Decimal?
    /// The commission the broker expects to charge, where it says.
    @OptionalDecimalString public var estimatedCommission: Decimal?
    /// What the account could still spend once the order is placed, for an order that spends; `nil` where it cannot be
    /// worked out.
    @OptionalDecimalString public var buyingPowerAfter: Decimal?
    /// What the broker or the gateway warns about the order (the cost exceeds the buying power, the limit crosses the
    /// book), in words to show the user; empty when there is nothing.
    public var warnings: [String]
    /// The broker's own preview id where the broker previews natively (TradeIt `orderId`).
    public var brokerPreviewId: String?

    /// A preview as an adapter makes it; the gateway gives it its id.
    public init(
        id: String,
        expiresAt: Date,
        request: OrderRequest,
        currency: String,
        estimatedPrice: Decimal? = nil,
        estimatedCost: Decimal? = nil,
        estimatedCommission: Decimal? = nil,
        buyingPowerAfter: Decimal? = nil,
        warnings: [String] = [],
        brokerPreviewId: String? = nil
    ) {
        self.id = id
        self.expiresAt = expiresAt
        self.request = request
        self.currency = currency
        self.estimatedPrice = estimatedPrice
        self.estimatedCost = estimatedCost
        self.estimatedCommission = estimatedCommission
        self.buyingPowerAfter = buyingPowerAfter
        self.warnings = warnings
        self.brokerPreviewId = brokerPreviewId
    }

    enum CodingKeys: String, CodingKey {
        case id, expiresAt, request, currency, estimatedPrice, estimatedCost, estimatedCommission, buyingPowerAfter
        case warnings, brokerPreviewId
    }

    /// Hand-written for one default: a preview without `warnings` reads as none (the encoding is synthesized).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        expiresAt = try c.decode(Date.self, forKey: .expiresAt)
        request = try c.decode(OrderRequest.self, forKey: .request)
        currency = try c.decode(String.self, forKey: .currency)
        estimatedPrice = try c.decodeDecimalIfPresent(forKey: .estimatedPrice)
        estimatedCost = try c.decodeDecimalIfPresent(forKey: .estimatedCost)
        estimatedCommission = try c.decodeDecimalIfPresent(forKey: .estimatedCommission)
        buyingPowerAfter = try c.decodeDecimalIfPresent(forKey: .buyingPowerAfter)
        warnings = try c.decodeIfPresent([String].self, forKey: .warnings) ?? []
        brokerPreviewId = try c.decodeIfPresent(String.self, forKey: .brokerPreviewId)
    }
}
