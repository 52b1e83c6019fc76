import Foundation
import GatewayCore
import GatewayModel

extension Account {
    /// `{"accountNumber":"My account number 1","name":"My account name 1","accountBaseCurrency":"USD","tradable":true}`.
    init(tradeIt account: TradeItBrokerAccount, connectionId: String) {
        self.init(
            id: account.accountNumber,
            connectionId: connectionId,
            broker: .tradeit,
            name: account.name,
            currency: account.accountBaseCurrency ?? "USD",
            tradable: account.tradable ?? true
        )
    }
}

extension Balance {
    /// `{"availableCash":1200.54,"buyingPower":2604.45,"totalValue":12983.34,"dayAbsoluteReturn":100,…}`.
    ///
    /// TradeIt reports the cash that is free (`availableCash`) but not what open orders hold, so the line is
    /// total = available = availableCash, held = 0; `buyingPower` and `accountValue` (= `totalValue`) as sent.
    init(tradeIt overview: TradeItAccountOverview, connectionId: String, accountId: String) throws {
        guard let cash = overview.availableCash else {
            throw TradeItErrors.malformed("balance/getAccountOverview has no availableCash")
        }
        self.init(
            connectionId: connectionId,
            accountId: accountId,
            currency: overview.accountBaseCurrency ?? "USD",
            total: cash,
            available: cash,
            held: 0,
            buyingPower: overview.buyingPower,
            accountValue: overview.totalValue
        )
    }
}

extension Position {
    /// `{"symbol":"GE","symbolClass":"EQUITY_OR_ETF","holdingType":"LONG","quantity":12,"costbasis":…,"lastPrice":29.84}`.
    /// `costbasis` is the holding's total cost, a positive amount for a `SHORT` holding too: the gateway signs it
    /// like the quantity (negative for a short, `Position`'s convention). The quantity is signed from
    /// `holdingType`, whatever sign `quantity` carries; `totalGainLossAbsolute` is the gain, as sent,
    /// and `todayGainLossAbsolute` today's (`dayChange`).
    init(tradeIt position: TradeItPosition, connectionId: String, accountId: String) throws {
        let isCrypto = position.symbol.contains("/") || position.symbolClass?.uppercased() == "CRYPTO"
        let magnitude = abs(position.quantity)
        let quantity = position.holdingType?.uppercased() == "SHORT" ? -magnitude : magnitude
        let average = position.costbasis.flatMap { magnitude > 0 ? $0 / magnitude : nil }
        self.init(
            connectionId: connectionId,
            accountId: accountId,
            instrument: Instrument(
                symbol: position.symbol.uppercased(),
                assetClass: isCrypto ? .crypto : .equity,
                exchange: position.exchange,
                name: position.description,
                currency: position.currency,
                brokerKey: position.symbolClass.map { ["symbolClass": $0] }
            ),
            quantity: quantity,
            averagePrice: average,
            costBasis: Position.signedLikeQuantity(position.costbasis, quantity: quantity),
            marketValue: position.lastPrice.map { $0 * quantity },
            unrealizedPnl: position.totalGainLossAbsolute,
            lastPrice: position.lastPrice,
            currency: position.currency ?? "USD",
            dayChange: position.todayGainLossAbsolute
        )
    }
}

extension Quote {
    /// `{"ask":…,"bid":…,"last":…,"open":…,"dayHigh":…,"dayLow":…,"volume":…,"dateTime":"…"}`.
    init(tradeIt quote: TradeItCryptoQuoteResponse, pair: String, connectionId: String) {
        let parts = pair.split(separator: "/")
        self.init(
            instrument: Instrument(
                symbol: pair,
                assetClass: .crypto,
                currency: parts.count == 2 ? String(parts[1]) : nil,
                brokerKey: ["pair": pair]
            ),
            connectionId: connectionId,
            bid: quote.bid,
            ask: quote.ask,
            last: quote.last,
            open: quote.open,
            high: quote.dayHigh,
            low: quote.dayLow,
            volume: quote.volume,
            time: quote.dateTime.flatMap(TradeItTime.parse)
        )
    }
}

extension Quote {
    /// `{"symbol":"AAPL","companyName":"Apple Inc.","askPrice":…,"bidPrice":…,"lastPrice":…,"change":…,
    /// "pctChange":…,"low":…,"high":…,"volume":…,"dateTime":"…"}`. The previous close is the last price less the
    /// change. A quote without a symbol is not one.
    init?(tradeIt quote: TradeItEquityQuote, connectionId: String) {
        guard let symbol = quote.symbol?.trimmingCharacters(in: .whitespaces).uppercased(), !symbol.isEmpty else {
            return nil
        }
        self.init(
            instrument: Instrument(symbol: symbol, assetClass: .equity, name: quote.companyName, currency: "USD"),
            connectionId: connectionId,
            bid: quote.bidPrice,
            ask: quote.askPrice,
            last: quote.lastPrice,
            high: quote.high,
            low: quote.low,
            previousClose: quote.lastPrice.flatMap { last in quote.change.map { last - $0 } },
            netChange: quote.change,
            percentChange: quote.pctChange,
            volume: quote.volume,
            time: quote.dateTime.flatMap(TradeItTime.parse)
        )
    }
}

enum TradeItTime {
    /// RFC 3339 with or without a fraction; anything else is left out (TradeIt does not document the format).
    static func parse(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }
}
