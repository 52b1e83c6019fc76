import GatewayModel

extension Watchlist {
    /// A broker watchlist (see `SaxoWatchlist`: the fields are unverified).
    init?(saxo list: SaxoWatchlist, instruments: [Instrument], connectionId: String) {
        guard let id = list.id else { return nil }
        self.init(id: id, name: list.name ?? id, instruments: instruments, connectionId: connectionId)
    }
}
