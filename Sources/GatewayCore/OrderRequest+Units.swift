public import Foundation
public import GatewayModel

extension OrderRequest {
    /// The problem of a notional (money-sized) request at a broker that sizes orders in units only, for its rules.
    public static func notionalProblem(at broker: BrokerKind) -> FieldProblem {
        FieldProblem(field: "notional", problem: "\(broker.rawValue) does not take orders sized in money; send quantity")
    }

    /// The units of a request to a broker that sizes orders in units only (every broker but Alpaca). The gateway
    /// refuses a notional request to such a broker before the adapter sees it (its capabilities lack
    /// `notionalOrders`); an adapter called directly refuses it here, never sending a quantity of 0.
    public func units(at broker: BrokerKind) throws -> Decimal {
        guard let quantity, notional == nil else {
            var error = GatewayError.unprocessable([Self.notionalProblem(at: broker)])
            error.broker = broker
            throw error
        }
        return quantity
    }
}
