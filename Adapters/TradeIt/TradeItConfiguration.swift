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
    public static let productionBaseURL = "https://ems.tradingticket.com"
    public static let qaBaseURL = "https://ems.qa.tradingticket.com"
    public static let defaultBroker = "Dummy"

    /// The EMS host, without a trailing slash and without `/api/v2`.
    public var baseURL: String
    public var apiKey: String
    public var userId: String?
    public var userToken: String?
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
    public var now: @Sendable () -> Date = { Date() }

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
