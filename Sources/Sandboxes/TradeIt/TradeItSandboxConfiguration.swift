public import Foundation
import SandboxKit

/// Settings of a ``TradeItSandbox``.
///
/// Demo values, documented so any client can use them:
/// - API key ``demoAPIKey`` (`SANDBOX-TRADEIT-API-KEY`); the broker ``dummyBroker`` (`Dummy`).
/// - Logins on the sandbox's OAuth page (password ``demoPassword``, `dummy`, for all of them), after TradeIt's own
///   QA broker: `dummy` logs in; `dummySecurity` always asks a security question (answer ``securityAnswer``,
///   `tradingticket`); `fail` links but fails `user/authenticate` with code 300; `dummyExpired` links but its user
///   token is already expired (code 700 on `user/authenticate`).
public struct TradeItSandboxConfiguration: Sendable {
    /// API keys the sandbox accepts.
    public var apiKeys: [String]
    /// How long a session token lives without use of `user/keepSessionAlive` (TradeIt: about 30 minutes).
    /// Time is the market engine's clock, so a test with a ``ManualClock`` expires sessions without sleeping.
    public var sessionLifetime: TimeInterval
    /// How long a preview's `orderId` can be placed.
    public var previewLifetime: TimeInterval
    /// How long an `oAuthVerifier` (and a popup's `oAuthTempToken`) stays usable.
    public var verifierLifetime: TimeInterval
    /// Positions per `position/getPositions` page. Pages are 0-based: `page` 0 is the first, and the answer's
    /// `currentPage` echoes it, with `totalPages` at least 1.
    public var positionsPageSize: Int
    /// The commission every preview estimates (flat, USD).
    public var commission: Decimal
    /// Each persona's account starts with this cash and these holdings.
    public var startingCash: Decimal
    /// The positions each persona's account starts with.
    public var holdings: [Holding]
    /// How many API keys may be issued at run time at once (``TradeItSandbox/provisionAPIKey()``).
    public var maximumProvisionedKeys: Int

    /// A position a persona's account starts with.
    public struct Holding: Sendable, Hashable {
        /// Canonical symbol (`AAPL`, `BTC/USD`).
        public var symbol: String
        /// The quantity held.
        public var quantity: Decimal
        /// The average price paid per unit (USD), which with the quantity gives the position's cost basis.
        public var averagePrice: Decimal

        /// Describes a starting position.
        public init(symbol: String, quantity: Decimal, averagePrice: Decimal) {
            self.symbol = symbol
            self.quantity = quantity
            self.averagePrice = averagePrice
        }
    }

    /// Makes settings: the demo API key, 30-minute sessions, 5-minute previews, 10-minute verifiers, 20 positions a page, a
    /// 4.95 USD commission and the demo holdings. A page size below 1 is raised to 1.
    public init(
        apiKeys: [String] = [TradeItSandboxConfiguration.demoAPIKey],
        sessionLifetime: TimeInterval = 30 * 60,
        previewLifetime: TimeInterval = 5 * 60,
        verifierLifetime: TimeInterval = 10 * 60,
        positionsPageSize: Int = 20,
        commission: Decimal = Decimal(string: "4.95")!,
        startingCash: Decimal = 50_000,
        holdings: [Holding] = TradeItSandboxConfiguration.demoHoldings,
        maximumProvisionedKeys: Int = 10_000
    ) {
        self.apiKeys = apiKeys
        self.sessionLifetime = sessionLifetime
        self.previewLifetime = previewLifetime
        self.verifierLifetime = verifierLifetime
        self.positionsPageSize = max(1, positionsPageSize)
        self.commission = commission
        self.startingCash = startingCash
        self.holdings = holdings
        self.maximumProvisionedKeys = max(0, maximumProvisionedKeys)
    }

    /// `SANDBOX-TRADEIT-API-KEY`.
    public static let demoAPIKey = "SANDBOX-TRADEIT-API-KEY"
    /// The one broker the sandbox offers, like TradeIt's QA `Dummy` broker.
    public static let dummyBroker = "Dummy"
    /// The `Dummy` broker's `longName` in `preference/getBrokerList`, and the title of the sandbox's login page.
    public static let dummyBrokerLongName = "Dummy Broker"
    /// The password of every persona.
    public static let demoPassword = "dummy"
    /// The answer to `dummySecurity`'s question.
    public static let securityAnswer = "tradingticket"
    /// The question `dummySecurity` is asked (`securityQuestion` of an `INFORMATION_NEEDED` answer).
    public static let securityQuestion = "What is the name of the company that built this ticket?"
    /// The choices offered with it (`securityQuestionOptions`).
    public static let securityQuestionOptions = ["tradingticket", "tradestation", "tradeking"]

    /// 10 AAPL, 5 MSFT, 3 SPY.
    public static let demoHoldings: [Holding] = [
        Holding(symbol: "AAPL", quantity: 10, averagePrice: 185),
        Holding(symbol: "MSFT", quantity: 5, averagePrice: 410),
        Holding(symbol: "SPY", quantity: 3, averagePrice: 550),
    ]
}

/// The logins the sandbox's OAuth page accepts.
public enum TradeItPersona: String, Sendable, CaseIterable, Codable {
    /// Logs in; sessions open at once.
    case dummy
    /// Every `user/authenticate` answers `INFORMATION_NEEDED` with a security question.
    case dummySecurity
    /// Links, but `user/authenticate` fails with code 300 (BROKER_AUTHENTICATION_ERROR).
    case fail
    /// Links, but the user token is expired: `user/authenticate` fails with code 700 (TOKEN_INVALID_OR_EXPIRED).
    case dummyExpired

    /// The persona's one account number.
    public var accountNumber: String {
        switch self {
        case .dummy: "SANDBOX-DUMMY-1"
        case .dummySecurity: "SANDBOX-SECURITY-1"
        case .fail: "SANDBOX-FAIL-1"
        case .dummyExpired: "SANDBOX-EXPIRED-1"
        }
    }
}
