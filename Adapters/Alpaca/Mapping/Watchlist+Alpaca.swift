import Foundation
import GatewayModel

extension Watchlist {
    /*
     {"id": "7c3ac77f-894c-4c08-987f-18a2e43e8e2a", "account_id": "0d969814-40d6-4b2b-99ac-2e37427f1ad2",
      "created_at": "2022-05-20T16:17:30.159561Z", "updated_at": "2022-05-20T16:17:30.159561Z",
      "name": "test watchlist", "assets": [{"id": "93f58d0b-...", "class": "us_equity", "symbol": "AAPL", ...}]}
     */
    /// A watchlist without `assets` (the list endpoint's summary) maps to an empty list of instruments; the adapter
    /// fetches each list's contents before mapping.
    init(alpaca watchlist: AlpacaWatchlist, connectionId: String) {
        self.init(
            id: watchlist.id,
            name: watchlist.name,
            instruments: (watchlist.assets ?? []).map(Instrument.init(alpaca:)),
            connectionId: connectionId,
            createdAt: watchlist.createdAt,
            updatedAt: watchlist.updatedAt
        )
    }
}
