import Foundation
import GatewayModel

/// TradeOgre's order states, which it never names: they follow from the numbers.
enum TradeOgreOrderState {
    /// An order read by uuid: nothing left and something traded is filled; something traded and something left is
    /// partially filled; nothing traded is open. (Nothing left and nothing traded cannot be open: canceled.)
    static func status(remaining: Decimal, fulfilled: Decimal) -> OrderStatus {
        if remaining <= 0 { return fulfilled > 0 ? .filled : .canceled }
        return fulfilled > 0 ? .partiallyFilled : .open
    }

    static func side(_ raw: String) throws -> OrderSide {
        switch raw.lowercased() {
        case "buy": return .buy
        case "sell": return .sell
        default: throw TradeOgreErrors.malformed("an order type that is neither buy nor sell")
        }
    }
}

extension Order {
    /*
     {"success":true,"date":"1710696146","type":"sell","market":"LTC-USDT","price":"87.00000000",
      "quantity":"0.10000000","fulfilled":"0.00000000"}
     */
    /// An order read by uuid. The answer carries no uuid (the caller's is used) and no client order id (the caller's,
    /// else the uuid). `quantity` is what remains, so the order's size is `quantity + fulfilled`. Every TradeOgre
    /// order is a good-till-cancelled limit order; the average fill price is not reported.
    init(
        tradeOgre detail: TradeOgreOrderDetail,
        uuid: String,
        clientOrderId: String?,
        connectionId: String,
        accountId: String,
        naming: TradeOgreMarketNaming
    ) throws {
        guard let market = MarketName(wire: detail.market, naming: naming) else {
            throw TradeOgreErrors.malformed("a market name that is not BASE-QUOTE")
        }
        self.init(
            id: uuid,
            brokerOrderId: uuid,
            clientOrderId: clientOrderId ?? uuid,
            connectionId: connectionId,
            broker: .tradeogre,
            accountId: accountId,
            instrument: Instrument(tradeOgre: market, naming: naming),
            side: try TradeOgreOrderState.side(detail.type),
            type: .limit,
            timeInForce: .gtc,
            quantity: detail.quantity + detail.fulfilled,
            limitPrice: detail.price,
            status: TradeOgreOrderState.status(remaining: detail.quantity, fulfilled: detail.fulfilled),
            filledQuantity: detail.fulfilled,
            createdAt: detail.date
        )
    }

    /*
     {"uuid":"ae19d981-7341-1d2a-54e8-e32b4f33b4f6","date":1692372889,"type":"buy","price":"0.00420000",
      "quantity":"1.00000000","market":"XMR-BTC"}
     */
    /// An entry of the open-orders list. The list gives only what remains open, not what traded: the order reads as
    /// open with `quantity` = the remaining quantity and no fills. Reading the order by uuid gives its fills.
    init(tradeOgre open: TradeOgreOpenOrder, connectionId: String, accountId: String, naming: TradeOgreMarketNaming) throws {
        guard let market = MarketName(wire: open.market, naming: naming) else {
            throw TradeOgreErrors.malformed("a market name that is not BASE-QUOTE")
        }
        self.init(
            id: open.uuid,
            brokerOrderId: open.uuid,
            clientOrderId: open.uuid,
            connectionId: connectionId,
            broker: .tradeogre,
            accountId: accountId,
            instrument: Instrument(tradeOgre: market, naming: naming),
            side: try TradeOgreOrderState.side(open.type),
            type: .limit,
            timeInForce: .gtc,
            quantity: open.quantity,
            limitPrice: open.price,
            status: .open,
            filledQuantity: 0,
            createdAt: open.date
        )
    }
}
