public import Foundation

/// A named list of instruments. Broker watchlists carry their `connectionId`; the gateway's own have none.
public struct Watchlist: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    public var instruments: [Instrument]
    /// The connection whose broker holds the list, or `nil` for a list the gateway keeps itself.
    public var connectionId: String?
    public var createdAt: Date?
    public var updatedAt: Date?

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
