public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
public import Logging

/// Watchlists: the gateway's own (stored per user) and the brokers' (read and changed at the broker).
public struct WatchlistService: Sendable {
    let store: any GatewayStore
    let router: BrokerRouter
    let directory: ConnectionDirectory
    let fanOut: ReadFanOut
}
