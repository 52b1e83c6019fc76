public import Foundation
import SandboxKit

/// How a TradeOgre-dialect venue spells a market on the wire.
public enum TradeOgreSandboxMarketNaming: String, Sendable, Hashable, CaseIterable {
    /// `XMR-BTC`: base first, as TradeOgre wrote markets from about 2023 on (ccxt, XChange, the last documentation).
    case baseQuote = "base-quote"
    /// `BTC-XMR`: quote first, as TradeOgre wrote markets from 2018 to about 2023 (old wrappers and documentation).
    case quoteBase = "quote-base"

    /// The wire name of a canonical `BASE/QUOTE` pair.
    public func wireName(base: String, quote: String) -> String {
        switch self {
        case .baseQuote: "\(base)-\(quote)"
        case .quoteBase: "\(quote)-\(base)"
        }
    }
}

/// Settings of a ``TradeOgreSandbox``.
public struct TradeOgreSandboxConfiguration: Sendable {
    /// The accounts the simulator knows; each has its own key pair. Defaults to the demo account alone.
    public var accounts: [TradeOgreSandboxAccount]
    /// The shared market's symbols the venue lists (`XMR/BTC`); only crypto pairs of the market are listed.
    public var markets: [String]
    /// How market names are written in paths, forms and answers. Requests that use the other spelling get
    /// `Market not found`, as the real venue answered after it changed its naming.
    public var marketNaming: TradeOgreSandboxMarketNaming
    /// Synthetic liquidity: price levels quoted on each side around the shared market's bid and ask, re-quoted
    /// whenever that quote changes. Zero leaves the book to the participants and the accounts.
    public var makerLevels: Int
    /// Distance between two synthetic levels as a fraction of the mid price (at least one tick).
    public var makerLevelSpacing: Decimal
    /// Resting orders of other (simulated) market participants placed when the sandbox starts, as fractions of the
    /// market's price then: `-0.03` is a buy 3 % below, `0.05` a sell 5 % above. Their sizes are multiples of the
    /// instrument's size unit.
    public var participantOffsets: [Decimal]
    /// Trades written into each market's history when the sandbox starts (one a minute, ending now), so
    /// `/history/{market}` and the 24-hour volume are not empty.
    public var seededTrades: Int
    /// What an account opened at run time (``TradeOgreSandbox/provisionAccount()``) starts with: the demo's wallet.
    public var provisionedBalances: [String: Decimal]
    /// How many accounts may be open at run time at once (each lives in memory).
    public var maximumProvisionedAccounts: Int

    /// Makes settings: the demo account, the standard markets spelled base first, five synthetic levels a side 0.1 % apart,
    /// four participant orders and 30 seeded trades a market. Levels are clamped to 0 to 50, trades to 0 to 100.
    public init(
        accounts: [TradeOgreSandboxAccount] = [.demo],
        markets: [String] = TradeOgreSandboxConfiguration.standardMarkets,
        marketNaming: TradeOgreSandboxMarketNaming = .baseQuote,
        makerLevels: Int = 5,
        makerLevelSpacing: Decimal = Decimal(string: "0.001")!,
        participantOffsets: [Decimal] = ["-0.06", "-0.03", "0.03", "0.06"].map { Decimal(string: $0)! },
        seededTrades: Int = 30,
        provisionedBalances: [String: Decimal] = TradeOgreSandboxAccount.demo.balances,
        maximumProvisionedAccounts: Int = 10_000
    ) {
        self.accounts = accounts
        self.markets = markets
        self.marketNaming = marketNaming
        self.makerLevels = max(0, min(makerLevels, 50))
        self.makerLevelSpacing = makerLevelSpacing
        self.participantOffsets = participantOffsets
        self.seededTrades = max(0, min(seededTrades, 100))
        self.provisionedBalances = provisionedBalances
        self.maximumProvisionedAccounts = max(0, maximumProvisionedAccounts)
    }

    /// `BTC/USDT`, `LTC/BTC`, `LTC/USDT`, `XMR/BTC`, `XMR/USDT`.
    public static let standardMarkets = ["BTC/USDT", "LTC/BTC", "LTC/USDT", "XMR/BTC", "XMR/USDT"]
}

/// One simulated TradeOgre account and how it starts.
public struct TradeOgreSandboxAccount: Sendable {
    /// The HTTP Basic user name.
    public var apiKey: String
    /// The HTTP Basic password.
    public var apiSecret: String
    /// Starting totals per currency (`BTC`, `XMR`, ...).
    public var balances: [String: Decimal]

    /// Describes an account by its key pair and starting wallet.
    public init(apiKey: String, apiSecret: String, balances: [String: Decimal]) {
        self.apiKey = apiKey
        self.apiSecret = apiSecret
        self.balances = balances
    }

    /// Public demo credentials: HTTP Basic `SANDBOX-TRADEOGRE-KEY` : `SANDBOX-TRADEOGRE-SECRET`.
    public static let demoAPIKey = "SANDBOX-TRADEOGRE-KEY"
    /// The demo account's API secret (see ``demoAPIKey``).
    public static let demoAPISecret = "SANDBOX-TRADEOGRE-SECRET"

    /// The demo account: 1.5 BTC, 25 XMR, 40 LTC and 10,000 USDT, no open orders.
    public static let demo = TradeOgreSandboxAccount(
        apiKey: demoAPIKey,
        apiSecret: demoAPISecret,
        balances: ["BTC": Decimal(string: "1.5")!, "XMR": 25, "LTC": 40, "USDT": 10_000]
    )
}
