public import Foundation
public import GatewayCore

/// Everything one TradeIt connection needs, read from its descriptor and credentials.
///
/// Credentials: `apiKey` (required: the app's TradeIt API key); after linking, `userId` and `userToken` (the long-lived
/// link that `user/authenticate` turns into a ~30-minute session).
///
/// Connection settings (non-secret): `brokerShortName`, the TradeIt broker to link (default `Dummy`, TradeIt's QA
/// broker and the sandbox's only one).
public struct TradeItConfiguration: Sendable {
    /// TradeIt's production EMS host (the service is gone; kept for venues that still speak the dialect).
    public static let productionBaseURL = "https://ems.tradingticket.com"
    /// TradeIt's QA EMS host, where the `Dummy` broker answered.
    public static let qaBaseURL = "https://ems.qa.tradingticket.com"
    /// `Dummy`: TradeIt's QA test broker, and the only broker of the built-in sandbox.
    public static let defaultBroker = "Dummy"

    /// The EMS host, without a trailing slash and without `/api/v2`.
    public var baseURL: String
    /// The app's TradeIt API key, sent as `apiKey` on every call that has no session token (linking, `user/authenticate`).
    public var apiKey: String
    /// The linked login's user id from `user/getOAuthAccessToken`; `nil` until the connection is linked.
    public var userId: String?
    /// The long-lived link token paired with ``userId``; `user/authenticate` exchanges the two for a session token.
    public var userToken: String?
    /// The TradeIt broker the popup links (`broker` in `user/getOAuthLoginPopupUrlForMobile`).
    public var brokerShortName: String
    /// Reads and session calls.
    public var readTimeout: Duration = .seconds(15)
    /// Preview, place, cancel: longer, because a lost answer costs a reconciliation.
    public var writeTimeout: Duration = .seconds(20)
    /// A session is reopened proactively after this long without waiting for code 600 (TradeIt's last ~30 minutes;
    /// the sandbox's may be shorter, which the code-600 retry covers).
    public var sessionMaxAge: TimeInterval = 25 * 60
    /// How long a preview is offered for (TradeIt does not say; its `orderId` is short-lived).
    public var previewLifetime: TimeInterval = 120
    /// Pages of `position/getPositions` fetched at once after the first.
    public var positionPageConcurrency = 4
    /// The most pages read for one account (a guard against a broker that never stops paging).
    public var maximumPositionPages = 100
    /// The clock, replaceable in tests (session age, preview expiry).
    public var now: @Sendable () -> Date = { Date() }

    /// Makes a configuration from parts already checked; trailing slashes and an `/api/v2` or `/api/v1` suffix are dropped,
    /// since the adapter adds `/api/v2/` itself. Use ``init(baseURL:settings:credentials:)`` for a stored connection.
    public init(baseURL: String, apiKey: String, userId: String? = nil, userToken: String? = nil, brokerShortName: String = defaultBroker) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        for suffix in ["/api/v2", "/api/v1"] where base.hasSuffix(suffix) { base.removeLast(suffix.count) }
        self.baseURL = base
        self.apiKey = apiKey
        self.userId = userId
        self.userToken = userToken
        self.brokerShortName = brokerShortName
    }

    /// Reads a connection: `baseURL` is the resolved one (`sandbox://` already replaced). Requires `apiKey`, and `userId`
    /// with `userToken` or neither (a connection not linked yet); throws `invalid` otherwise.
    public init(baseURL: String, settings: [String: String], credentials: BrokerCredentials) throws {
        guard let apiKey = credentials["apiKey"], !apiKey.isEmpty else {
            throw GatewayError.invalid("credentials", "must hold apiKey")
        }
        let userId = credentials["userId"].flatMap { $0.isEmpty ? nil : $0 }
        let userToken = credentials["userToken"].flatMap { $0.isEmpty ? nil : $0 }
        guard (userId == nil) == (userToken == nil) else {
            throw GatewayError.invalid("credentials", "must hold both userId and userToken, or neither")
        }
        guard let url = URL(string: baseURL), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw GatewayError.invalid("baseURL", "must be an http or https URL")
        }
        self.init(
            baseURL: baseURL,
            apiKey: apiKey,
            userId: userId,
            userToken: userToken,
            brokerShortName: settings["brokerShortName"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultBroker
        )
    }

    var isLinked: Bool { userId != nil && userToken != nil }

    func url(_ path: String) -> String { "\(baseURL)/api/v2/\(path)" }
}
