import Foundation
import GatewayModel

extension Order {
    /*
     {"id": "61e69015-8549-4bfd-b9c3-01e75843f47d", "client_order_id": "eb9e2aaa-f71a-4f51-b5b4-52a6c565dad4",
      "created_at": "2021-03-16T18:38:01.942282Z", "updated_at": "2021-03-16T18:38:01.942282Z",
      "submitted_at": "2021-03-16T18:38:01.937734Z", "filled_at": null, "replaced_by": null, "replaces": null,
      "asset_id": "904837e3-3b76-47ec-b432-046db621571b", "symbol": "AAPL", "asset_class": "us_equity",
      "notional": null, "qty": "1", "filled_qty": "0", "filled_avg_price": null, "order_class": "simple",
      "order_type": "limit", "type": "limit", "side": "buy", "time_in_force": "day", "limit_price": "300",
      "stop_price": null, "status": "accepted", "extended_hours": false, "legs": null, ...}
     */
    /// `id` is the broker order id: the gateway layer replaces it with its own. A notional (dollar-amount) order has
    /// no `qty`: it reads with its `notional`, and its quantity as the quantity filled so far. `replaces` and
    /// `replaced_by` are Alpaca order ids (a PATCH replaces the order with a new one); the times are Alpaca's.
    init(alpaca order: AlpacaOrder, connectionId: String, accountId: String) throws {
        self.init(
            id: order.id,
            brokerOrderId: order.id,
            clientOrderId: order.clientOrderId,
            connectionId: connectionId,
            broker: .alpaca,
            accountId: accountId,
            instrument: Instrument(
                alpacaSymbol: order.symbol,
                assetClass: order.assetClass,
                assetId: order.assetId,
                exchange: nil,
                name: nil
            ),
            side: try OrderSide(alpaca: order.side, positionIntent: order.positionIntent),
            type: try OrderType(alpaca: order.type),
            timeInForce: try TimeInForce(alpaca: order.timeInForce),
            quantity: order.qty ?? order.filledQty,
            limitPrice: order.limitPrice,
            stopPrice: order.stopPrice,
            status: try OrderStatus(alpaca: order.status),
            filledQuantity: order.filledQty,
            // Alpaca writes 0 rather than null in some payloads for an order with no fills.
            averageFillPrice: order.filledQty > 0 ? order.filledAvgPrice : nil,
            createdAt: order.createdAt ?? order.submittedAt,
            updatedAt: order.updatedAt,
            expiresAt: nil,
            brokerStatus: order.status,
            notional: order.notional,
            replaces: order.replaces,
            replacedBy: order.replacedBy,
            submittedAt: order.submittedAt,
            filledAt: order.filledAt,
            canceledAt: order.canceledAt,
            expiredAt: order.expiredAt
        )
    }
}

extension AlpacaOrderRequest {
    /// The wire body for a validated request (see `AlpacaRules.problems(for:)`).
    init(_ request: OrderRequest, clientOrderId: String) {
        self.init(
            symbol: request.instrument.alpacaSymbol,
            qty: request.quantity.map(DecimalText.format),
            notional: request.notional.map(DecimalText.format),
            side: request.side.alpaca,
            type: request.type.alpaca,
            timeInForce: request.timeInForce.alpaca ?? "day",
            limitPrice: request.limitPrice.map(DecimalText.format),
            stopPrice: request.stopPrice.map(DecimalText.format),
            clientOrderId: clientOrderId
        )
    }
}

extension AlpacaReplaceRequest {
    init(_ modification: OrderModification) {
        self.init(
            qty: modification.quantity.map(DecimalText.format),
            timeInForce: modification.timeInForce?.alpaca,
            limitPrice: modification.limitPrice.map(DecimalText.format),
            stopPrice: modification.stopPrice.map(DecimalText.format)
        )
    }
}
