public import Foundation

/// The net position in one instrument of one account.
///
/// **One sign convention for every broker**, so that positions in the same currency add up across brokers:
///
/// | field | long | short |
/// |---|---|---|
/// | `quantity` | positive | negative |
/// | `costBasis` (what opening it cost, or raised for a short) | positive | negative: signed like `quantity` |
/// | `marketValue` (what it is worth now) | positive | negative: signed like `quantity` |
/// | `unrealizedPnl` | positive when the position gains | positive when the position gains (the price fell) |
/// | `averagePrice`, `lastPrice` | positive | positive |
///
/// So `marketValue` = `quantity` × `lastPrice`, `costBasis` = `quantity` × `averagePrice` and `unrealizedPnl` =
/// `marketValue` − `costBasis` whenever the broker reports the parts, for longs and shorts alike; the sum of the
/// `marketValue`s of an account is its net exposure. Each adapter maps its broker's signs to this (see
/// ``signedLikeQuantity(_:quantity:)``), whatever the broker sends: Alpaca signs cost basis and market value like
/// the quantity already, TradeIt sends a short's `costbasis` as a positive amount.
public struct Position: Codable, Sendable, Hashable {
    /// The gateway connection (`conn_…`) of the account.
    public var connectionId: String
    /// The broker's account id (`Account.id`).
    public var accountId: String
    /// The instrument held; the broker's own identity of it is in `instrument.brokerKey`.
    public var instrument: Instrument
    /// Signed: negative is short.
    @DecimalString public var quantity: Decimal
    /// The average price the position was opened at: never negative.
    @OptionalDecimalString public var averagePrice: Decimal?
    /// What opening the position cost: signed like `quantity` (negative for a short, the proceeds of the sale).
    @OptionalDecimalString public var costBasis: Decimal?
    /// What the position is worth at `lastPrice`: signed like `quantity` (negative for a short, what buying it back
    /// costs).
    @OptionalDecimalString public var marketValue: Decimal?
    /// The gain (positive) or loss (negative) if the position were closed now, for longs and shorts alike.
    @OptionalDecimalString public var unrealizedPnl: Decimal?
    /// The latest price: never negative.
    @OptionalDecimalString public var lastPrice: Decimal?
    /// The currency of prices and values above.
    public var currency: String
    /// When the broker says the figures were taken; `nil` when it does not (the time of the read is its source line's
    /// `asOf`).
    public var asOf: Date?
    /// The gain (positive) or loss (negative) of the position since the previous close, in `currency`, for longs
    /// and shorts alike; where the broker reports it.
    @OptionalDecimalString public var dayChange: Decimal?

    /// A position as an adapter maps it: signs already in the convention above (see
    /// ``signedLikeQuantity(_:quantity:)``).
    public init(
        connectionId: String,
        accountId: String,
        instrument: Instrument,
        quantity: Decimal,
        averagePrice: Decimal? = nil,
        costBasis: Decimal? = nil,
        marketValue: Decimal? = nil,
        unrealizedPnl: Decimal? = nil,
        lastPrice: Decimal? = nil,
        currency: String,
        asOf: Date? = nil,
        dayChange: Decimal? = nil
    ) {
        self.connectionId = connectionId
        self.accountId = accountId
        self.instrument = instrument
        self.quantity = quantity
        self.averagePrice = averagePrice
        self.costBasis = costBasis
        self.marketValue = marketValue
        self.unrealizedPnl = unrealizedPnl
        self.lastPrice = lastPrice
        self.currency = currency
        self.asOf = asOf
        self.dayChange = dayChange
    }
}

extension Position {
    /// `value`'s magnitude with the sign of `quantity` (the convention for `costBasis` and `marketValue`, whose size
    /// is a quantity's times a price): a broker's amount whatever sign it wrote. `nil` stays `nil`; for a quantity of
    /// 0 the value is kept as sent.
    public static func signedLikeQuantity(_ value: Decimal?, quantity: Decimal) -> Decimal? {
        guard let value, !quantity.isZero else { return value }
        let magnitude = value.magnitude
        return quantity < 0 ? -magnitude : magnitude
    }
}
