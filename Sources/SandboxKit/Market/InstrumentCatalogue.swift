import Foundation

/// The instruments every sandbox simulator starts with. Each simulator lists the subset its broker trades.
public enum InstrumentCatalogue {
    /// Every instrument of the catalogue: the equities, then crypto pairs, then FX pairs.
    public static let standard: [MarketInstrument] = equities + crypto + fx

    /// US equities and an ETF, with plausible reference prices.
    public static let equities: [MarketInstrument] = [
        equity("AAPL", "Apple Inc. Common Stock", "NASDAQ", reference: "190.00"),
        equity("MSFT", "Microsoft Corporation Common Stock", "NASDAQ", reference: "420.00"),
        equity("TSLA", "Tesla, Inc. Common Stock", "NASDAQ", reference: "250.00", volatility: "0.0002"),
        equity("NVDA", "NVIDIA Corporation Common Stock", "NASDAQ", reference: "130.00", volatility: "0.00015"),
        equity("AMZN", "Amazon.com, Inc. Common Stock", "NASDAQ", reference: "185.00"),
        equity("SPY", "SPDR S&P 500 ETF Trust", "ARCA", reference: "560.00", volatility: "0.00005", spread: "0.00004"),
    ]

    /// Crypto pairs, quoted in USD, BTC or USDT.
    public static let crypto: [MarketInstrument] = [
        pair(
            "BTC/USD",
            "Bitcoin / US Dollar",
            reference: "65000",
            tick: "1",
            lot: "0.000000001",
            min: "0.0001",
            volatility: "0.0003",
            spread: "0.0004",
            sizeUnit: "0.01"
        ),
        pair(
            "ETH/USD",
            "Ethereum / US Dollar",
            reference: "3000",
            tick: "0.1",
            lot: "0.000000001",
            min: "0.001",
            volatility: "0.0003",
            spread: "0.0005",
            sizeUnit: "0.1"
        ),
        pair(
            "XMR/BTC",
            "Monero / Bitcoin",
            reference: "0.0025",
            tick: "0.00000001",
            lot: "0.00000001",
            min: "0.001",
            volatility: "0.0003",
            spread: "0.002",
            sizeUnit: "1"
        ),
        pair(
            "LTC/BTC",
            "Litecoin / Bitcoin",
            reference: "0.0013",
            tick: "0.00000001",
            lot: "0.00000001",
            min: "0.01",
            volatility: "0.0003",
            spread: "0.002",
            sizeUnit: "1"
        ),
        // Added for the TradeOgre sandbox: Tether-quoted pairs, priced like TradeOgre (8 decimals everywhere).
        pair(
            "BTC/USDT",
            "Bitcoin / Tether",
            reference: "65000",
            tick: "0.00000001",
            lot: "0.00000001",
            min: "0.0001",
            volatility: "0.0003",
            spread: "0.001",
            sizeUnit: "0.01"
        ),
        pair(
            "LTC/USDT",
            "Litecoin / Tether",
            reference: "84",
            tick: "0.00000001",
            lot: "0.00000001",
            min: "0.01",
            volatility: "0.0003",
            spread: "0.002",
            sizeUnit: "1"
        ),
        pair(
            "XMR/USDT",
            "Monero / Tether",
            reference: "160",
            tick: "0.00000001",
            lot: "0.00000001",
            min: "0.001",
            volatility: "0.0003",
            spread: "0.002",
            sizeUnit: "1"
        ),
    ]

    /// Currency pairs.
    public static let fx: [MarketInstrument] = [
        currencyPair("EUR/USD", "Euro / US Dollar", reference: "1.08500", tick: "0.00001"),
        currencyPair("EUR/DKK", "Euro / Danish Krone", reference: "7.46000", tick: "0.00001", volatility: "0.000005"),
        currencyPair("GBP/USD", "British Pound / US Dollar", reference: "1.27000", tick: "0.00001"),
        currencyPair("USD/JPY", "US Dollar / Japanese Yen", reference: "150.000", tick: "0.001"),
        // Added for the Saxo sandbox's FX watchlist (Uics 17, 18, 23).
        currencyPair("EUR/GBP", "Euro / British Pound", reference: "0.85500", tick: "0.00001"),
        currencyPair("EUR/JPY", "Euro / Japanese Yen", reference: "162.750", tick: "0.001"),
        currencyPair("GBP/CAD", "British Pound / Canadian Dollar", reference: "1.72000", tick: "0.00001"),
    ]

    private static func d(_ text: String) -> Decimal { DecimalText.parse(text)! }

    private static func equity(
        _ symbol: String,
        _ name: String,
        _ exchange: String,
        reference: String,
        volatility: String = "0.0001",
        spread: String = "0.0002"
    ) -> MarketInstrument {
        MarketInstrument(
            symbol: symbol,
            assetClass: .equity,
            name: name,
            exchange: exchange,
            currency: "USD",
            tickSize: d("0.01"),
            lotSize: 1,
            minQuantity: d("0.000000001"),
            fractionable: true,
            referencePrice: d(reference),
            volatility: d(volatility),
            spread: d(spread),
            sizeUnit: 100
        )
    }

    private static func pair(
        _ symbol: String,
        _ name: String,
        reference: String,
        tick: String,
        lot: String,
        min: String,
        volatility: String,
        spread: String,
        sizeUnit: String
    ) -> MarketInstrument {
        let parts = symbol.split(separator: "/").map(String.init)
        return MarketInstrument(
            symbol: symbol,
            assetClass: .crypto,
            name: name,
            exchange: "CRYPTO",
            baseCurrency: parts[0],
            currency: parts[1],
            tickSize: d(tick),
            lotSize: d(lot),
            minQuantity: d(min),
            fractionable: true,
            referencePrice: d(reference),
            volatility: d(volatility),
            spread: d(spread),
            sizeUnit: d(sizeUnit)
        )
    }

    private static func currencyPair(
        _ symbol: String,
        _ name: String,
        reference: String,
        tick: String,
        volatility: String = "0.00003"
    ) -> MarketInstrument {
        let parts = symbol.split(separator: "/").map(String.init)
        return MarketInstrument(
            symbol: symbol,
            assetClass: .fx,
            name: name,
            exchange: "FX",
            baseCurrency: parts[0],
            currency: parts[1],
            tickSize: d(tick),
            lotSize: 1,
            minQuantity: 1,
            fractionable: false,
            referencePrice: d(reference),
            volatility: d(volatility),
            spread: d("0.00006"),
            sizeUnit: 100_000
        )
    }
}
