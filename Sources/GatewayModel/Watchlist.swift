public import Foundation

/// A named list of instruments. Broker watchlists carry their `connectionId`; the gateway's own have none.
public struct Watchlist: Codable, Sendable, Hashable {
    /// The gateway's id of the list: `wl_…` for its own, `bwl_…` for a broker's (an adapter reports the broker's own
    /// id, which the gateway wraps).
    public var id: String
    /// The list's name.
    public var name: String
    /// The instruments on the list, in the list's order.
    public var instruments: [Instrument]
    /// The connection whose broker holds the list, or `nil` for a list the gateway keeps itself.
    public var connectionId: String?
    /// When the list was created, where known (a broker list has it only where the broker says, as Alpaca).
    public var createdAt: Date?
    /// When the list last changed, where known (a broker list has it only where the broker says, as Alpaca).
    public var updatedAt: Date?

    /// A watchlist; `connectionId` `nil` for one the gateway keeps itself.
    public init(
        id: String,
        name: String,
        instruments: [Instrument],
        connectionId: String? = nil,
        createdAt: Date? = nil,
        updatedAt: Date? = nil
    ) {
        self.id = id
        self.name = name
        self.instruments = instruments
        self.connectionId = connectionId
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
