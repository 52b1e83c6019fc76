import Foundation
import GatewayModel

extension Position {
    /*
     {"asset_id": "904837e3-3b76-47ec-b432-046db621571b", "symbol": "BTCUSD", "exchange": "FTXU",
      "asset_class": "crypto", "avg_entry_price": "19660.5738784516887649", "qty": "2.61937",
      "qty_available": "2.61937", "side": "long", "market_value": "50931.03028", "cost_basis": "51498.3174",
      "unrealized_pl": "-567.28712", "current_price": "19444", ...}
     */
    /// The quantity is signed from `side`, whatever sign `qty` carries: a short is negative. Alpaca signs
    /// `cost_basis` and `market_value` like the quantity and `unrealized_pl` positive for a gain, which is the
    /// gateway's convention (`Position`); the cost basis and market value are held to it whatever sign they carry.
    init(alpaca position: AlpacaPosition, connectionId: String, accountId: String) throws {
        let magnitude = position.qty < 0 ? -position.qty : position.qty
        let quantity: Decimal
        switch position.side {
        case "long": quantity = magnitude
        case "short": quantity = -magnitude
        default: throw AlpacaErrors.malformed("a position side the gateway does not know")
        }
        let instrument = Instrument(
            alpacaSymbol: position.symbol,
            assetClass: position.assetClass,
            assetId: position.assetId,
            exchange: position.exchange,
            name: nil
        )
        self.init(
            connectionId: connectionId,
            accountId: accountId,
            instrument: instrument,
            quantity: quantity,
            averagePrice: position.avgEntryPrice,
            costBasis: Position.signedLikeQuantity(position.costBasis, quantity: quantity),
            marketValue: Position.signedLikeQuantity(position.marketValue, quantity: quantity),
            unrealizedPnl: position.unrealizedPl,
            lastPrice: position.currentPrice,
            currency: instrument.currency ?? "USD",
            dayChange: position.unrealizedIntradayPl
        )
    }
}
