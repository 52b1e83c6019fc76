import Foundation
import GatewayModel

extension Position {
    /*
     {"DisplayAndFormat": {"Currency": "DKK", "Decimals": 4, "Description": "Euro/Danish Krone",
                           "Format": "AllowDecimalPips", "Symbol": "EURDKK"},
      "NetPositionBase": {"AccountId": "8496691", "Amount": 200000, "AssetType": "FxSpot", "CanBeClosed": true,
                          "ClientId": "8496691", "NumberOfRelatedOrders": 0, "PositionsAccount": "8496691", "Uic": 16,
                          "ValueDate": "2018-04-18T00:00:00.000000Z"},
      "NetPositionId": "EURDKK__FxSpot",
      "NetPositionView": {"AverageOpenPrice": 7.44714, "CalculationReliability": "Ok", "CurrentPrice": 7.44705,
                          "CurrentPriceType": "Bid", "Exposure": 200000, "ExposureCurrency": "EUR",
                          "ProfitLossOnTrade": -18, "Status": "Open", ...}}
     */
    /// `quantity` is the signed `Amount`; `MarketValue` is signed like it (`Position`'s convention, whatever sign
    /// Saxo wrote) and `ProfitLossOnTrade` is the gain, as sent. Saxo sends no cost basis. Prices and P/L are in the
    /// instrument's currency (`DisplayAndFormat.Currency`, else an FX pair's quote currency, else `ExposureCurrency`).
    /// Without `DisplayAndFormat` the symbol comes from `NetPositionId` (`GBPCAD__FxSpot`). Returns `nil` for a net
    /// position whose amount is 0 (closed today, kept by Saxo for its realised P/L).
    init?(saxo position: SaxoNetPosition, connectionId: String, accountId fallbackAccountId: String) throws {
        guard let base = position.base, let amount = base.amount else {
            throw SaxoErrors.malformed("a net position without NetPositionBase.Amount")
        }
        if amount == 0 { return nil }
        guard let assetType = base.assetType else {
            throw SaxoErrors.malformed("a net position without an AssetType")
        }
        guard let saxoSymbol = position.displayAndFormat?.symbol ?? position.netPositionId.flatMap(SaxoSymbol.fromNetPositionId)
        else {
            throw SaxoErrors.malformed("a net position without a symbol")
        }
        var instrument = Instrument(
            saxoSymbol: saxoSymbol, assetType: assetType, uic: base.uic, name: position.displayAndFormat?.description,
            currency: position.displayAndFormat?.currency)
        let currency = position.displayAndFormat?.currency
            ?? (instrument.assetClass == .fx ? SaxoSymbol.quoteCurrency(of: instrument.symbol) : nil)
            ?? position.view?.exposureCurrency
        guard let currency else { throw SaxoErrors.malformed("a net position without a currency") }
        instrument.currency = currency
        let view = position.view
        self.init(
            connectionId: connectionId, accountId: base.accountId ?? fallbackAccountId, instrument: instrument,
            quantity: amount, averagePrice: view?.averageOpenPrice,
            marketValue: Position.signedLikeQuantity(view?.marketValue, quantity: amount),
            unrealizedPnl: view?.profitLossOnTrade, lastPrice: view?.currentPrice, currency: currency)
    }
}
