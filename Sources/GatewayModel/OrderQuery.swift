public import Foundation

/// Which orders to list.
public struct OrderQuery: Sendable, Hashable {
    /// Orders by state: `open` (still working, ``OrderStatus/isActive``), `closed` (ended), or `all`.
    public enum State: String, WireEnum { case open, closed, all }

    /// Which orders to list by state; `open` by default.
    public var state: State
    /// Only this account's orders (`Account.id`); `nil` for every account of the connection.
    public var accountId: String?
    /// Only orders in these canonical symbols, compared case-insensitively; empty for every symbol.
    public var symbols: [String]
    /// The most orders one connection lists (the API takes 1 to 500, 100 by default).
    public var limit: Int
    /// Only orders created (submitted) after this time.
    public var after: Date?
    /// Only orders created (submitted) at or before this time.
    public var until: Date?

    /// A query; the defaults list the open orders of every account, at most 100 per connection.
    public init(
        state: State = .open,
        accountId: String? = nil,
        symbols: [String] = [],
        limit: Int = 100,
        after: Date? = nil,
        until: Date? = nil
    ) {
        self.state = state
        self.accountId = accountId
        self.symbols = symbols
        self.limit = limit
        self.after = after
        self.until = until
    }
}
