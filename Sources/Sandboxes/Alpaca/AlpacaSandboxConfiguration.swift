public import Foundation
import SandboxKit

/// Settings of an ``AlpacaSandbox``.
public struct AlpacaSandboxConfiguration: Sendable {
    /// The accounts the simulator knows; each has its own key pair. Defaults to the demo account alone.
    public var accounts: [AlpacaSandboxAccount]
    /// Per account and API (trading, market data), like Alpaca's 200 requests per minute. Windows are whole
    /// minutes of the sandbox clock; answers carry `X-RateLimit-Limit`, `-Remaining` and `-Reset` (unix seconds).
    public var requestsPerMinute: Int
    /// When equities trade. Crypto always trades.
    public var marketHours: AlpacaMarketHours
    /// Whether a marketable order is executed while its `POST /v2/orders` is being answered (the answer then says
    /// `filled`). When false the answer says `new`/`accepted` and the fill happens on the account's next request,
    /// as with the real API's asynchronous fills.
    public var fillsOnSubmission: Bool
    /// How an account opened at run time (``AlpacaSandbox/provisionAccount()``) starts: its cash, positions and
    /// watchlists (its id, number and keys are its own). The demo account's by default.
    public var provisionedTemplate: AlpacaSandboxAccount
    /// How many accounts may be open at run time at once (each lives in memory).
    public var maximumProvisionedAccounts: Int
    /// How many connections one account may hold to one market-data stream endpoint (`/v2/iex`,
    /// `/v1beta3/crypto/us`, ...) at once: 1, as for most Alpaca subscriptions. One more is answered
    /// `[{"T":"error","code":406,"msg":"connection limit exceeded"}]` when it authenticates, and closed. (Set after
    /// `init`, which keeps its signature for the code already built against it.)
    public var streamConnectionsPerEndpoint: Int = 1
    /// How long a market-data stream connection may stay unauthenticated: then it is answered
    /// `[{"T":"error","code":404,"msg":"auth timeout"}]` and closed. (Alpaca names the error, not the time; set after
    /// `init`.)
    public var streamAuthTimeout: Duration = .seconds(10)

    /// Makes settings: the demo account alone, Alpaca's 200 requests a minute, equities always open, fills while the order
    /// is answered, and up to 10 000 accounts opened at run time. A rate below 1 is raised to 1.
    public init(
        accounts: [AlpacaSandboxAccount] = [.demo],
        requestsPerMinute: Int = 200,
        marketHours: AlpacaMarketHours = .alwaysOpen,
        fillsOnSubmission: Bool = true,
        provisionedTemplate: AlpacaSandboxAccount = .demo,
        maximumProvisionedAccounts: Int = 10_000
    ) {
        self.accounts = accounts
        self.requestsPerMinute = max(1, requestsPerMinute)
        self.marketHours = marketHours
        self.fillsOnSubmission = fillsOnSubmission
        self.provisionedTemplate = provisionedTemplate
        self.maximumProvisionedAccounts = max(0, maximumProvisionedAccounts)
    }
}

/// When the simulated US equity market accepts executions.
public enum AlpacaMarketHours: Sendable, Hashable {
    /// Equities trade at any time (convenient for demos and tests); `/v2/clock` says `is_open: true`.
    case alwaysOpen
    /// Regular session 09:30–16:00 New York time on weekdays; `extended_hours` limit orders also 04:00–20:00.
    /// Orders sent while closed are `accepted` and wait for the open.
    case regular
}

/// One simulated Alpaca account and how it starts.
public struct AlpacaSandboxAccount: Sendable {
    /// The account's id, answered as `id` by `GET /v2/account` and stamped on its orders.
    public var id: UUID
    /// The account number (`PA3…`, as Alpaca's paper accounts are numbered), answered as `account_number`.
    public var accountNumber: String
    /// Sent as `APCA-API-KEY-ID`.
    public var keyID: String
    /// Sent as `APCA-API-SECRET-KEY`.
    public var secretKey: String
    /// Accepted as `Authorization: Bearer <token>` instead of the key pair.
    public var oauthTokens: [String]
    /// The cash the account starts with, in USD.
    public var startingCash: Decimal
    /// The positions the account starts with.
    public var positions: [Holding]
    /// The watchlists the account starts with.
    public var watchlists: [SeedWatchlist]
    /// When the account was opened, answered as `created_at`.
    public var createdAt: Date

