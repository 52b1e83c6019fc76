import Foundation
import GatewayModel

/// Alpaca's order rules that are known in advance, checked before anything is sent so the client gets a field-level
/// `unprocessable` instead of a broker round trip. Sources: docs.alpaca.markets "Orders at Alpaca" (time in force,
/// fractional and crypto orders, sub-penny rule) and the 422/40010001 messages quoted in the wire reference.
enum AlpacaRules {
    static let maximumClientOrderIdLength = 128
    static let cryptoTimeInForce: Set<TimeInForce> = [.gtc, .ioc]
    static let cryptoOrderTypes: Set<OrderType> = [.market, .limit, .stopLimit]

    /// Everything wrong with a request for Alpaca, the canonical rules included.
    static func problems(for request: OrderRequest) -> [FieldProblem] {
        var problems = request.problems()
        let assetClass = request.instrument.impliedAssetClass
        switch assetClass {
        case .equity, .etf, .crypto: break
        default:
            problems.append(FieldProblem(field: "assetClass", problem: "Alpaca trades equities and crypto only"))
            return problems
        }
        if request.timeInForce == .gtd {
            problems.append(FieldProblem(field: "timeInForce", problem: "gtd is not offered by Alpaca; use day or gtc"))
        }
        // "Dollar amount to trade. Cannot work with qty. Can only work for market order types and time_in_force =
        // day" (Alpaca's order reference, `notional`); crypto takes its own gtc/ioc below. Whether the asset is
        // fractionable is Alpaca's to answer (422).
        if request.notional != nil {
            if request.type != .market {
                problems.append(FieldProblem(field: "notional", problem: "Alpaca takes notional orders as market orders only"))
            }
        }
        if let clientOrderId = request.clientOrderId, clientOrderId.count > maximumClientOrderIdLength {
            problems.append(
                FieldProblem(field: "clientOrderId", problem: "must be at most \(maximumClientOrderIdLength) characters")
            )
        }
        if assetClass == .crypto {
            if !request.instrument.alpacaSymbol.contains("/") {
                problems.append(FieldProblem(field: "symbol", problem: "a crypto symbol must be a pair such as BTC/USD"))
            }
            if !cryptoTimeInForce.contains(request.timeInForce) {
                problems.append(FieldProblem(field: "timeInForce", problem: "crypto orders take gtc or ioc"))
            }
            if !cryptoOrderTypes.contains(request.type) {
                problems.append(FieldProblem(field: "type", problem: "crypto orders are market, limit or stop_limit"))
            }
            if request.side == .sellShort || request.side == .buyToCover {
                problems.append(FieldProblem(field: "side", problem: "Alpaca does not short crypto"))
            }
        } else {
            if let quantity = request.quantity, !isWhole(quantity), request.timeInForce != .day {
                problems.append(FieldProblem(field: "timeInForce", problem: "fractional equity orders must be day orders"))
            }
            if request.notional != nil, request.timeInForce != .day {
                problems.append(FieldProblem(field: "timeInForce", problem: "notional equity orders must be day orders"))
            }
            for (field, price) in [("limitPrice", request.limitPrice), ("stopPrice", request.stopPrice)] {
                if let price, let problem = subPennyProblem(price) {
                    problems.append(FieldProblem(field: field, problem: problem))
                }
            }
        }
        return problems
    }

    /// Problems with a change to a working order; Alpaca replaces quantity, prices and time in force only.
    static func problems(for modification: OrderModification, of order: Order) -> [FieldProblem] {
        var problems = modification.problems()
        if let type = modification.type, type != order.type {
            problems.append(
                FieldProblem(
                    field: "type",
                    problem: "Alpaca cannot change an order's type; cancel it and place a new order"
                )
            )
        }
        if modification.quantity != nil, order.notional != nil {
            problems.append(
                FieldProblem(field: "quantity", problem: "a notional order is sized in money: Alpaca cannot change its quantity")
            )
        }
        if let timeInForce = modification.timeInForce {
            if timeInForce == .gtd {
                problems.append(FieldProblem(field: "timeInForce", problem: "gtd is not offered by Alpaca"))
            } else if order.instrument.assetClass == .crypto, !cryptoTimeInForce.contains(timeInForce) {
                problems.append(FieldProblem(field: "timeInForce", problem: "crypto orders take gtc or ioc"))
            }
        }
        if modification.limitPrice != nil, !order.type.needsLimitPrice {
            problems.append(FieldProblem(field: "limitPrice", problem: "is not allowed for \(order.type.rawValue) orders"))
        }
        if modification.stopPrice != nil, !order.type.needsStopPrice {
            problems.append(FieldProblem(field: "stopPrice", problem: "is not allowed for \(order.type.rawValue) orders"))
        }
        if order.instrument.assetClass != .crypto {
            for (field, price) in [("limitPrice", modification.limitPrice), ("stopPrice", modification.stopPrice)] {
                if let price, let problem = subPennyProblem(price) {
                    problems.append(FieldProblem(field: field, problem: problem))
                }
            }
        }
        return problems
    }

    /// Equity prices of $1.00 or more take at most 2 decimals, below $1.00 at most 4.
    static func subPennyProblem(_ price: Decimal) -> String? {
        let digits = DecimalText.fractionDigits(price)
        if price >= 1, digits > 2 { return "must have at most 2 decimals at or above 1.00" }
        if price < 1, digits > 4 { return "must have at most 4 decimals below 1.00" }
        return nil
    }

    static func isWhole(_ value: Decimal) -> Bool { DecimalText.fractionDigits(value) == 0 }
}
