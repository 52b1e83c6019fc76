import GatewayModel

extension Instrument {
    /*
     {"XMR-BTC":{"initialprice":"0.00212118","price":"0.00212510",...,"basename":"Monero"}}
     */
    /// A market as a crypto pair: `XMR-BTC` is `XMR/BTC`, priced in BTC, named by its `basename` where the venue
    /// gives one. The wire name travels in `brokerKey["market"]`. TradeOgre is the venue, so no exchange is named.
    init(tradeOgre market: MarketName, naming: TradeOgreMarketNaming, name: String? = nil) {
        self.init(
            symbol: market.symbol,
            assetClass: .crypto,
            exchange: nil,
            name: name.flatMap { $0.isEmpty ? nil : $0 },
            currency: market.quote,
            brokerKey: ["market": market.wire(naming)]
        )
    }
}
