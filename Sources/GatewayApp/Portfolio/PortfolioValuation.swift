public import Foundation
public import GatewayModel

/// Builds a `Portfolio` from what the brokers answered: pure, so that totals can be checked by hand.
///
/// - Cash is each account's balances, except those in a currency the same account holds as a position (a crypto
///   exchange lists every coin as a balance and, valued, as a position: it counts once, as the position).
/// - Positions count at their `marketValue` (signed like the quantity: shorts are negative).
/// - A currency converts at the first quote (in connection order) of `C/T` or `T/C`, else through USD (`C/USD` or
///   `USD/C`, then `USD/T` or `T/USD`); a quote's price is the mid of bid and ask, else its last.
/// - Today's change adds up the positions' `dayChange` where their broker reports one; the others are counted.
/// - Converted amounts are rounded to `Portfolio.scale` places, half away from zero; totals are sums of those.
public struct PortfolioValuation: Sendable {
    /// A quote with the broker of its connection.
    public struct PricedQuote: Sendable {
        /// The quote.
        public var quote: Quote
        /// The broker it came from, which the portfolio names as the rate's source.
        public var broker: BrokerKind

        /// A quote from a connection to `broker`.
        public init(_ quote: Quote, broker: BrokerKind) {
            self.quote = quote
            self.broker = broker
        }
    }

    /// The currency everything is valued in.
    public let currency: String
    /// `BASE/QUOTE` → the first usable quote of it.
    let pairs: [String: Portfolio.FXRate.Source]

    /// A valuation into `currency` with these quotes as its exchange rates.
    public init(currency: String, quotes: [PricedQuote]) {
        self.currency = currency.uppercased()
        var pairs: [String: Portfolio.FXRate.Source] = [:]
        for priced in quotes {
            let symbol = priced.quote.instrument.symbol.uppercased()
            guard symbol.split(separator: "/").count == 2, pairs[symbol] == nil, let price = Self.price(priced.quote),
                let connectionId = priced.quote.connectionId
            else { continue }
            pairs[symbol] = Portfolio.FXRate.Source(
                symbol: symbol,
                price: price,
                inverted: false,
                connectionId: connectionId,
                broker: priced.broker,
                time: priced.quote.time
            )
        }
        self.pairs = pairs
    }

    /// The symbols whose quotes can convert `currencies` to `target`: direct either way, and each side against USD.
    public static func candidateSymbols(for currencies: Set<String>, to target: String) -> [String] {
        let target = target.uppercased()
        var symbols: [String] = []
        func add(_ symbol: String) { if !symbols.contains(symbol) { symbols.append(symbol) } }
        for currency in currencies.map({ $0.uppercased() }).sorted() where currency != target {
            add("\(currency)/\(target)")
            add("\(target)/\(currency)")
            if currency != "USD", target != "USD" {
                add("\(currency)/USD")
                add("USD/\(currency)")
            }
        }
        if target != "USD", currencies.contains(where: { $0.uppercased() != target }) {
            add("USD/\(target)")
            add("\(target)/USD")
        }
        return symbols
    }

    /// The price a quote gives: the mid of a two-sided quote, else the last trade; nothing not positive.
    static func price(_ quote: Quote) -> Decimal? {
        if let bid = quote.bid, let ask = quote.ask, bid > 0, ask > 0 { return (bid + ask) / 2 }
        if let last = quote.last, last > 0 { return last }
        return nil
    }

    /// One unit of `from` in units of `to`, from one quote either way.
    func directRate(_ from: String, _ to: String) -> (Decimal, Portfolio.FXRate.Source)? {
        if let source = pairs["\(from)/\(to)"] { return (source.price, source) }
        if var source = pairs["\(to)/\(from)"] {
            source.inverted = true
            return (1 / source.price, source)
        }
        return nil
    }

    /// How `from` converts to the portfolio's currency, or `nil` when no quote says.
    public func rate(from: String) -> Portfolio.FXRate? {
        let from = from.uppercased()
        if from == currency { return Portfolio.FXRate(from: from, to: currency, rate: 1, via: nil, quotes: []) }
        if let (rate, source) = directRate(from, currency) {
            return Portfolio.FXRate(from: from, to: currency, rate: Self.rounded(rate, scale: 12), via: nil, quotes: [source])
        }
        guard from != "USD", currency != "USD", let (first, firstSource) = directRate(from, "USD"),
            let (second, secondSource) = directRate("USD", currency)
        else { return nil }
        return Portfolio.FXRate(
            from: from,
            to: currency,
            rate: Self.rounded(first * second, scale: 12),
            via: "USD",
            quotes: [firstSource, secondSource]
        )
    }

