import Foundation
import GatewayModel

/// What TradeOgre's open orders hold, and the balances that follow from it.
///
/// `GET /account/balances` gives each currency's total (held amounts included) and nothing else; `POST
/// /account/balance` gives one currency's `available`, one call per currency. The held amounts follow from the open
/// orders instead (`POST /account/orders` without a market lists them all), so two calls give every balance:
///
/// - a sell holds what remains of its quantity, in the market's base currency;
/// - a buy holds `price × quantity` (what remains) in the quote currency, rounded **up** to 8 decimals. TradeOgre
///   keeps every amount to 8 decimals and does not say which way it rounds a hold; rounding up never shows more
///   available than the venue could (the built-in sandbox holds the same way).
/// - No fee is counted: no source records TradeOgre holding one beside an order.
///
/// `available = total − held`, exact in `Decimal`. The two answers are read at slightly different moments, so an order
/// may claim more than the total it was read with (it filled meanwhile); the held amount is then capped at the total,
/// so `available + held == total` and available is never negative.
enum HeldFunds {
    static let scale = 8

    /*
     [{"uuid":"ae19d981-7341-1d2a-54e8-e32b4f33b4f6","date":1692372889,"type":"buy","price":"0.00420000",
       "quantity":"1.00000000","market":"XMR-BTC"},
      {"uuid":"55c36339-da4c-1b10-2f56-e52f41092b02","date":1692204956,"type":"sell","price":"0.5",
       "quantity":"1.00000000","market":"XMR-BTC"}]
     → XMR 1 (the sell), BTC 0.0042 (the buy)
     */
    /// Currency → what the open orders hold in it. An order whose market or side cannot be read fails the read
    /// (`malformed_response`): a balance that silently ignored it would overstate what is available.
    static func held(by orders: [TradeOgreOpenOrder], naming: TradeOgreMarketNaming) throws -> [String: Decimal] {
        var held: [String: Decimal] = [:]
        for order in orders {
            guard let market = MarketName(wire: order.market, naming: naming) else {
                throw TradeOgreErrors.malformed("an open order whose market name is not BASE-QUOTE")
            }
            guard order.quantity >= 0, order.price >= 0 else {
                throw TradeOgreErrors.malformed("an open order with a negative price or quantity")
            }
            switch try TradeOgreOrderState.side(order.type) {
            case .buy: held[market.quote, default: 0] += roundUp(order.price * order.quantity)
            default: held[market.base, default: 0] += order.quantity
            }
        }
        return held
    }

    /// One balance per currency with a total (zero totals only with `includeZeroBalances`), sorted by currency.
    static func balances(
        totals: [String: Decimal],
        held: [String: Decimal],
        includeZero: Bool,
        connectionId: String,
        accountId: String
    ) -> [Balance] {
        totals.keys.sorted().compactMap { currency in
            guard let total = totals[currency], includeZero || total != 0 else { return nil }
            let holding = max(0, min(held[currency] ?? 0, total))
            return Balance(
                connectionId: connectionId,
                accountId: accountId,
                currency: currency,
                total: total,
                available: total - holding,
                held: holding
            )
        }
    }

    static func roundUp(_ value: Decimal) -> Decimal {
        var input = value
        var result = Decimal()
        NSDecimalRound(&result, &input, scale, .up)
        return result
    }
}
