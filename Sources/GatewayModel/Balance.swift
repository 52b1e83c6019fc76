public import Foundation

/// Cash in one currency of one account: `available + held == total`.
public struct Balance: Codable, Sendable, Hashable {
    /// The gateway connection (`conn_…`) of the account.
    public var connectionId: String
    /// The broker's account id (`Account.id`).
    public var accountId: String
    /// The currency of every amount on this line (ISO 4217, or a crypto code such as `BTC`).
    public var currency: String
    /// All the cash in `currency`: `available` + `held`. Negative for a debt (Alpaca's margin loan).
    @DecimalString public var total: Decimal
    /// The part of `total` that can still be spent, as the broker reports it or as its adapter works it out (TradeOgre:
    /// the total less what open orders hold).
    @DecimalString public var available: Decimal
    /// The part of `total` that open orders or the broker hold back: `total` − `available` (0 where the broker does not
    /// say, as TradeIt).
    @DecimalString public var held: Decimal
    /// What the broker lets the account spend on new orders, where it says.
    @OptionalDecimalString public var buyingPower: Decimal?
    /// Cash plus the market value of positions, where the broker says.
    @OptionalDecimalString public var accountValue: Decimal?
    /// Margin available for new trades, where the broker has margin.
    @OptionalDecimalString public var marginAvailable: Decimal?
    /// Margin in use as a percentage (12.5 = 12.5 %).
    @OptionalDecimalString public var marginUtilizationPct: Decimal?
    /// When the broker says the figures were taken; `nil` when it does not (the time of the read is its source line's
    /// `asOf`).
    public var asOf: Date?

    /// A balance line as an adapter maps it; the caller keeps `available + held == total`.
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
