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

    /// The currency every amount is in (upper case).
    public var currency: String
    /// `cash` + `positionsValue`.
    @DecimalString public var totalValue: Decimal
    /// The cash of every balance line converted (each line's `total`, so a debt counts negative); coins an account
    /// holds as positions count there, not here.
    @DecimalString public var cash: Decimal
    /// Signed: shorts count negative (the position sign convention), so this is the net market value.
    @DecimalString public var positionsValue: Decimal
    /// Each account's part of the totals, in the order they were first met.
    public var accounts: [Account]
    /// Net positions per instrument across brokers, largest absolute value first.
    public var holdings: [Holding]
    /// The total split by asset class, by currency and by broker.
    public var allocation: Allocation
    /// The rate used for each currency converted, with the quotes it came from.
    public var fxRates: [FXRate]
    /// What is in none of the totals, and why.
    public var unconverted: [Unconverted]
    /// Today's gain or loss of the positions whose broker reports one (Alpaca, TradeIt), converted; absent when none
    /// does. `dayChangeUnknown` counts the valued positions whose broker reports none, so the figure's coverage is
    /// plain.
    @OptionalDecimalString public var dayChange: Decimal?
    /// How many valued positions have no day change from their broker (left out of `dayChange`).
    public var dayChangeUnknown: Int

    /// A portfolio, as the gateway's valuation computes it.
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
        /// The gateway connection of the account.
        public var connectionId: String
        /// The dialect of that connection's broker.
        public var broker: BrokerKind
        /// The broker's account id (`Account.id`).
        public var accountId: String
        /// The account's converted cash.
        @DecimalString public var cash: Decimal
        /// The account's converted net market value of positions (shorts negative).
        @DecimalString public var positionsValue: Decimal
        /// `cash` + `positionsValue`.
        @DecimalString public var totalValue: Decimal

        /// One account's line.
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
        /// The quantities of every part added up, signed (shorts negative).
        @DecimalString public var quantity: Decimal
        /// The converted values of the parts that could be valued, added up.
        @DecimalString public var value: Decimal
        /// The position at each account, in the order they were read.
        public var parts: [Part]

        /// A holding across brokers.
        public init(instrument: Instrument, quantity: Decimal, value: Decimal, parts: [Part]) {
            self.instrument = instrument
            self.quantity = quantity
            self.value = value
            self.parts = parts
        }

        /// The position at one account: its own quantity and market value in its own currency, and that value
        /// converted (absent when it could not be).
        public struct Part: Codable, Sendable, Hashable {
            /// The gateway connection of the account.
            public var connectionId: String
            /// The dialect of that connection's broker.
            public var broker: BrokerKind
            /// The broker's account id (`Account.id`).
            public var accountId: String
            /// The position's own quantity, signed (shorts negative).
            @DecimalString public var quantity: Decimal
            /// The position's market value as its broker reports it, in `currency`; `nil` when the broker gives none.
            @OptionalDecimalString public var marketValue: Decimal?
            /// The currency of `marketValue`.
            public var currency: String
            /// `marketValue` in the portfolio's currency; `nil` when it could not be valued or converted (then it is
            /// listed in `unconverted`).
            @OptionalDecimalString public var value: Decimal?

            /// One account's part of a holding.
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
        /// By the asset class of each position (`equity`, `crypto`, ...), cash as `cash`.
        public var assetClass: [Slice]
        /// By the currency each amount is held in.
        public var currency: [Slice]
        /// By the broker each amount is held at (`alpaca`, `saxo`, ...).
        public var broker: [Slice]

        /// The three splits.
        public init(assetClass: [Slice], currency: [Slice], broker: [Slice]) {
            self.assetClass = assetClass
            self.currency = currency
            self.broker = broker
        }

        /// One key's value and its share of the total (`0.25` is a quarter; absent when the total is zero).
        public struct Slice: Codable, Sendable, Hashable {
            /// What the slice is of: an asset class, a currency code or a broker kind.
            public var key: String
            /// The slice's value, in the portfolio's currency.
            @DecimalString public var value: Decimal
            /// The share of the total value, rounded to 6 places (0.25 is a quarter); `nil` when the total is zero.
            @OptionalDecimalString public var weight: Decimal?

            /// One slice.
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
        /// The currency converted (upper case).
        public var from: String
        /// The currency converted into: the portfolio's (or the goals').
        public var to: String
        /// Units of `to` for one unit of `from`, rounded to 12 places.
        @DecimalString public var rate: Decimal
        /// `USD` when the rate crosses two quotes through it; `nil` for a rate from one quote.
        public var via: String?
        /// The quotes the rate came from: one, or two through `via` (none when `from` is already `to`).
        public var quotes: [Source]

        /// A rate and the quotes it came from.
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
            /// The pair quoted (`EUR/USD`).
            public var symbol: String
            /// The price used: the middle of bid and ask, else the last trade.
            @DecimalString public var price: Decimal
            /// Whether the rate is 1 / `price` (the pair quotes the other way round).
            public var inverted: Bool
            /// The gateway connection whose broker gave the quote.
            public var connectionId: String
            /// The dialect of that connection's broker.
            public var broker: BrokerKind
            /// The quote's time, where the broker gave one.
            public var time: Date?

            /// A quote a rate came from.
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
        /// Why the amount is in no total: `no_rate` (no broker quotes its currency against the portfolio's, directly or
        /// through USD) or `no_value` (the broker gave the position no market value, or the amount is too large for the
        /// sums to hold).
        public enum Reason: String, WireEnum {
            case noRate = "no_rate"
            case noValue = "no_value"
        }

        /// The gateway connection of the account.
        public var connectionId: String
        /// The dialect of that connection's broker.
        public var broker: BrokerKind
        /// The broker's account id (`Account.id`).
        public var accountId: String
        /// `cash`, or the position's symbol.
        public var item: String
        /// The currency the amount is in.
        public var currency: String
        /// The amount in `currency` (absent for a position without a value).
        @OptionalDecimalString public var amount: Decimal?
        /// Why it is in no total.
        public var reason: Reason

        /// An amount left out, and why.
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
