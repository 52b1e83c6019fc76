import Foundation
import GatewayModel

extension Order {
    /*
     {"AccountId": "9226397", "AccountKey": "Cf4xZWiYL6W1nMKpygBLLA==", "Amount": 100000, "AssetType": "FxSpot",
      "BuySell": "Buy", "CalculationReliability": "Ok", "ClientKey": "Cf4xZWiYL6W1nMKpygBLLA==",
      "CurrentPrice": 7.46175, "Duration": {"DurationType": "GoodTillCancel"}, "IsMarketOpen": true,
      "OpenOrderType": "Limit", "OrderAmountType": "Quantity", "OrderId": "76332324", "OrderRelation": "StandAlone",
      "OrderTime": "2019-03-07T14:54:17.423333Z", "Price": 7, "RelatedOpenOrders": [], "Status": "Working", "Uic": 16,
      "DisplayAndFormat": {"Currency": "DKK", "Decimals": 4, "Description": "Euro/Danish Krone", "Symbol": "EURDKK", ...}}
     */
    /// `id` is the broker order id (the gateway layer replaces it with its own). `Price` is the limit price of a limit
    /// order and the stop price of a stop or stop-limit order (whose limit is `StopLimitPrice`). The instrument comes
    /// from `DisplayAndFormat`, else from `known` (looked up by `Uic` + `AssetType`). An order placed without
    /// `ExternalReference` carries its `OrderId` as client order id.
    init(saxo order: SaxoOrder, connectionId: String, known: Instrument?) throws {
        guard let assetType = order.assetType else { throw SaxoErrors.malformed("an order without an AssetType") }
        let instrument: Instrument
        if let symbol = order.displayAndFormat?.symbol {
            instrument = Instrument(
                saxoSymbol: symbol,
                assetType: assetType,
                uic: order.uic,
                name: order.displayAndFormat?.description,
                currency: order.displayAndFormat?.currency
            )
        } else if let known {
            instrument = known
        } else {
            throw SaxoErrors.malformed("an order without DisplayAndFormat for an instrument the gateway cannot name")
        }
        guard let amount = order.amount else { throw SaxoErrors.malformed("an order without an Amount") }
        guard let rawType = order.openOrderType else { throw SaxoErrors.malformed("an order without an OpenOrderType") }
        guard let rawStatus = order.status else { throw SaxoErrors.malformed("an order without a Status") }
        guard let side = order.buySell else { throw SaxoErrors.malformed("an order without BuySell") }
        let type = try OrderType(saxo: rawType)
        let filled = order.filledAmount ?? 0
        var limitPrice: Decimal?
        var stopPrice: Decimal?
        switch type {
        case .market: break
        case .limit: limitPrice = order.price
        case .stop: stopPrice = order.price
        case .stopLimit:
            stopPrice = order.price
            limitPrice = order.stopLimitPrice
        }
        self.init(
            id: order.orderId,
            brokerOrderId: order.orderId,
            clientOrderId: order.externalReference ?? order.orderId,
            connectionId: connectionId,
            broker: .saxo,
            accountId: order.accountId ?? "",
            instrument: instrument,
            side: try OrderSide(saxo: side),
            type: type,
            timeInForce: try TimeInForce(saxo: order.duration?.durationType ?? "DayOrder"),
            quantity: amount,
            limitPrice: limitPrice,
            stopPrice: stopPrice,
            status: try OrderStatus(saxo: rawStatus, filledAmount: filled),
            filledQuantity: filled,
            createdAt: order.orderTime.flatMap(SaxoTimestamp.parse),
            expiresAt: order.duration?.expirationDateTime.flatMap(SaxoTimestamp.parse),
            brokerStatus: rawStatus
        )
    }

