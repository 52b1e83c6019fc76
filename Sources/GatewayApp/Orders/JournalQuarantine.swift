import Foundation
import GatewayCore
import GatewayStore
import Synchronization

/// Journal rows the gateway cannot read (a column that does not decode, a state it does not know), set aside by
/// order id: the reconciler skips them and logs each once, and `GET /v1/status` lists them for their tenant
/// (`unreadableOrders`) instead of leaving them out in silence. Before, such a row was read, failed and logged on
/// every reconcile pass (1,214 lines in 20 minutes, issue 27 N11).
///
/// The quarantine is this process's memory: after a restart each unreadable row is found, logged and listed once
/// again. A row that leaves the pending states (an operator repaired or resolved it) leaves the quarantine on the
/// next pass.
final class JournalQuarantine: Sendable {
    struct Entry: Sendable, Hashable {
        var tenantId: String
        var connectionId: String
        var state: JournalState
        /// The store's own words (names the column, never the value).
        var reason: String
        var since: Date
    }

    /// Far more than a healthy journal ever holds; past it a new unreadable row is not remembered (it is then logged
    /// on each pass, as before), so memory stays bounded whatever the database holds.
    static let capacity = 10_000

    private let entries = Mutex<[String: Entry]>([:])

    /// Whether `error` says the row of `orderId` itself cannot be read: the store names the order in such an error
    /// (`GatewayError.orderId`) and answers `internal`; a database that fails names no order.
    static func isUnreadableRow(_ error: any Error, orderId: String) -> Bool {
        guard let error = error as? GatewayError else { return false }
        return error.code == .internalError && error.orderId == orderId
    }

    /// Sets the row aside; `true` the first time (the caller logs it then, and only then).
    func quarantine(_ reference: JournaledOrderReference, reason: String, at now: Date = Date()) -> Bool {
        entries.withLock { entries in
            guard entries[reference.id] == nil, entries.count < Self.capacity else { return false }
            entries[reference.id] = Entry(
                tenantId: reference.tenantId,
                connectionId: reference.connectionId,
                state: reference.state,
                reason: reason,
                since: now
            )
            return true
        }
    }

    func contains(_ orderId: String) -> Bool {
        entries.withLock { $0[orderId] != nil }
    }

    var count: Int { entries.withLock { $0.count } }

    /// A tenant's quarantined rows, oldest first.
    func entries(tenantId: String) -> [(orderId: String, entry: Entry)] {
        entries.withLock { entries in
            entries.filter { $0.value.tenantId == tenantId }.map { (orderId: $0.key, entry: $0.value) }
        }.sorted { ($0.entry.since, $0.orderId) < ($1.entry.since, $1.orderId) }
    }

    /// Forgets rows that are no longer pending (`pending` is a whole pass's list, quarantined rows included).
    func keep(only pending: Set<String>) {
        entries.withLock { entries in entries = entries.filter { pending.contains($0.key) } }
    }
}