    /// `amount` of `from` in the valuation's currency, rounded as the portfolio's amounts are, with the rate used;
    /// `nil` when no quote converts it. (Goals value their holdings through this, so both agree to the digit.)
    public func convert(_ amount: Decimal, from: String) -> (value: Decimal, rate: Portfolio.FXRate)? {
        guard let rate = rate(from: from) else { return nil }
        return (Self.rounded(amount * rate.rate), rate)
    }

    static func rounded(_ value: Decimal, scale: Int16 = Portfolio.scale) -> Decimal {
        var value = value
        var result = Decimal()
        NSDecimalRound(&result, &value, Int(scale), .plain)
        return result
    }

    /// The portfolio of these balances and positions, each with the broker of its connection.
    public func portfolio(balances: [(Balance, BrokerKind)], positions: [(Position, BrokerKind)]) -> Portfolio {
        var rates: [String: Portfolio.FXRate] = [:]
        var missingRate: Set<String> = []
        func convert(_ amount: Decimal, _ from: String) -> Decimal? {
            let from = from.uppercased()
            if missingRate.contains(from) { return nil }
            if let rate = rates[from] { return Self.rounded(amount * rate.rate) }
            guard let rate = rate(from: from) else {
                missingRate.insert(from)
                return nil
            }
            rates[from] = rate
            return Self.rounded(amount * rate.rate)
        }

        struct AccountKey: Hashable { var connectionId: String, accountId: String }
        var accounts: [AccountKey: Portfolio.Account] = [:]
        var accountOrder: [AccountKey] = []
        func account(_ key: AccountKey, _ broker: BrokerKind) -> Portfolio.Account {
            if let existing = accounts[key] { return existing }
            accountOrder.append(key)
            return Portfolio.Account(
                connectionId: key.connectionId,
                broker: broker,
                accountId: key.accountId,
                cash: 0,
                positionsValue: 0,
                totalValue: 0
            )
        }
        var unconverted: [Portfolio.Unconverted] = []
        var byAssetClass: [String: Decimal] = [:]
        var byCurrency: [String: Decimal] = [:]
        var byBroker: [String: Decimal] = [:]
        func allocate(_ value: Decimal, assetClass: String, currency: String, broker: BrokerKind) {
            byAssetClass[assetClass, default: 0] += value
            byCurrency[currency.uppercased(), default: 0] += value
            byBroker[broker.rawValue, default: 0] += value
        }

        // Coins an account holds as positions are not its cash too.
        var heldAsPositions: Set<String> = []
        for (position, _) in positions where position.instrument.assetClass == .crypto {
            if let base = position.instrument.symbol.split(separator: "/").first {
                heldAsPositions.insert("\(position.connectionId)|\(position.accountId)|\(base.uppercased())")
            }
        }

        var cash: Decimal = 0
        var positionsValue: Decimal = 0
        /// Whether every sum stays a number: a broker may send any value `Decimal` holds, and two near its limit add
        /// up to NaN. Such an amount is named in `unconverted` (`no_value`, so the read is partial) instead of
        /// turning the totals into `"NaN"`.
        func finite(_ sums: Decimal...) -> Bool { !sums.contains { $0.isNaN } }
        func overflows(_ value: Decimal, _ line: Portfolio.Account, assetClass: String, currency: String, broker: BrokerKind) -> Bool {
            !finite(
                value,
                line.totalValue + value,
                cash + positionsValue + value,
                (byAssetClass[assetClass] ?? 0) + value,
                (byCurrency[currency.uppercased()] ?? 0) + value,
                (byBroker[broker.rawValue] ?? 0) + value
            )
        }
        for (balance, broker) in balances {
            if heldAsPositions.contains("\(balance.connectionId)|\(balance.accountId)|\(balance.currency.uppercased())") {
                continue
            }
            let key = AccountKey(connectionId: balance.connectionId, accountId: balance.accountId)
            var line = account(key, broker)
            guard let value = convert(balance.total, balance.currency) else {
                unconverted.append(
                    Portfolio.Unconverted(
                        connectionId: balance.connectionId,
                        broker: broker,
                        accountId: balance.accountId,
                        item: "cash",
                        currency: balance.currency,
                        amount: balance.total,
                        reason: .noRate
                    )
                )
                accounts[key] = line
                continue
            }
            if overflows(value, line, assetClass: "cash", currency: balance.currency, broker: broker)
                || !finite(line.cash + value, cash + value)
            {
                unconverted.append(
                    Portfolio.Unconverted(
                        connectionId: balance.connectionId,
                        broker: broker,
                        accountId: balance.accountId,
                        item: "cash",
                        currency: balance.currency,
                        amount: balance.total,
                        reason: .noValue
                    )
                )
                accounts[key] = line
                continue
            }
            line.cash += value
            line.totalValue += value
            accounts[key] = line
            cash += value
            allocate(value, assetClass: "cash", currency: balance.currency, broker: broker)
        }

        struct HoldingKey: Hashable { var assetClass: AssetClass, symbol: String }
        var holdings: [HoldingKey: Portfolio.Holding] = [:]
        var dayChange: Decimal?
        var dayChangeUnknown = 0
        for (position, broker) in positions {
            let key = AccountKey(connectionId: position.connectionId, accountId: position.accountId)
            var line = account(key, broker)
            let holdingKey = HoldingKey(assetClass: position.instrument.assetClass, symbol: position.instrument.symbol.uppercased())
            guard finite((holdings[holdingKey]?.quantity ?? 0) + position.quantity) else {
                unconverted.append(
                    Portfolio.Unconverted(
                        connectionId: position.connectionId,
                        broker: broker,
                        accountId: position.accountId,
                        item: position.instrument.symbol,
                        currency: position.currency,
                        amount: position.marketValue,
                        reason: .noValue
                    )
                )
                accounts[key] = line
                continue
            }
            var value: Decimal?
            if let marketValue = position.marketValue {
                value = convert(marketValue, position.currency)
                if value == nil {
                    unconverted.append(
                        Portfolio.Unconverted(
                            connectionId: position.connectionId,
                            broker: broker,
                            accountId: position.accountId,
                            item: position.instrument.symbol,
                            currency: position.currency,
                            amount: marketValue,
                            reason: .noRate
                        )
                    )
                }
            } else {
                unconverted.append(
                    Portfolio.Unconverted(
                        connectionId: position.connectionId,
                        broker: broker,
                        accountId: position.accountId,
                        item: position.instrument.symbol,
                        currency: position.currency,
                        amount: nil,
                        reason: .noValue
                    )
                )
            }
            if let counted = value,
                overflows(counted, line, assetClass: position.instrument.assetClass.rawValue, currency: position.currency, broker: broker)
                    || !finite(
                        line.positionsValue + counted,
                        positionsValue + counted,
                        (holdings[holdingKey]?.value ?? 0) + counted
                    )
            {
                value = nil
                unconverted.append(
                    Portfolio.Unconverted(
                        connectionId: position.connectionId,
                        broker: broker,
                        accountId: position.accountId,
                        item: position.instrument.symbol,
                        currency: position.currency,
                        amount: position.marketValue,
                        reason: .noValue
                    )
                )
            }
            if value != nil {
                if let change = position.dayChange, let converted = rates[position.currency.uppercased()].map({ Self.rounded(change * $0.rate) }),
                    finite(converted, (dayChange ?? 0) + converted)
                {
                    dayChange = (dayChange ?? 0) + converted
                } else {
                    dayChangeUnknown += 1
                }
            }
            if let value {
                line.positionsValue += value
                line.totalValue += value
                positionsValue += value
                allocate(value, assetClass: position.instrument.assetClass.rawValue, currency: position.currency, broker: broker)
            }
            accounts[key] = line

            let part = Portfolio.Holding.Part(
                connectionId: position.connectionId,
                broker: broker,
                accountId: position.accountId,
                quantity: position.quantity,
                marketValue: position.marketValue,
                currency: position.currency,
                value: value
            )
            var holding =
                holdings[holdingKey]
                ?? Portfolio.Holding(
                    instrument: Instrument(
                        symbol: position.instrument.symbol,
                        assetClass: position.instrument.assetClass,
                        exchange: position.instrument.exchange,
                        name: position.instrument.name,
                        currency: position.instrument.currency
                    ),
                    quantity: 0,
                    value: 0,
                    parts: []
                )
            holding.quantity += position.quantity
            holding.value += value ?? 0
            holding.parts.append(part)
            holdings[holdingKey] = holding
        }

        let total = cash + positionsValue
        func slices(_ values: [String: Decimal]) -> [Portfolio.Allocation.Slice] {
            values.map { key, value in
                Portfolio.Allocation.Slice(key: key, value: value, weight: total == 0 ? nil : Self.rounded(value / total, scale: 6))
            }.sorted { abs($0.value) != abs($1.value) ? abs($0.value) > abs($1.value) : $0.key < $1.key }
        }
        let sortedHoldings = holdings.values.sorted {
            abs($0.value) != abs($1.value) ? abs($0.value) > abs($1.value) : $0.instrument.symbol < $1.instrument.symbol
        }
        return Portfolio(
            currency: currency,
            totalValue: total,
            cash: cash,
            positionsValue: positionsValue,
            accounts: accountOrder.compactMap { accounts[$0] },
            holdings: sortedHoldings,
            allocation: Portfolio.Allocation(
                assetClass: slices(byAssetClass),
                currency: slices(byCurrency),
                broker: slices(byBroker)
            ),
            fxRates: rates.values.filter { $0.from != currency }.sorted { $0.from < $1.from },
            unconverted: unconverted,
            dayChange: dayChange,
            dayChangeUnknown: dayChangeUnknown
        )
    }
}
