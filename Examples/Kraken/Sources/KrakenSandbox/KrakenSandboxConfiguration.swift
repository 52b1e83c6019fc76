public import Foundation

/// One API key of the Kraken sandbox: the key, its base64 secret, and what its wallet starts with (by Kraken asset id).
public struct KrakenSandboxAccount: Sendable, Hashable {
    /// The demo key (public, documented: anyone may use the sandbox with it).
    public static let demoAPIKey = "SANDBOX-KRAKEN-KEY"
    /// The demo secret: base64 of the bytes 0 to 63, as Kraken's secrets are base64 of 64 bytes.
    public static let demoAPISecret = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+Pw=="

    /// The `API-Key` header's value.
    public var apiKey: String
    /// The private key, base64 (the HMAC-SHA512 key of `API-Sign` once decoded).
    public var apiSecret: String
    /// Asset id (`ZUSD`, `XXBT`, `USDT`) → balance at start.
    public var balances: [String: Decimal]

    /// An account; see each property.
    public init(apiKey: String, apiSecret: String, balances: [String: Decimal]) {
        self.apiKey = apiKey
        self.apiSecret = apiSecret
        self.balances = balances
    }

    /// The demo account: 100,000 USD, 50,000 USDT, 1 BTC, 10 ETH, 20 LTC.
    public static let demo = KrakenSandboxAccount(
        apiKey: demoAPIKey,
        apiSecret: demoAPISecret,
        balances: ["ZUSD": 100_000, "USDT": 50_000, "XXBT": 1, "XETH": 10, "XLTC": 20]
    )
}

/// What the Kraken sandbox starts with.
public struct KrakenSandboxConfiguration: Sendable {
    /// The keys known from the start (the demo's by default).
    public var accounts: [KrakenSandboxAccount]
    /// What an account opened at run time (``KrakenSandbox/provisionAccount()``) starts with.
    public var provisionedBalances: [String: Decimal]
    /// The most accounts opened at run time at once.
    public var maximumProvisionedAccounts: Int
    /// Kraken's "nonce window" of a key: how far below the last accepted nonce a nonce may be and still be accepted
    /// (0, strict, by default; Kraken's own default is not documented, §7.9).
    public var nonceWindow: UInt64

    /// A configuration; see each property.
    public init(
        accounts: [KrakenSandboxAccount] = [.demo],
        provisionedBalances: [String: Decimal] = ["ZUSD": 100_000, "USDT": 50_000, "XXBT": 1, "XETH": 10],
        maximumProvisionedAccounts: Int = 1000,
        nonceWindow: UInt64 = 0
    ) {
        self.accounts = accounts
        self.provisionedBalances = provisionedBalances
        self.maximumProvisionedAccounts = maximumProvisionedAccounts
        self.nonceWindow = nonceWindow
    }
}
