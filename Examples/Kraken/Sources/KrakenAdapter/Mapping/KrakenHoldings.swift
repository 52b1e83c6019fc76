import Foundation
import GatewayModel

/// Kraken's balances, and the rule that turns holdings into positions.
///
/// - A balance per asset of `BalanceEx` with a non-zero `balance`: total = `balance`, held = `hold_trade`, available =
///   `balance + credit - credit_used - hold_trade` (never below 0), named by the asset's canonical code.
/// - Every such asset except the valuation currency `V` (setting `valuationCurrency`, default `USD`) is a long
///   position in `<asset>/V`, valued at the last trade (`c[0]`) of the Kraken pair with that base and quote when one
///   is listed; otherwise it has no price. The valuation currency itself is cash: a balance, never a position.
/// - Kraken's balances carry no cost basis, so average price, cost basis and P&L are not given.
enum KrakenHoldings {
    /*
     {"ZUSD": {"balance": "25435.21", "hold_trade": "8249.76"}, "XXBT": {"balance": "1.2435", "hold_trade": "0.8423"}}
     → USD total 25435.21 held 8249.76 available 17185.45; BTC total 1.2435 held 0.8423 available 0.4012
     */
    static func balances(_ wire: [String: KrakenBalance], markets: KrakenMarkets, connectionId: String, accountId: String) -> [Balance] {
        var merged: [String: (total: Decimal, held: Decimal, available: Decimal)] = [:]
        for (asset, entry) in wire where entry.balance != 0 {
            let code = markets.code(asset)
            let available = max(0, entry.balance + entry.credit - entry.creditUsed - entry.holdTrade)
            let sum = merged[code, default: (0, 0, 0)]
            merged[code] = (sum.total + entry.balance, sum.held + entry.holdTrade, sum.available + available)
        }
        return merged.keys.sorted().map { code in
            let entry = merged[code]!
            return Balance(
                connectionId: connectionId,
                accountId: accountId,
                currency: code,
                total: entry.total,
                available: entry.available,
                held: entry.held
            )
        }
    }

    /// Asset code → the pair id valuing it in the valuation currency, for the assets held that have one.
    static func valuationPairs(_ wire: [String: KrakenBalance], markets: KrakenMarkets, valuationCurrency: String) -> [String: String] {
        var found: [String: String] = [:]
        for (asset, entry) in wire where entry.balance != 0 {
            let code = markets.code(asset)
            guard code != valuationCurrency, let pair = markets.pair(symbol: "\(code)/\(valuationCurrency)") else { continue }
            found[code] = pair.id
        }
        return found
    }

    static func positions(
        _ wire: [String: KrakenBalance],
        markets: KrakenMarkets,
        tickers: [String: KrakenTicker],
        valuationCurrency: String,
        connectionId: String,
        accountId: String
    ) -> [Position] {
        let pairs = valuationPairs(wire, markets: markets, valuationCurrency: valuationCurrency)
        var totals: [String: Decimal] = [:]
        for (asset, entry) in wire where entry.balance != 0 {
            let code = markets.code(asset)
            if code != valuationCurrency { totals[code, default: 0] += entry.balance }
        }
        return totals.keys.sorted().map { code in
            let quantity = totals[code]!
            var instrument = Instrument(symbol: "\(code)/\(valuationCurrency)", assetClass: .crypto, currency: valuationCurrency)
            var price: Decimal?
            if let id = pairs[code], let pair = markets.pairs[id] {
                instrument = markets.instrument(id: id, pair: pair)
                price = tickers[id]?.c?.first?.decimal
            }
            return Position(
                connectionId: connectionId,
                accountId: accountId,
                instrument: instrument,
                quantity: quantity,
                marketValue: price.map { quantity * $0 },
                lastPrice: price,
                currency: valuationCurrency
            )
        }
    }
}
