public import Foundation
public import GatewayCore
public import GatewayModel

/// One message of a user's stream (`GET /v1/stream`), before the server writes it as a server-sent event.
public enum StreamEvent: Sendable {
    /// The first message: what the stream watches, and the order cursor it starts from (its event id).
    case ready(StreamReady)
    /// A quote that changed (bid, ask or last) at one of the user's connections.
    case quote(Quote)
    /// One change of one of the user's orders; `cursor` is its place in the order feed (the event id).
    case order(cursor: Int64, OrderUpdate)
    /// A holding that changed (quantity, average price or cost basis), opened or closed.
    case position(PositionChange)
    /// A cash balance that changed (total, available, held or buying power).
    case balance(BalanceChange)
    /// One of the user's alerts fired (`/v1/alerts`).
    case alert(AlertNotification)
    /// A connection the stream reads from began failing, or recovered.
    case source(SourceReport)
    /// Nothing happened for a while: a comment line that keeps proxies from closing the connection.
    case heartbeat
    /// The last message: the stream's credential, its user or its tenant stopped being valid (a key revoked, a
    /// session logged out or expired, the user deleted, the tenant disabled), and the stream ends.
    case error(StreamError)

    /// The server-sent event's type (`event:` line); `nil` for a comment.
    public var name: String? {
        switch self {
        case .ready: "ready"
        case .quote: "quote"
        case .order: "order"
        case .position: "position"
        case .balance: "balance"
        case .alert: "alert"
        case .source: "source"
        case .heartbeat: nil
        case .error: "error"
        }
    }

    /// The server-sent event's id (`id:` line): only order updates and `ready` carry one, the order cursor, so a
    /// client's `Last-Event-ID` always names the last order update it saw (or where its stream began).
    public var id: String? {
        switch self {
        case .ready(let ready): ready.cursor
        case .order(let cursor, _): String(cursor)
        default: nil
        }
    }
}

/// Why a stream ended: an error code of the API's own (`unauthorized`, `forbidden`) and what happened, as the
/// `error` event's data says.
public struct StreamError: Codable, Sendable, Hashable {
    /// The error code, as the API's error bodies name it.
    public var code: String
    /// What happened, for people.
    public var message: String

    /// An error of a code and a message.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// The error a stream ends with for a gateway error, in the API's terms.
    public init(_ error: GatewayError) {
        self.init(code: error.code.rawValue, message: error.message)
    }
}

/// What a stream watches, as its first message says.
public struct StreamReady: Codable, Sendable, Hashable {
    /// The order cursor the stream starts after: its event id, and what `Last-Event-ID` resumes from.
    public var cursor: String
    /// True when the stream replays order updates after a client's `Last-Event-ID`.
    public var resumed: Bool
    /// The instruments whose quotes it sends (the symbols asked for and the watchlist's).
    public var quotes: [String]
    /// Whether it sends the user's order updates.
    public var orders: Bool
    /// Whether it sends position changes.
    public var positions: Bool
    /// Whether it sends balance changes.
    public var balances: Bool
    /// The connections it reads from.
    public var connections: [String]

    /// What a stream says it does when it opens.
    public init(
        cursor: String,
        resumed: Bool,
        quotes: [String],
        orders: Bool,
        positions: Bool,
        balances: Bool,
        connections: [String]
    ) {
        self.cursor = cursor
        self.resumed = resumed
        self.quotes = quotes
        self.orders = orders
        self.positions = positions
        self.balances = balances
        self.connections = connections
    }
}

/// How a holding or a balance changed.
public enum HoldingChangeKind: String, WireEnum {
    /// As the stream found it when it began: one of these per holding first.
    case snapshot
    case opened
    case changed
    case closed
}

/// A position that appeared, changed or closed: the stream's `position` event.
public struct PositionChange: Codable, Sendable, Hashable {
    /// Whether it appeared, changed or closed.
    public var change: HoldingChangeKind
    /// The holding now; for `closed`, as it was last seen.
    public var position: Position

    /// A change of one position.
    public init(change: HoldingChangeKind, position: Position) {
        self.change = change
        self.position = position
    }
}

/// A balance that appeared, changed or went away: the stream's `balance` event.
public struct BalanceChange: Codable, Sendable, Hashable {
    /// Whether it appeared, changed or went away.
    public var change: HoldingChangeKind
    /// The balance now; when it went away, as it was last seen.
    public var balance: Balance

    /// A change of one balance.
    public init(change: HoldingChangeKind, balance: Balance) {
        self.change = change
        self.balance = balance
    }
}

/// What a stream is asked to watch (`GET /v1/stream`'s query).
public struct StreamSubscription: Sendable, Hashable {
    /// Symbols to quote.
    public var symbols: [String]
    /// The asset class the symbols are of, where a symbol alone is ambiguous.
    public var assetClass: AssetClass?
    /// A watchlist whose instruments are quoted too.
    public var watchlistId: String?
    /// Whether to send the user's order updates.
    public var orders: Bool
    /// Whether to send position changes.
    public var positions: Bool
    /// Whether to send balance changes.
    public var balances: Bool

    /// What a client asks a stream for.
    public init(
        symbols: [String] = [],
        assetClass: AssetClass? = nil,
        watchlistId: String? = nil,
        orders: Bool = true,
        positions: Bool = false,
        balances: Bool = false
    ) {
        self.symbols = symbols
        self.assetClass = assetClass
        self.watchlistId = watchlistId
        self.orders = orders
        self.positions = positions
        self.balances = balances
    }
}

/// How the stream polls where a broker has no stream of its own, and how many streams a user may hold.
public struct StreamSettings: Sendable {
    /// How often a connection's watched quotes are read.
    public var quoteInterval: Duration
    /// How often a stream's positions and balances are read (and at once after one of the user's orders fills).
    public var holdingsInterval: Duration
    /// How often the order feed is read for updates (those written by this instance and by others on one database).
    public var feedInterval: Duration
    /// How often the order watcher brings open orders up to date from their brokers (fills, cancels).
    public var orderWatchInterval: Duration
    /// How often an idle stream sends a heartbeat comment.
    public var heartbeatInterval: Duration
    /// Streams one user may hold open at once.
    public var streamsPerUser: Int
    /// Messages a stream holds for a slow client before it is ended (the client resumes with `Last-Event-ID`).
    public var bufferedMessages: Int

    /// Stream settings from configuration; the defaults are the gateway's own.
    public init(
        quoteInterval: Duration = .seconds(1),
        holdingsInterval: Duration = .seconds(5),
        feedInterval: Duration = .milliseconds(250),
        orderWatchInterval: Duration = .seconds(1),
        heartbeatInterval: Duration = .seconds(15),
        streamsPerUser: Int = 5,
        bufferedMessages: Int = 1000
    ) {
        self.quoteInterval = quoteInterval
        self.holdingsInterval = holdingsInterval
        self.feedInterval = feedInterval
        self.orderWatchInterval = orderWatchInterval
        self.heartbeatInterval = heartbeatInterval
        self.streamsPerUser = streamsPerUser
        self.bufferedMessages = bufferedMessages
    }
}
