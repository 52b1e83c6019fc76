public import Foundation

/// The account holder at one broker connection.
public struct Client: Codable, Sendable, Hashable {
    /// The broker's id for the client (Saxo `ClientKey`, Alpaca account id, TradeIt user id).
    public var id: String
    public var connectionId: String
    public var broker: BrokerKind
    public var name: String?
    public var defaultAccountId: String?
    public var defaultCurrency: String?

    public init(
        id: String,
        connectionId: String,
        broker: BrokerKind,
        name: String? = nil,
        defaultAccountId: String? = nil,
        defaultCurrency: String? = nil
    ) {
        self.id = id
        self.connectionId = connectionId
        self.broker = broker
        self.name = name
        self.defaultAccountId = defaultAccountId
        self.defaultCurrency = defaultCurrency
    }
}

/// A trading account. `id` is the broker's own account id; (`connectionId`, `id`) is unique in a tenant.
public struct Account: Codable, Sendable, Hashable {
    public var id: String
    public var connectionId: String
    public var broker: BrokerKind
    public var name: String?
    /// The base currency.
    public var currency: String
    public var tradable: Bool
    /// The broker's description of the account's state (`ACTIVE`, `Normal`, ...); descriptive only.
    public var status: String?
    /// The key the broker wants in requests when it differs from the display id (Saxo `AccountKey`).
    public var brokerKey: String?

    public init(
        id: String,
        connectionId: String,
        broker: BrokerKind,
        name: String? = nil,
        currency: String,
        tradable: Bool = true,
        status: String? = nil,
        brokerKey: String? = nil
    ) {
        self.id = id
        self.connectionId = connectionId
        self.broker = broker
        self.name = name
        self.currency = currency
        self.tradable = tradable
        self.status = status
        self.brokerKey = brokerKey
    }
}

/// Cash in one currency of one account: `available + held == total`.
public struct Balance: Codable, Sendable, Hashable {
    public var connectionId: String
    public var accountId: String
    public var currency: String
    public var total: Decimal
    public var available: Decimal
    public var held: Decimal
    /// What the broker lets the account spend on new orders, where it says.
    public var buyingPower: Decimal?
    /// Cash plus the market value of positions, where the broker says.
    public var accountValue: Decimal?
    /// Margin available for new trades, where the broker has margin.
    public var marginAvailable: Decimal?
    /// Margin in use as a percentage (12.5 = 12.5 %).
    public var marginUtilizationPct: Decimal?
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

