import Foundation
import GatewayCore
import GatewayModel

/// TradeOgre's order rules, checked before anything is sent so the client gets a field-level `unprocessable`
/// instead of a round trip. Sources: TradeOgre's API documentation (`/order/buy` and `/order/sell` take `market`,
/// `quantity` and `price`: limit orders only, which rest until cancelled), ccxt 4.5.5 `tradeogre.create_order`
/// (market orders refused, 8-decimal precision for amount and price).
enum TradeOgreRules {
    static let maximumFractionDigits = 8

    static func problems(for request: OrderRequest) -> [FieldProblem] {
        var problems = request.problems()
        if request.instrument.assetClass.map({ $0 != .crypto }) ?? false || MarketName(symbol: request.instrument.symbol) == nil {
            problems.append(FieldProblem(field: "symbol", problem: "TradeOgre trades crypto pairs written BASE/QUOTE, such as XMR/BTC"))
        }
        if request.type != .limit {
            problems.append(FieldProblem(field: "type", problem: "TradeOgre takes limit orders only"))
        }
        if request.notional != nil { problems.append(OrderRequest.notionalProblem(at: .tradeogre)) }
        if request.side == .sellShort || request.side == .buyToCover {
            problems.append(FieldProblem(field: "side", problem: "TradeOgre has no short selling: use buy or sell"))
        }
        if request.timeInForce != .gtc {
            problems.append(FieldProblem(field: "timeInForce", problem: "TradeOgre orders are good till cancelled: use gtc"))
        }
        problems += precisionProblems(quantity: request.quantity, limitPrice: request.limitPrice)
        return problems
    }

    static func problems(for modification: OrderModification) -> [FieldProblem] {
        var problems = modification.problems()
        if let type = modification.type, type != .limit {
            problems.append(FieldProblem(field: "type", problem: "TradeOgre takes limit orders only"))
        }
        if modification.stopPrice != nil {
            problems.append(FieldProblem(field: "stopPrice", problem: "TradeOgre has no stop orders"))
        }
        if let timeInForce = modification.timeInForce, timeInForce != .gtc {
            problems.append(FieldProblem(field: "timeInForce", problem: "TradeOgre orders are good till cancelled: use gtc"))
        }
        problems += precisionProblems(quantity: modification.quantity, limitPrice: modification.limitPrice)
        return problems
    }

    static func precisionProblems(quantity: Decimal?, limitPrice: Decimal?) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        for (field, value) in [("quantity", quantity), ("limitPrice", limitPrice)] {
            if let value, DecimalText.fractionDigits(value) > maximumFractionDigits {
                problems.append(FieldProblem(field: field, problem: "must have at most 8 decimal places"))
            }
        }
        return problems
    }
}
