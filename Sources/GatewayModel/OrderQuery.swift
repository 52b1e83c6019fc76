public import Foundation

/// Which orders to list.
public struct OrderQuery: Sendable, Hashable {
    public enum State: String, WireEnum { case open, closed, all }

    public var state: State
    public var accountId: String?
    public var symbols: [String]
    public var limit: Int
    public var after: Date?
    public var until: Date?

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
