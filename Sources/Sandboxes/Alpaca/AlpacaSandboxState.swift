import Foundation
import SandboxKit

/// What the Alpaca sandbox saves in its state folder (`alpaca.json`) when it keeps one: every account's book (cash,
/// positions, open and finished orders with their client order ids, watchlists, account configurations, the equity
/// at the previous close), the key pairs and OAuth tokens that name the accounts (the accounts opened at run time
/// included, so a gateway's stored keys keep working), and which accounts were opened at run time.
///
/// Not saved: the per-minute rate-limit windows (they start over, as a minute does), trade updates not yet streamed
/// (a stream connection does not survive a restart either), and prices (the shared ``MarketEngine`` derives them
/// from the clock; an admin price pin is a test tool and lapses with the process). Order ids are UUIDs, so they
/// never repeat across restarts.
struct AlpacaSandboxState: Codable, Sendable {
    struct Key: Codable, Sendable {
        var secret: String
        var account: UUID
    }

    var books: [UUID: AlpacaAccountBook]
    var keys: [String: Key]
    var tokens: [String: UUID]
    var provisioned: Set<UUID>
}
