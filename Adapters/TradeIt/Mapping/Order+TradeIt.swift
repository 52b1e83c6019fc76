import Foundation
import GatewayCore
import GatewayModel

extension OrderStatus {
    /// TradeIt's `orderStatus` (TradeItIosTicketSDK2 `TradeItOrderStatus`). `NOT_FOUND` is not a state: the caller
    /// turns it into `not_found`. Anything unknown is a malformed answer, never a guess.
    init(tradeIt status: String) throws {
        switch status.uppercased() {
        case "PENDING": self = .pendingNew
        case "OPEN", "GROUP_OPEN": self = .open
        case "PART_FILLED": self = .partiallyFilled
        case "FILLED": self = .filled
        case "CANCELED", "CANCELLED": self = .canceled
        case "REJECTED": self = .rejected
        case "PENDING_CANCEL": self = .pendingCancel
        case "EXPIRED": self = .expired
        default: throw TradeItErrors.malformed("an order status the gateway does not know")
        }
    }
}

extension Order {
    /*
     {"orderNumber":"8000003","orderStatus":"OPEN","orderType":"EQUITY_OR_ETF","orderExpiration":"GTC",
      "orderLegs":[{"symbol":"AAPL","action":"BUY","orderedQuantity":1,"filledQuantity":0,
                    "priceInfo":{"type":"LIMIT","limitPrice":150,"stopPrice":null},"fills":[]}]}
     */
    /// One order of `order/getAllOrderStatus`, `getSingleOrderStatus` or `cancelOrder` (its first leg). TradeIt has no
    /// client order ids: `clientOrderId` is the caller's when known, else the order number.
    init(tradeIt details: TradeItOrderStatusDetails, connectionId: String, accountId: String, clientOrderId: String? = nil) throws {
        guard let number = details.orderNumber, let statusText = details.orderStatus else {
            throw TradeItErrors.malformed("an order without orderNumber or orderStatus")
        }
        if statusText.uppercased() == "NOT_FOUND" {
            throw GatewayError(.notFound, "TradeIt: no order \(number)", broker: .tradeit, brokerCode: "NOT_FOUND")
        }
        guard let leg = details.orderLegs?.first, let symbol = leg.symbol else {
            throw TradeItErrors.malformed("an order without an order leg")
        }
        let isCrypto = symbol.contains("/") || details.orderType?.uppercased() == "CRYPTO"
        let fills = leg.fills ?? []
        let fillQuantity = fills.reduce(Decimal(0)) { $0 + ($1.quantity ?? 0) }
        let filled = leg.filledQuantity ?? fillQuantity
        let fillValue = fills.reduce(Decimal(0)) { $0 + ($1.quantity ?? 0) * ($1.price ?? 0) }
        let lastFill = fills.compactMap { $0.timestamp.flatMap(TradeItTime.parse) }.max()
        let status = try OrderStatus(tradeIt: statusText)
        self.init(
            id: number,
            brokerOrderId: number,
            clientOrderId: clientOrderId ?? number,
            connectionId: connectionId,
            broker: .tradeit,
            accountId: accountId,
            instrument: Instrument(symbol: symbol.uppercased(), assetClass: isCrypto ? .crypto : .equity),
            side: try OrderSide(tradeItLeg: leg.action ?? ""),
            type: try OrderType(tradeItPrice: leg.priceInfo?.type ?? ""),
            timeInForce: TimeInForce(tradeIt: details.orderExpiration),
            quantity: leg.orderedQuantity ?? filled,
            limitPrice: leg.priceInfo?.limitPrice,
            stopPrice: leg.priceInfo?.stopPrice,
            status: status,
            filledQuantity: filled,
            averageFillPrice: fillQuantity > 0 ? fillValue / fillQuantity : nil,
            updatedAt: lastFill,
            brokerStatus: statusText,
            // TradeIt's only order times are its fills' `timestamp`s: a filled order filled at its last one.
            filledAt: status == .filled ? lastFill : nil
        )
    }
}

extension OrderSide {
    /// Leg actions: `BUY`, `SELL`, `BUY_TO_COVER`, `SELL_SHORT`, and the option forms `BUY_OPEN` … `SELL_CLOSE`.
    init(tradeItLeg action: String) throws {
        switch action.uppercased() {
        case "BUY", "BUY_OPEN", "BUY_CLOSE": self = .buy
        case "SELL", "SELL_OPEN", "SELL_CLOSE": self = .sell
        case "BUY_TO_COVER", "BUYTOCOVER": self = .buyToCover
        case "SELL_SHORT", "SELLSHORT": self = .sellShort
        default: throw TradeItErrors.malformed("an order action the gateway does not know")
        }
    }

    /// Request `orderAction`: `buy`, `sell`, `buyToCover`, `sellShort`.
    var tradeIt: String {
        switch self {
        case .buy: "buy"
        case .sell: "sell"
        case .buyToCover: "buyToCover"
        case .sellShort: "sellShort"
        }
    }
}

extension OrderType {
    /// `priceInfo.type`: `MARKET`, `LIMIT`, `STOP`, `STOP_LIMIT` (trailing stops read as stops).
    init(tradeItPrice type: String) throws {
        switch type.uppercased() {
        case "MARKET": self = .market
        case "LIMIT": self = .limit
        case "STOP", "STOP_MARKET", "STOPMARKET", "TRAILING_STOP_DOLLAR", "TRAILING_STOP_PRCT": self = .stop
        case "STOP_LIMIT", "STOPLIMIT": self = .stopLimit
        default: throw TradeItErrors.malformed("a price type the gateway does not know")
        }
    }

    /// Request `orderPriceType`: `market`, `limit`, `stopMarket`, `stopLimit`.
    var tradeIt: String {
        switch self {
        case .market: "market"
        case .limit: "limit"
        case .stop: "stopMarket"
        case .stopLimit: "stopLimit"
        }
    }
}

extension TimeInForce {
    /// `orderExpiration` in status answers (the sandbox writes `DAY`/`GTC`; TradeIt does not document it): gtc when it
    /// says so, day otherwise.
    init(tradeIt expiration: String?) {
        switch expiration?.uppercased() {
        case "GTC", "GOOD_TILL_CANCELED", "GOOD_UNTIL_CANCELED": self = .gtc
        default: self = .day
        }
    }
}
