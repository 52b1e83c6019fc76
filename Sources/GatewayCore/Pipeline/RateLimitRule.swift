import Foundation

/// One documented rate limit of a broker, as its adapter factory declares it: the prior the pipeline paces calls
/// by until the broker's own headers say better.
///
/// A rule applies to the requests its `scope` gives a bucket name; each bucket (per connection) has its own
/// budget of `limit` calls per `window`. Alpaca's 200/min is counted separately for the trading and the data API
/// (two buckets of one rule); Saxo's 120/min is per service group (`port`, `trade`, …).
public struct RateLimitRule: Sendable {
    /// Where a broker reports the state of this budget in its answers.
    public struct Headers: Sendable, Hashable {
        /// Unix seconds when the window ends (Alpaca), or seconds from now until it ends (Saxo): read by
        /// ``BrokerNumber/resetSeconds(_:kind:now:)``.
        public typealias Reset = BrokerNumber.ResetKind

        /// The header that carries the budget's whole size per window.
        public var limit: String
        /// The header that carries the calls left in the current window (counting every instance's calls).
        public var remaining: String
        /// The header that says when the window ends, read as `resetKind` says.
        public var reset: String
        /// How to read `reset`: an absolute time or a delay.
        public var resetKind: Reset

        /// Header names for a broker that reports its budget in some other spelling than the presets below.
        public init(limit: String, remaining: String, reset: String, resetKind: Reset) {
            self.limit = limit
            self.remaining = remaining
            self.reset = reset
            self.resetKind = resetKind
        }

        /// `X-RateLimit-Limit`, `-Remaining`, `-Reset` (unix seconds): Alpaca's.
        public static let alpaca = Headers(
            limit: "X-RateLimit-Limit",
            remaining: "X-RateLimit-Remaining",
            reset: "X-RateLimit-Reset",
            resetKind: .unixSeconds
        )

        /// `X-RateLimit-<dimension>-Limit`, `-Remaining`, `-Reset` (seconds from now): Saxo's `Session`,
        /// `SessionOrders`, `AppDay`.
        public static func saxo(_ dimension: String) -> Headers {
            Headers(
                limit: "X-RateLimit-\(dimension)-Limit",
                remaining: "X-RateLimit-\(dimension)-Remaining",
                reset: "X-RateLimit-\(dimension)-Reset",
                resetKind: .secondsFromNow
            )
        }
    }

    /// Names the rule in bucket keys and messages (`trading`, `session`, `orders`).
    public var name: String
    /// Calls allowed per `window` in each bucket (at least 1); this instance paces by its share when several
    /// instances share the store (``InstanceShare``).
    public var limit: Int
    /// The length of the window the limit counts over.
    public var window: Duration
    /// The bucket a request counts against, or `nil` when the rule does not apply to it.
    public var scope: @Sendable (BrokerRequest) -> String?
    /// Where answers report this budget; `nil` when the broker says nothing.
    public var headers: Headers?

    /// A rule of `limit` calls per `window`; by default it applies to every request, as one bucket. A limit below 1
    /// becomes 1, and a window that is not positive becomes one second.
    public init(
        name: String,
        limit: Int,
        per window: Duration,
        headers: Headers? = nil,
        scope: @escaping @Sendable (BrokerRequest) -> String? = { _ in "" }
    ) {
        self.name = name
        self.limit = max(1, limit)
        self.window = window > .zero ? window : .seconds(1)
        self.headers = headers
        self.scope = scope
    }

    /// The path of a request's URL (percent-encoded as sent), or `""`.
    public static func path(of request: BrokerRequest) -> String {
        URLComponents(string: request.url)?.percentEncodedPath ?? ""
    }
}
