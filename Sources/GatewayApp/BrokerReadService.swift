public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
public import Logging

/// The fan-out reads: the brokers this gateway links, and a user's clients, accounts, balances, positions,
/// quotes, candles, order books and instruments, each read from every selected connection at once.
public struct BrokerReadService: Sendable {
    let registry: AdapterRegistry
    let fanOut: ReadFanOut
}
