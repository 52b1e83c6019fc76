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
    /// Saxo wrote) and `ProfitLossOnTrade` is the gain, as sent. FX net positions carry no `MarketValue`: it is
    /// derived from the exposure (see `value(fromExposure:…)`). Saxo sends no cost basis. Prices and P/L are in the
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
            saxoSymbol: saxoSymbol,
            assetType: assetType,
            uic: base.uic,
            name: position.displayAndFormat?.description,
            currency: position.displayAndFormat?.currency
        )
        let currency =
            position.displayAndFormat?.currency
            ?? (instrument.assetClass == .fx ? SaxoSymbol.quoteCurrency(of: instrument.symbol) : nil)
            ?? position.view?.exposureCurrency
        guard let currency else { throw SaxoErrors.malformed("a net position without a currency") }
        instrument.currency = currency
        let view = position.view
        self.init(
            connectionId: connectionId,
            accountId: base.accountId ?? fallbackAccountId,
            instrument: instrument,
            quantity: amount,
            averagePrice: view?.averageOpenPrice,
            marketValue: Position.signedLikeQuantity(
                view?.marketValue ?? Self.value(fromExposure: view, currency: currency, symbol: instrument.symbol),
                quantity: amount
            ),
            unrealizedPnl: view?.profitLossOnTrade,
            lastPrice: view?.currentPrice,
            currency: currency
        )
    }

    /*
     saxo_openapi (hootnot/saxo_openapi, saxo_openapi/endpoints/portfolio/responses/netpositions.py,
     `_v3_NetPositionsMe`, a 2019 SIM account in EUR): GBPCAD long 100000, no MarketValue:
     "NetPositionView": {"CurrentPrice": 1.75322, "Exposure": 100000, "ExposureCurrency": "GBP",
                         "ExposureInBaseCurrency": 116201.5, ...}
     */
    /// What a position without `MarketValue` is worth, in `currency` (the position's: an FX pair's quote currency),
    /// from Saxo's exposure: `Exposure` is in `ExposureCurrency`, which for an FX pair is its base currency (the
    /// amount held, GBP 100000 above), so in the quote currency it is `Exposure` × `CurrentPrice` (CAD 175322);
    /// an exposure already in `currency` is the value itself. `ExposureInBaseCurrency` is in the account
    /// currency, not the position's, so it cannot stand in. `nil` when the parts are missing or the currencies
    /// do not connect. The caller signs the result like the quantity.
    static func value(fromExposure view: SaxoNetPosition.View?, currency: String, symbol: String) -> Decimal? {
        guard let view, let exposure = view.exposure, let exposureCurrency = view.exposureCurrency?.uppercased() else {
            return nil
        }
        if exposureCurrency == currency.uppercased() { return exposure }
        let parts = symbol.uppercased().split(separator: "/").map(String.init)
        guard parts.count == 2, parts[0] == exposureCurrency, parts[1] == currency.uppercased(),
            let price = view.currentPrice, price > 0
        else { return nil }
        return exposure * price
    }
}
