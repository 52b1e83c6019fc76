public import Foundation

/// What an order would cost and do, before it is placed.
public struct OrderPreview: Codable, Sendable, Hashable {
    /// The gateway's preview id; `POST /v1/orders` may reference it until `expiresAt`.
    public var id: String
    public var expiresAt: Date
    public var request: OrderRequest
    public var currency: String
    @OptionalDecimalString public var estimatedPrice: Decimal?
    @OptionalDecimalString public var estimatedCost: Decimal?
    @OptionalDecimalString public var estimatedCommission: Decimal?
    @OptionalDecimalString public var buyingPowerAfter: Decimal?
    public var warnings: [String]
    /// The broker's own preview id where the broker previews natively (TradeIt `orderId`).
    public var brokerPreviewId: String?

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
