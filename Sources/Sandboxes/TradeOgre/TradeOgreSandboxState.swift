import Foundation
import SandboxKit

/// The API keys the TradeOgre sandbox knows: key → secret (the configured accounts' and those opened at run time),
/// and which were opened at run time.
struct TradeOgreAccounts: Codable, Sendable {
    var secrets: [String: String]
    var provisioned: Set<String>
}

/// What the TradeOgre sandbox saves in its state folder (`tradeogre.json`) when it keeps one: the whole venue
/// (every book with the accounts', the participants' and the maker's resting orders, the wallets, every account's
/// orders open and finished, the public trade history, the arrival sequence) and the API keys, the ones opened at
/// run time included, so a gateway's stored keys keep working and a restart neither loses nor repeats an order.
///
/// Not saved: prices (the shared ``MarketEngine`` derives them from the clock; an admin price pin is a test tool
/// and lapses with the process). Order ids are UUIDs, so they never repeat across restarts.
struct TradeOgreSandboxState: Codable, Sendable {
    var exchange: TradeOgreExchange
    var accounts: TradeOgreAccounts
}
