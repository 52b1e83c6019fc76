import Foundation
import GatewayModel

/// A crypto exchange has holdings, not positions. The rule that turns one into the other:
///
/// - Every currency `C` with a non-zero total in `/account/balances`, except the valuation currency `V` (setting
///   `valuationCurrency`, default `BTC`), is a long position of that total in the pair `C/V`.
/// - It is valued at the last price of the market `C-V`; if the venue lists only `V-C`, at 1 / that price
///   (8 decimals); if neither, it has no price and no market value. Prices come from one `/markets` call.
/// - The valuation currency itself is cash: it is a balance, never a position.
/// - TradeOgre keeps no cost basis, so average price, cost basis and P&L are not given.
enum Holdings {
    /*
     balances: {"success":true,"balances":{"BTC":"0.00015033","XMR":"1.00000000","LTC":"21.00000000"}}
     markets:  [{"XMR-BTC":{"price":"0.00212510",...}}, {"LTC-USDT":{"price":"86.56810515",...}}]
     */
    static func positions(
        totals: [String: Decimal],
        markets: TradeOgreMarkets,
        naming: TradeOgreMarketNaming,
        valuationCurrency: String,
        connectionId: String,
        accountId: String
    ) -> [Position] {
        var direct: [String: (price: Decimal, name: String?)] = [:]
        var inverse: [String: Decimal] = [:]
        for entry in markets.entries {
            guard let market = MarketName(wire: entry.name, naming: naming), let price = entry.ticker.price, price > 0
            else { continue }
            if market.quote == valuationCurrency { direct[market.base] = (price, entry.ticker.baseName) }
            if market.base == valuationCurrency { inverse[market.quote] = price }
        }
        var positions: [Position] = []
        for currency in totals.keys.sorted() where currency != valuationCurrency {
            guard let quantity = totals[currency], quantity != 0 else { continue }
            let pair = MarketName(base: currency, quote: valuationCurrency)
            var instrument = Instrument(tradeOgre: pair, naming: naming, name: direct[currency]?.name)
            var price: Decimal?
            if let found = direct[currency] {
                price = found.price
            } else if let other = inverse[currency] {
                price = round(1 / other)
                // No market of that name exists on the venue: the pair is only the valuation.
                instrument.brokerKey = nil
            } else {
                instrument.brokerKey = nil
            }
            positions.append(
                Position(
                    connectionId: connectionId,
                    accountId: accountId,
                    instrument: instrument,
                    quantity: quantity,
                    marketValue: price.map { round(quantity * $0) },
                    lastPrice: price,
                    currency: valuationCurrency
                )
            )
        }
        return positions
    }

    static func round(_ value: Decimal) -> Decimal {
        var input = value
        var result = Decimal()
        NSDecimalRound(&result, &input, 8, .plain)
        return result
    }
}