    /// The order just placed, as far as the placement's answer tells: accepted (`pending_new`, nothing filled) when
    /// neither the open orders nor the audit list it yet, or the read-back failed. The order pipeline reconciles it
    /// by client order id; nothing is guessed. `brokerStatus` says why the status is not Saxo's own.
    init(
        placed request: OrderRequest,
        brokerOrderId: String,
        clientOrderId: String,
        instrument: Instrument,
        now: Date,
        brokerStatus: String
    ) {
        // A validated request to Saxo has a quantity (notional requests are refused, `SaxoAdapter.validate`).
        let quantity = request.quantity ?? 0
        self.init(
            id: brokerOrderId,
            brokerOrderId: brokerOrderId,
            clientOrderId: clientOrderId,
            connectionId: request.connectionId,
            broker: .saxo,
            accountId: request.accountId,
            instrument: instrument,
            side: request.side,
            type: request.type,
            timeInForce: request.timeInForce,
            quantity: quantity,
            limitPrice: request.limitPrice,
            stopPrice: request.stopPrice,
            status: .pendingNew,
            filledQuantity: 0,
            createdAt: now,
            updatedAt: now,
            expiresAt: request.expiresAt,
            brokerStatus: brokerStatus
        )
    }
}

extension SaxoOrderRequest {
    /// The wire body for a validated request. `OrderPrice` is the limit price, or the stop price of a stop or
    /// stop-limit order (whose limit goes in `StopLimitPrice`).
    init(
        _ request: OrderRequest,
        accountKey: String,
        uic: Int,
        assetType: String,
        externalReference: String?,
        fieldGroups: [String]? = nil
    ) {
        let (orderPrice, stopLimitPrice) = Self.prices(
            type: request.type,
            limitPrice: request.limitPrice,
            stopPrice: request.stopPrice
        )
        self.init(
            accountKey: accountKey,
            uic: uic,
            assetType: assetType,
            buySell: request.side.saxo,
            // Validated: a request to Saxo has a quantity (a notional one is refused before, `SaxoAdapter.validate`).
            amount: request.quantity ?? 0,
            orderType: request.type.saxo(assetType: assetType),
            orderPrice: orderPrice,
            stopLimitPrice: stopLimitPrice,
            orderDuration: request.timeInForce.saxoDuration(expiresAt: request.expiresAt),
            externalReference: externalReference,
            fieldGroups: fieldGroups
        )
    }

    static func prices(type: OrderType, limitPrice: Decimal?, stopPrice: Decimal?) -> (order: Decimal?, stopLimit: Decimal?) {
        switch type {
        case .market: (nil, nil)
        case .limit: (limitPrice, nil)
        case .stop: (stopPrice, nil)
        case .stopLimit: (stopPrice, limitPrice)
        }
    }
}

extension SaxoOrderChange {
    /// `PATCH trade/v2/orders` for `order` with `modification` applied. Saxo wants the whole order (type, amount,
    /// price, duration), so fields the modification leaves `nil` keep the order's values. A change of type (the
    /// seed's Market → Limit → Market) drops prices the new type does not take.
    init(_ order: Order, _ modification: OrderModification, orderId: String, accountKey: String, assetType: String) {
        let type = modification.type ?? order.type
        let limitPrice = type.needsLimitPrice ? (modification.limitPrice ?? order.limitPrice) : nil
        let stopPrice = type.needsStopPrice ? (modification.stopPrice ?? order.stopPrice) : nil
        let (orderPrice, stopLimitPrice) = SaxoOrderRequest.prices(type: type, limitPrice: limitPrice, stopPrice: stopPrice)
        let timeInForce = modification.timeInForce ?? order.timeInForce
        self.init(
            orderId: orderId,
            accountKey: accountKey,
            assetType: assetType,
            orderType: type.saxo(assetType: assetType),
            amount: modification.quantity ?? order.quantity,
            orderPrice: orderPrice,
            stopLimitPrice: stopLimitPrice,
            orderDuration: timeInForce.saxoDuration(expiresAt: order.expiresAt)
        )
    }
}
