import GatewayCore
public import GatewayStore

/// The PostgreSQL side of ``StoreChangeStamp``: one row, `store_change`, whose `stamp` a deferred constraint trigger
/// bumps in the same transaction as every write to a table whose rows the application keeps in memory (tenants, API
/// keys, users, sessions, devices, connections: what `HotReads` caches), whichever instance or tool makes it.
///
/// Why a row in the writing transaction, and not a sequence or `LISTEN`/`NOTIFY`: the new stamp becomes visible in
/// the same commit as the write, never before it, so a reader can never pair a new stamp with the old data (a
/// sequence is visible before its transaction commits; a notification arrives after it, and is lost while a
/// listening connection reconnects). Why deferred: the trigger runs at commit, after every other statement of its
/// transaction, so the row's lock is always the last one a transaction takes and can be in no deadlock cycle; it is
/// held only for the commit itself. Writes to the journal, idempotency keys, audit log, link states and leases (the
/// busy tables) do not touch it.
///
/// Each call is one indexed single-row `SELECT` on a pooled connection.
extension PostgresStore: StoreChangeStamp {
    /// Implements `StoreChangeStamp.changeStamp()` on PostgreSQL; the contract (order, errors, what `nil` means) is documented there.
    public func changeStamp() async throws -> UInt64 {
        try await read("changeStamp") { db in
            guard let row = try await db.row("SELECT stamp FROM store_change WHERE id = 1") else {
                throw GatewayError(.internalError, "the store_change row is missing")
            }
            return UInt64(bitPattern: try row.int64("stamp"))
        }
    }
}
