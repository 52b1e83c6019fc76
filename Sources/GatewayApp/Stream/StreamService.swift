public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
public import Logging

/// `GET /v1/stream`: a user's live quotes, order updates, and position and balance changes.
public struct StreamService: Sendable {
    let store: any GatewayStore
    let journal: any OrderJournalStore
    let registry: AdapterRegistry
    let logger: Logger
    let sessions: SessionSettings
    let hotReads: HotReads
    /// The streams' shared parts: the order feed's tail, the quote feeds, the streams open per user.
    let streams: StreamHub
    let directory: ConnectionDirectory
    let watchlists: WatchlistService
    let reads: BrokerReadService
    let router: BrokerRouter
}
