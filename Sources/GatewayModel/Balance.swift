public import Foundation

/// Cash in one currency of one account: `available + held == total`.
public struct Balance: Codable, Sendable, Hashable {
    public var connectionId: String
    public var accountId: String
    public var currency: String
    @DecimalString public var total: Decimal
    @DecimalString public var available: Decimal
    @DecimalString public var held: Decimal
    /// What the broker lets the account spend on new orders, where it says.
    @OptionalDecimalString public var buyingPower: Decimal?
    /// Cash plus the market value of positions, where the broker says.
    @OptionalDecimalString public var accountValue: Decimal?
    /// Margin available for new trades, where the broker has margin.
    @OptionalDecimalString public var marginAvailable: Decimal?
    /// Margin in use as a percentage (12.5 = 12.5 %).
    @OptionalDecimalString public var marginUtilizationPct: Decimal?
    public var asOf: Date?

    public init(
        connectionId: String,
        accountId: String,
        currency: String,
        total: Decimal,
        available: Decimal,
        held: Decimal,
        buyingPower: Decimal? = nil,
        accountValue: Decimal? = nil,
        marginAvailable: Decimal? = nil,
        marginUtilizationPct: Decimal? = nil,
        asOf: Date? = nil
    ) {
        self.connectionId = connectionId
        self.accountId = accountId
        self.currency = currency
        self.total = total
        self.available = available
        self.held = held
        self.buyingPower = buyingPower
        self.accountValue = accountValue
        self.marginAvailable = marginAvailable
        self.marginUtilizationPct = marginUtilizationPct
        self.asOf = asOf
    }
}
