import Foundation
import SandboxKit

/// One position marked to market.
struct SaxoPositionValuation {
    let position: SaxoPosition
    /// The price the position would close at: the bid for a long, the ask for a short.
    let currentPrice: Decimal
    let currentPriceType: String
    /// Profit or loss in the instrument's quote currency.
    let profitLoss: Decimal
    let profitLossInBase: Decimal
    /// FX: the signed amount of the pair's base currency; stocks: signed amount × price in the quote currency.
    let exposure: Decimal
    let exposureInBase: Decimal
    /// Quote currency → account currency now.
    let conversionRateCurrent: Decimal
    let dayPercentChange: Decimal
}

/// A net position (all positions of one instrument) marked to market.
struct SaxoNetPositionValuation {
    let instrument: SaxoInstrument
    let positions: [SaxoPositionValuation]
    let amount: Decimal
    let averageOpenPrice: Decimal
    let currentPrice: Decimal
    let currentPriceType: String
    let profitLoss: Decimal
    let profitLossInBase: Decimal
    let exposure: Decimal
    let exposureInBase: Decimal
    let dayPercentChange: Decimal
}

/// The account's figures as `port/v1/balances` reports them, all in the account currency.
///
/// The model is deliberately small and consistent: FX is a margin product (its P&L is unrealised until closed,
/// and margin used is `fxMarginRate` × |exposure|); stocks are cash products (bought with cash, counted at
/// market value). `TotalValue = CashBalance + UnrealizedMarginProfitLoss + NonMarginPositionsValue`,
/// `NetEquityForMargin = TotalValue`, `MarginAvailableForTrading = NetEquityForMargin − margin used`.
struct SaxoAccountValuation {
    let cashBalance: Decimal
    let unrealizedMarginProfitLoss: Decimal
    let nonMarginPositionsValue: Decimal
    /// Positive here; Saxo reports it negative (`MarginUsedByCurrentPositions`).
    let marginUsed: Decimal
    let marginNetExposure: Decimal
    let totalValue: Decimal
    let marginAvailable: Decimal
    let marginUtilizationPct: Decimal
    let reliable: Bool
    let openPositionsCount: Int
    let netPositionsCount: Int
    let ordersCount: Int
    let netPositions: [SaxoNetPositionValuation]
}

extension SaxoAccountBook {
    func valuation(of position: SaxoPosition, env: SaxoTradingEnvironment) -> SaxoPositionValuation {
        let instrument = position.instrument
        let quote = env.quote(instrument)
        let long = position.amount > 0
        let current = quote.map { long ? $0.bid : $0.ask } ?? position.openPrice
        let profitLoss = (current - position.openPrice) * position.amount
        let quoteRate = env.rate(from: instrument.market.currency, to: env.accountCurrency) ?? 1
        let exposure = instrument.isFX ? position.amount : position.amount * current
        let exposureRate = env.rate(from: instrument.exposureCurrency, to: env.accountCurrency) ?? 1
        return SaxoPositionValuation(
            position: position,
            currentPrice: current,
            currentPriceType: long ? "Bid" : "Ask",
            profitLoss: profitLoss,
            profitLossInBase: profitLoss * quoteRate,
            exposure: exposure,
            exposureInBase: exposure * exposureRate,
            conversionRateCurrent: quoteRate,
            dayPercentChange: quote.map { $0.changeFraction * 100 } ?? 0
        )
    }

    func netPositionValuations(env: SaxoTradingEnvironment) -> [SaxoNetPositionValuation] {
        netPositionInstruments.map { instrument in
            let members = positions.filter { $0.instrument.listing.key == instrument.listing.key }.map { valuation(of: $0, env: env) }
            let amount = members.reduce(Decimal(0)) { $0 + $1.position.amount }
            let weighted = members.reduce(Decimal(0)) { $0 + $1.position.amount * $1.position.openPrice }
            let quote = env.quote(instrument)
            let current = quote.map { amount >= 0 ? $0.bid : $0.ask } ?? members.first?.currentPrice ?? 0
            return SaxoNetPositionValuation(
                instrument: instrument,
                positions: members,
                amount: amount,
                averageOpenPrice: amount.isZero ? 0 : weighted / amount,
                currentPrice: current,
                currentPriceType: amount >= 0 ? "Bid" : "Ask",
                profitLoss: members.reduce(Decimal(0)) { $0 + $1.profitLoss },
                profitLossInBase: members.reduce(Decimal(0)) { $0 + $1.profitLossInBase },
                exposure: members.reduce(Decimal(0)) { $0 + $1.exposure },
                exposureInBase: members.reduce(Decimal(0)) { $0 + $1.exposureInBase },
                dayPercentChange: quote.map { $0.changeFraction * 100 } ?? 0
            )
        }
    }

    func accountValuation(env: SaxoTradingEnvironment) -> SaxoAccountValuation {
        let nets = netPositionValuations(env: env)
        var unrealized: Decimal = 0
        var nonMargin: Decimal = 0
        var exposure: Decimal = 0
        for net in nets {
            if net.instrument.isFX {
                unrealized += net.profitLossInBase
                exposure += abs(net.exposureInBase)
            } else {
                nonMargin += net.exposureInBase
            }
        }
        let reliable = nets.allSatisfy { env.rate(from: $0.instrument.market.currency, to: env.accountCurrency) != nil }
        let marginUsed = exposure * env.configuration.fxMarginRate
        let total = cash + unrealized + nonMargin
        let utilization = total > 0 ? marginUsed / total * 100 : (marginUsed > 0 ? 100 : 0)
        return SaxoAccountValuation(
            cashBalance: cash,
            unrealizedMarginProfitLoss: unrealized,
            nonMarginPositionsValue: nonMargin,
            marginUsed: marginUsed,
            marginNetExposure: exposure,
            totalValue: total,
            marginAvailable: total - marginUsed,
            marginUtilizationPct: utilization,
            reliable: reliable,
            openPositionsCount: positions.count,
            netPositionsCount: nets.count,
            ordersCount: orders.count,
            netPositions: nets
        )
    }
}
