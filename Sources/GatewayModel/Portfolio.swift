public import Foundation

/// A user's holdings across every broker, valued in one currency: cash and positions converted at the rates named,
/// net positions per instrument with their parts at each broker, and the allocation by asset class, currency and
/// broker.
///
/// Every amount is in `currency` and rounded to `Portfolio.scale` decimal places (totals are sums of the rounded
/// parts). An amount that cannot be converted (no broker quotes its currency against the target, directly or
/// through USD) or valued (a position without a market value) is in none of the totals and is listed in
/// `unconverted` with the reason: never silently left out.
public struct Portfolio: Codable, Sendable, Hashable {
    /// Decimal places of every converted amount.
    public static let scale: Int16 = 8

    public var currency: String
    /// `cash` + `positionsValue`.
    @DecimalString public var totalValue: Decimal
    @DecimalString public var cash: Decimal
    /// Signed: shorts count negative (the position sign convention), so this is the net market value.
    @DecimalString public var positionsValue: Decimal
    public var accounts: [Account]
    /// Net positions per instrument across brokers, largest absolute value first.
    public var holdings: [Holding]
    public var allocation: Allocation
    /// The rate used for each currency converted, with the quotes it came from.
    public var fxRates: [FXRate]
    public var unconverted: [Unconverted]
    /// Today's gain or loss of the positions whose broker reports one (Alpaca, TradeIt), converted; absent when none
    /// does. `dayChangeUnknown` counts the valued positions whose broker reports none, so the figure's coverage is
    /// plain.
    @OptionalDecimalString public var dayChange: Decimal?
    public var dayChangeUnknown: Int

    public init(
        currency: String,
        totalValue: Decimal,
        cash: Decimal,
        positionsValue: Decimal,
        accounts: [Account],
        holdings: [Holding],
        allocation: Allocation,
        fxRates: [FXRate],
        unconverted: [Unconverted],
        dayChange: Decimal? = nil,
        dayChangeUnknown: Int = 0
    ) {
        self.currency = currency
        self.totalValue = totalValue
        self.cash = cash
        self.positionsValue = positionsValue
        self.accounts = accounts
        self.holdings = holdings
        self.allocation = allocation
        self.fxRates = fxRates
        self.unconverted = unconverted
        self.dayChange = dayChange
        self.dayChangeUnknown = dayChangeUnknown
    }

    /// One account's part of the totals, in the portfolio's currency.
    public struct Account: Codable, Sendable, Hashable {
        public var connectionId: String
        public var broker: BrokerKind
        public var accountId: String
        @DecimalString public var cash: Decimal
        @DecimalString public var positionsValue: Decimal
        @DecimalString public var totalValue: Decimal

        public init(
            connectionId: String,
            broker: BrokerKind,
            accountId: String,
            cash: Decimal,
            positionsValue: Decimal,
            totalValue: Decimal
        ) {
            self.connectionId = connectionId
            self.broker = broker
            self.accountId = accountId
            self.cash = cash
            self.positionsValue = positionsValue
            self.totalValue = totalValue
        }
    }

    /// The net position in one instrument across brokers: the quantities added up (signed), the value of the parts
    /// that could be valued.
    public struct Holding: Codable, Sendable, Hashable {
        /// The instrument as its first part names it, without any broker's own key.
        public var instrument: Instrument
        @DecimalString public var quantity: Decimal
        @DecimalString public var value: Decimal
        public var parts: [Part]

        public init(instrument: Instrument, quantity: Decimal, value: Decimal, parts: [Part]) {
            self.instrument = instrument
            self.quantity = quantity
            self.value = value
            self.parts = parts
        }

        /// The position at one account: its own quantity and market value in its own currency, and that value
        /// converted (absent when it could not be).
        public struct Part: Codable, Sendable, Hashable {
            public var connectionId: String
            public var broker: BrokerKind
            public var accountId: String
            @DecimalString public var quantity: Decimal
            @OptionalDecimalString public var marketValue: Decimal?
            public var currency: String
            @OptionalDecimalString public var value: Decimal?

            public init(
                connectionId: String,
                broker: BrokerKind,
                accountId: String,
                quantity: Decimal,
                marketValue: Decimal?,
                currency: String,
                value: Decimal?
            ) {
                self.connectionId = connectionId
                self.broker = broker
                self.accountId = accountId
                self.quantity = quantity
                self.marketValue = marketValue
                self.currency = currency
                self.value = value
            }
        }
    }

    /// The total split three ways. Cash is the asset class `cash`.
    public struct Allocation: Codable, Sendable, Hashable {
        public var assetClass: [Slice]
        /// By the currency each amount is held in.
        public var currency: [Slice]
        public var broker: [Slice]

        public init(assetClass: [Slice], currency: [Slice], broker: [Slice]) {
            self.assetClass = assetClass
            self.currency = currency
            self.broker = broker
        }

        /// One key's value and its share of the total (`0.25` is a quarter; absent when the total is zero).
        public struct Slice: Codable, Sendable, Hashable {
            public var key: String
            @DecimalString public var value: Decimal
            @OptionalDecimalString public var weight: Decimal?

            public init(key: String, value: Decimal, weight: Decimal?) {
                self.key = key
                self.value = value
                self.weight = weight
            }
        }
    }

    /// How one currency was converted: `rate` units of the portfolio's currency for one unit of `from`, from one
    /// quote, or from two through USD (`via`).
    public struct FXRate: Codable, Sendable, Hashable {
        public var from: String
        public var to: String
        @DecimalString public var rate: Decimal
        public var via: String?
        public var quotes: [Source]

        public init(from: String, to: String, rate: Decimal, via: String?, quotes: [Source]) {
            self.from = from
            self.to = to
            self.rate = rate
            self.via = via
            self.quotes = quotes
        }

        /// One quote a rate was taken from: its symbol, the price used (the mid of bid and ask, else the last), whether
        /// the rate is its inverse, and which connection's broker quoted it.
        public struct Source: Codable, Sendable, Hashable {
            public var symbol: String
            @DecimalString public var price: Decimal
            public var inverted: Bool
            public var connectionId: String
            public var broker: BrokerKind
            public var time: Date?

            public init(symbol: String, price: Decimal, inverted: Bool, connectionId: String, broker: BrokerKind, time: Date?) {
                self.symbol = symbol
                self.price = price
                self.inverted = inverted
                self.connectionId = connectionId
                self.broker = broker
                self.time = time
            }
        }
    }

    /// An amount in none of the totals, and why: `no_rate` (no quote converts its currency), `no_value` (a position
    /// the broker gave no market value).
    public struct Unconverted: Codable, Sendable, Hashable {
        public enum Reason: String, WireEnum {
            case noRate = "no_rate"
            case noValue = "no_value"
        }

        public var connectionId: String
        public var broker: BrokerKind
        public var accountId: String
        /// `cash`, or the position's symbol.
        public var item: String
        public var currency: String
        /// The amount in `currency` (absent for a position without a value).
        @OptionalDecimalString public var amount: Decimal?
        public var reason: Reason

        public init(
            connectionId: String,
            broker: BrokerKind,
            accountId: String,
            item: String,
            currency: String,
            amount: Decimal?,
            reason: Reason
        ) {
            self.connectionId = connectionId
            self.broker = broker
            self.accountId = accountId
            self.item = item
            self.currency = currency
            self.amount = amount
            self.reason = reason
        }
    }
}