    enum CodingKeys: String, CodingKey {
        case connectionId, accountId, currency, total, available, held, buyingPower, accountValue, marginAvailable
        case marginUtilizationPct, asOf
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        connectionId = try c.decode(String.self, forKey: .connectionId)
        accountId = try c.decode(String.self, forKey: .accountId)
        currency = try c.decode(String.self, forKey: .currency)
        total = try c.decodeDecimal(forKey: .total)
        available = try c.decodeDecimal(forKey: .available)
        held = try c.decodeDecimal(forKey: .held)
        buyingPower = try c.decodeDecimalIfPresent(forKey: .buyingPower)
        accountValue = try c.decodeDecimalIfPresent(forKey: .accountValue)
        marginAvailable = try c.decodeDecimalIfPresent(forKey: .marginAvailable)
        marginUtilizationPct = try c.decodeDecimalIfPresent(forKey: .marginUtilizationPct)
        asOf = try c.decodeIfPresent(Date.self, forKey: .asOf)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(connectionId, forKey: .connectionId)
        try c.encode(accountId, forKey: .accountId)
        try c.encode(currency, forKey: .currency)
        try c.encodeDecimal(total, forKey: .total)
        try c.encodeDecimal(available, forKey: .available)
        try c.encodeDecimal(held, forKey: .held)
        try c.encodeDecimalIfPresent(buyingPower, forKey: .buyingPower)
        try c.encodeDecimalIfPresent(accountValue, forKey: .accountValue)
        try c.encodeDecimalIfPresent(marginAvailable, forKey: .marginAvailable)
        try c.encodeDecimalIfPresent(marginUtilizationPct, forKey: .marginUtilizationPct)
        try c.encodeIfPresent(asOf, forKey: .asOf)
    }
}

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
    public var connectionId: String
    public var accountId: String
    public var instrument: Instrument
    /// Signed: negative is short.
    public var quantity: Decimal
    /// The average price the position was opened at: never negative.
    public var averagePrice: Decimal?
    /// What opening the position cost: signed like `quantity` (negative for a short, the proceeds of the sale).
    public var costBasis: Decimal?
    /// What the position is worth at `lastPrice`: signed like `quantity` (negative for a short, what buying it back
    /// costs).
    public var marketValue: Decimal?
    /// The gain (positive) or loss (negative) if the position were closed now, for longs and shorts alike.
    public var unrealizedPnl: Decimal?
    /// The latest price: never negative.
    public var lastPrice: Decimal?
    /// The currency of prices and values above.
    public var currency: String
    public var asOf: Date?
    /// The gain (positive) or loss (negative) of the position since the previous close, in `currency`, for longs
    /// and shorts alike; where the broker reports it.
    public var dayChange: Decimal?

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

    enum CodingKeys: String, CodingKey {
        case connectionId, accountId, instrument, quantity, averagePrice, costBasis, marketValue, unrealizedPnl
        case lastPrice, currency, asOf, dayChange
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        connectionId = try c.decode(String.self, forKey: .connectionId)
        accountId = try c.decode(String.self, forKey: .accountId)
        instrument = try c.decode(Instrument.self, forKey: .instrument)
        quantity = try c.decodeDecimal(forKey: .quantity)
        averagePrice = try c.decodeDecimalIfPresent(forKey: .averagePrice)
        costBasis = try c.decodeDecimalIfPresent(forKey: .costBasis)
        marketValue = try c.decodeDecimalIfPresent(forKey: .marketValue)
        unrealizedPnl = try c.decodeDecimalIfPresent(forKey: .unrealizedPnl)
        lastPrice = try c.decodeDecimalIfPresent(forKey: .lastPrice)
        currency = try c.decode(String.self, forKey: .currency)
        asOf = try c.decodeIfPresent(Date.self, forKey: .asOf)
        dayChange = try c.decodeDecimalIfPresent(forKey: .dayChange)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(connectionId, forKey: .connectionId)
        try c.encode(accountId, forKey: .accountId)
        try c.encode(instrument, forKey: .instrument)
        try c.encodeDecimal(quantity, forKey: .quantity)
        try c.encodeDecimalIfPresent(averagePrice, forKey: .averagePrice)
        try c.encodeDecimalIfPresent(costBasis, forKey: .costBasis)
        try c.encodeDecimalIfPresent(marketValue, forKey: .marketValue)
        try c.encodeDecimalIfPresent(unrealizedPnl, forKey: .unrealizedPnl)
        try c.encodeDecimalIfPresent(lastPrice, forKey: .lastPrice)
        try c.encode(currency, forKey: .currency)
        try c.encodeIfPresent(asOf, forKey: .asOf)
        try c.encodeDecimalIfPresent(dayChange, forKey: .dayChange)
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

/// A named list of instruments. Broker watchlists carry their `connectionId`; the gateway's own have none.
public struct Watchlist: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    public var instruments: [Instrument]
    /// The connection whose broker holds the list, or `nil` for a list the gateway keeps itself.
    public var connectionId: String?
    public var createdAt: Date?
    public var updatedAt: Date?

    public init(
        id: String,
        name: String,
        instruments: [Instrument],
        connectionId: String? = nil,
        createdAt: Date? = nil,
        updatedAt: Date? = nil
    ) {
        self.id = id
        self.name = name
        self.instruments = instruments
        self.connectionId = connectionId
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A market snapshot for one instrument.
public struct Quote: Codable, Sendable, Hashable {
    public var instrument: Instrument
    public var connectionId: String?
    public var bid: Decimal?
    public var ask: Decimal?
    public var last: Decimal?
    public var open: Decimal?
    public var high: Decimal?
    public var low: Decimal?
    public var previousClose: Decimal?
    public var netChange: Decimal?
    /// Percentage change from the previous close (1.5 = 1.5 %).
    public var percentChange: Decimal?
    public var volume: Decimal?
    public var time: Date?

    public init(
        instrument: Instrument,
        connectionId: String? = nil,
        bid: Decimal? = nil,
        ask: Decimal? = nil,
        last: Decimal? = nil,
        open: Decimal? = nil,
        high: Decimal? = nil,
        low: Decimal? = nil,
        previousClose: Decimal? = nil,
        netChange: Decimal? = nil,
        percentChange: Decimal? = nil,
        volume: Decimal? = nil,
        time: Date? = nil
    ) {
        self.instrument = instrument
        self.connectionId = connectionId
        self.bid = bid
        self.ask = ask
        self.last = last
        self.open = open
        self.high = high
        self.low = low
        self.previousClose = previousClose
        self.netChange = netChange
        self.percentChange = percentChange
        self.volume = volume
        self.time = time
    }

    enum CodingKeys: String, CodingKey {
        case instrument, connectionId, bid, ask, last, open, high, low, previousClose, netChange, percentChange
        case volume, time
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        instrument = try c.decode(Instrument.self, forKey: .instrument)
        connectionId = try c.decodeIfPresent(String.self, forKey: .connectionId)
        bid = try c.decodeDecimalIfPresent(forKey: .bid)
        ask = try c.decodeDecimalIfPresent(forKey: .ask)
        last = try c.decodeDecimalIfPresent(forKey: .last)
        open = try c.decodeDecimalIfPresent(forKey: .open)
        high = try c.decodeDecimalIfPresent(forKey: .high)
        low = try c.decodeDecimalIfPresent(forKey: .low)
        previousClose = try c.decodeDecimalIfPresent(forKey: .previousClose)
        netChange = try c.decodeDecimalIfPresent(forKey: .netChange)
        percentChange = try c.decodeDecimalIfPresent(forKey: .percentChange)
        volume = try c.decodeDecimalIfPresent(forKey: .volume)
        time = try c.decodeIfPresent(Date.self, forKey: .time)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(instrument, forKey: .instrument)
        try c.encodeIfPresent(connectionId, forKey: .connectionId)
        try c.encodeDecimalIfPresent(bid, forKey: .bid)
        try c.encodeDecimalIfPresent(ask, forKey: .ask)
        try c.encodeDecimalIfPresent(last, forKey: .last)
        try c.encodeDecimalIfPresent(open, forKey: .open)
        try c.encodeDecimalIfPresent(high, forKey: .high)
        try c.encodeDecimalIfPresent(low, forKey: .low)
        try c.encodeDecimalIfPresent(previousClose, forKey: .previousClose)
        try c.encodeDecimalIfPresent(netChange, forKey: .netChange)
        try c.encodeDecimalIfPresent(percentChange, forKey: .percentChange)
        try c.encodeDecimalIfPresent(volume, forKey: .volume)
        try c.encodeIfPresent(time, forKey: .time)
    }
}
