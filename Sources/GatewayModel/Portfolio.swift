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
    public var totalValue: Decimal
    public var cash: Decimal
    /// Signed: shorts count negative (the position sign convention), so this is the net market value.
    public var positionsValue: Decimal
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
    public var dayChange: Decimal?
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

    enum CodingKeys: String, CodingKey {
        case currency, totalValue, cash, positionsValue, accounts, holdings, allocation, fxRates, unconverted
        case dayChange, dayChangeUnknown
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        currency = try c.decode(String.self, forKey: .currency)
        totalValue = try c.decodeDecimal(forKey: .totalValue)
        cash = try c.decodeDecimal(forKey: .cash)
        positionsValue = try c.decodeDecimal(forKey: .positionsValue)
        accounts = try c.decode([Account].self, forKey: .accounts)
        holdings = try c.decode([Holding].self, forKey: .holdings)
        allocation = try c.decode(Allocation.self, forKey: .allocation)
        fxRates = try c.decode([FXRate].self, forKey: .fxRates)
        unconverted = try c.decode([Unconverted].self, forKey: .unconverted)
        dayChange = try c.decodeDecimalIfPresent(forKey: .dayChange)
        dayChangeUnknown = try c.decode(Int.self, forKey: .dayChangeUnknown)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(currency, forKey: .currency)
        try c.encodeDecimal(totalValue, forKey: .totalValue)
        try c.encodeDecimal(cash, forKey: .cash)
        try c.encodeDecimal(positionsValue, forKey: .positionsValue)
        try c.encode(accounts, forKey: .accounts)
        try c.encode(holdings, forKey: .holdings)
        try c.encode(allocation, forKey: .allocation)
        try c.encode(fxRates, forKey: .fxRates)
        try c.encode(unconverted, forKey: .unconverted)
        try c.encodeDecimalIfPresent(dayChange, forKey: .dayChange)
        try c.encode(dayChangeUnknown, forKey: .dayChangeUnknown)
    }

    /// One account's part of the totals, in the portfolio's currency.
    public struct Account: Codable, Sendable, Hashable {
        public var connectionId: String
        public var broker: BrokerKind
        public var accountId: String
        public var cash: Decimal
        public var positionsValue: Decimal
        public var totalValue: Decimal

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

        enum CodingKeys: String, CodingKey { case connectionId, broker, accountId, cash, positionsValue, totalValue }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            connectionId = try c.decode(String.self, forKey: .connectionId)
            broker = try c.decode(BrokerKind.self, forKey: .broker)
            accountId = try c.decode(String.self, forKey: .accountId)
            cash = try c.decodeDecimal(forKey: .cash)
            positionsValue = try c.decodeDecimal(forKey: .positionsValue)
            totalValue = try c.decodeDecimal(forKey: .totalValue)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(connectionId, forKey: .connectionId)
            try c.encode(broker, forKey: .broker)
            try c.encode(accountId, forKey: .accountId)
            try c.encodeDecimal(cash, forKey: .cash)
            try c.encodeDecimal(positionsValue, forKey: .positionsValue)
            try c.encodeDecimal(totalValue, forKey: .totalValue)
        }
    }

    /// The net position in one instrument across brokers: the quantities added up (signed), the value of the parts
    /// that could be valued.
    public struct Holding: Codable, Sendable, Hashable {
        /// The instrument as its first part names it, without any broker's own key.
        public var instrument: Instrument
        public var quantity: Decimal
        public var value: Decimal
        public var parts: [Part]

        public init(instrument: Instrument, quantity: Decimal, value: Decimal, parts: [Part]) {
            self.instrument = instrument
            self.quantity = quantity
            self.value = value
            self.parts = parts
        }

        enum CodingKeys: String, CodingKey { case instrument, quantity, value, parts }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            instrument = try c.decode(Instrument.self, forKey: .instrument)
            quantity = try c.decodeDecimal(forKey: .quantity)
            value = try c.decodeDecimal(forKey: .value)
            parts = try c.decode([Part].self, forKey: .parts)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(instrument, forKey: .instrument)
            try c.encodeDecimal(quantity, forKey: .quantity)
            try c.encodeDecimal(value, forKey: .value)
            try c.encode(parts, forKey: .parts)
        }

        /// The position at one account: its own quantity and market value in its own currency, and that value
        /// converted (absent when it could not be).
        public struct Part: Codable, Sendable, Hashable {
            public var connectionId: String
            public var broker: BrokerKind
            public var accountId: String
            public var quantity: Decimal
            public var marketValue: Decimal?
            public var currency: String
            public var value: Decimal?

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

            enum CodingKeys: String, CodingKey { case connectionId, broker, accountId, quantity, marketValue, currency, value }

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                connectionId = try c.decode(String.self, forKey: .connectionId)
                broker = try c.decode(BrokerKind.self, forKey: .broker)
                accountId = try c.decode(String.self, forKey: .accountId)
                quantity = try c.decodeDecimal(forKey: .quantity)
                marketValue = try c.decodeDecimalIfPresent(forKey: .marketValue)
                currency = try c.decode(String.self, forKey: .currency)
                value = try c.decodeDecimalIfPresent(forKey: .value)
            }

            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(connectionId, forKey: .connectionId)
                try c.encode(broker, forKey: .broker)
                try c.encode(accountId, forKey: .accountId)
                try c.encodeDecimal(quantity, forKey: .quantity)
                try c.encodeDecimalIfPresent(marketValue, forKey: .marketValue)
                try c.encode(currency, forKey: .currency)
                try c.encodeDecimalIfPresent(value, forKey: .value)
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
            public var value: Decimal
            public var weight: Decimal?

            public init(key: String, value: Decimal, weight: Decimal?) {
                self.key = key
                self.value = value
                self.weight = weight
            }

            enum CodingKeys: String, CodingKey { case key, value, weight }

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                key = try c.decode(String.self, forKey: .key)
                value = try c.decodeDecimal(forKey: .value)
                weight = try c.decodeDecimalIfPresent(forKey: .weight)
            }

            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(key, forKey: .key)
                try c.encodeDecimal(value, forKey: .value)
                try c.encodeDecimalIfPresent(weight, forKey: .weight)
            }
        }
    }

    /// How one currency was converted: `rate` units of the portfolio's currency for one unit of `from`, from one
    /// quote, or from two through USD (`via`).
    public struct FXRate: Codable, Sendable, Hashable {
        public var from: String
        public var to: String
        public var rate: Decimal
        public var via: String?
        public var quotes: [Source]

        public init(from: String, to: String, rate: Decimal, via: String?, quotes: [Source]) {
            self.from = from
            self.to = to
            self.rate = rate
            self.via = via
            self.quotes = quotes
        }

        enum CodingKeys: String, CodingKey { case from, to, rate, via, quotes }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            from = try c.decode(String.self, forKey: .from)
            to = try c.decode(String.self, forKey: .to)
            rate = try c.decodeDecimal(forKey: .rate)
            via = try c.decodeIfPresent(String.self, forKey: .via)
            quotes = try c.decode([Source].self, forKey: .quotes)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(from, forKey: .from)
            try c.encode(to, forKey: .to)
            try c.encodeDecimal(rate, forKey: .rate)
            try c.encodeIfPresent(via, forKey: .via)
            try c.encode(quotes, forKey: .quotes)
        }

        /// One quote a rate was taken from: its symbol, the price used (the mid of bid and ask, else the last), whether
        /// the rate is its inverse, and which connection's broker quoted it.
        public struct Source: Codable, Sendable, Hashable {
            public var symbol: String
            public var price: Decimal
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

            enum CodingKeys: String, CodingKey { case symbol, price, inverted, connectionId, broker, time }

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                symbol = try c.decode(String.self, forKey: .symbol)
                price = try c.decodeDecimal(forKey: .price)
                inverted = try c.decode(Bool.self, forKey: .inverted)
                connectionId = try c.decode(String.self, forKey: .connectionId)
                broker = try c.decode(BrokerKind.self, forKey: .broker)
                time = try c.decodeIfPresent(Date.self, forKey: .time)
            }

            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(symbol, forKey: .symbol)
                try c.encodeDecimal(price, forKey: .price)
                try c.encode(inverted, forKey: .inverted)
                try c.encode(connectionId, forKey: .connectionId)
                try c.encode(broker, forKey: .broker)
                try c.encodeIfPresent(time, forKey: .time)
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
        public var amount: Decimal?
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

        enum CodingKeys: String, CodingKey { case connectionId, broker, accountId, item, currency, amount, reason }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            connectionId = try c.decode(String.self, forKey: .connectionId)
            broker = try c.decode(BrokerKind.self, forKey: .broker)
            accountId = try c.decode(String.self, forKey: .accountId)
            item = try c.decode(String.self, forKey: .item)
            currency = try c.decode(String.self, forKey: .currency)
            amount = try c.decodeDecimalIfPresent(forKey: .amount)
            reason = try c.decode(Reason.self, forKey: .reason)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(connectionId, forKey: .connectionId)
            try c.encode(broker, forKey: .broker)
            try c.encode(accountId, forKey: .accountId)
            try c.encode(item, forKey: .item)
            try c.encode(currency, forKey: .currency)
            try c.encodeDecimalIfPresent(amount, forKey: .amount)
            try c.encode(reason, forKey: .reason)
        }
    }
}