    /// A position the account starts with.
    public struct Holding: Sendable {
        /// Canonical symbol (`AAPL`, `BTC/USD`).
        public var symbol: String
        /// The quantity held; only a positive one is seeded (the simulated account is a cash account: no shorts).
        public var quantity: Decimal
        /// The average price paid, which with the quantity gives the position's cost basis.
        public var averageEntryPrice: Decimal

        /// Describes a starting position.
        public init(symbol: String, quantity: Decimal, averageEntryPrice: Decimal) {
            self.symbol = symbol
            self.quantity = quantity
            self.averageEntryPrice = averageEntryPrice
        }
    }

    /// A watchlist the account starts with.
    public struct SeedWatchlist: Sendable {
        /// The watchlist's name.
        public var name: String
        /// Its instruments' canonical symbols, in order.
        public var symbols: [String]

        /// Describes a starting watchlist.
        public init(name: String, symbols: [String]) {
            self.name = name
            self.symbols = symbols
        }
    }

    /// Describes an account; its id is random unless given, and it was opened on 2024-01-01 unless told otherwise.
    public init(
        id: UUID = UUID(),
        accountNumber: String,
        keyID: String,
        secretKey: String,
        oauthTokens: [String] = [],
        startingCash: Decimal,
        positions: [Holding] = [],
        watchlists: [SeedWatchlist] = [],
        createdAt: Date = Date(timeIntervalSince1970: 1_704_067_200)
    ) {
        self.id = id
        self.accountNumber = accountNumber
        self.keyID = keyID
        self.secretKey = secretKey
        self.oauthTokens = oauthTokens
        self.startingCash = startingCash
        self.positions = positions
        self.watchlists = watchlists
        self.createdAt = createdAt
    }

    /// Public demo credentials: `APCA-API-KEY-ID: SANDBOX-ALPACA-KEY`, `APCA-API-SECRET-KEY: SANDBOX-ALPACA-SECRET`.
    public static let demoKeyID = "SANDBOX-ALPACA-KEY"
    /// The demo account's secret key (see ``demoKeyID``).
    public static let demoSecretKey = "SANDBOX-ALPACA-SECRET"
    /// `Authorization: Bearer SANDBOX-ALPACA-OAUTH-TOKEN` reaches the same demo account.
    public static let demoOAuthToken = "SANDBOX-ALPACA-OAUTH-TOKEN"
    /// The demo account's fixed id, so demo links and saved states keep pointing at the same account.
    public static let demoAccountID = UUID(uuidString: "5a9d1e2c-7b3f-4c1a-9e8d-0b1a2c3d4e5f")!

    /// The demo account: $100,000 cash, 10 AAPL, 5 MSFT, 0.05 BTC and a "Primary Watchlist".
    public static let demo = AlpacaSandboxAccount(
        id: demoAccountID,
        accountNumber: "PA3SANDBOX01",
        keyID: demoKeyID,
        secretKey: demoSecretKey,
        oauthTokens: [demoOAuthToken],
        startingCash: 100_000,
        positions: [
            Holding(symbol: "AAPL", quantity: 10, averageEntryPrice: Decimal(string: "185.00")!),
            Holding(symbol: "MSFT", quantity: 5, averageEntryPrice: Decimal(string: "410.00")!),
            Holding(symbol: "BTC/USD", quantity: Decimal(string: "0.05")!, averageEntryPrice: 60_000),
        ],
        watchlists: [SeedWatchlist(name: "Primary Watchlist", symbols: ["AAPL", "MSFT", "TSLA", "SPY", "BTC/USD"])]
    )
}
