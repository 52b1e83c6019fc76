/// A number that changes whenever a committed write could change what the store answers: the seam that lets the
/// application keep what every request reads (an API key and its tenant, a session, a user, a connection list) in
/// memory and still see a revocation on the very next request, whichever process made it.
///
/// The application reads the stamp once per request before it consults its caches; a stamp other than the one its
/// cached answers were read under drops them all. So the contract is about *every* write, not only the ones that
/// touch authentication: a store may change the stamp more often than needed (that only costs cache refills), never
/// less.
///
/// Requirements on an implementation:
/// - **Every committed write changes it**, this process's and any other's (the operator CLI writes the same SQLite
///   file; several instances share one PostgreSQL database). After a write's call returns in any process, the next
///   `changeStamp()` anywhere returns a value different from every value returned before that write committed.
/// - **It is cheap**: it runs on every authenticated request, so one round trip at most, no table scan, and no
///   lock that a writer holds.
/// - Values need not be ordered; only equality is compared. They must not repeat within a process's lifetime.
///
/// SQLite (`SQLiteStore`): `PRAGMA data_version` on one dedicated connection that never writes (it changes when any
/// *other* connection, in this process or another, commits), plus a counter this store bumps after each of its own
/// writes (SQLite documents that a connection's own commits leave its `data_version` unchanged, and the in-memory
/// store has only the one connection).
///
/// PostgreSQL: PostgreSQL has no `data_version`. An implementation must make the same promise across instances, for
/// example a one-row table `store_change (stamp bigint)` bumped in the same transaction as every write (by each
/// write method, or by statement-level triggers on every table, which also catch writes made by other tools), read
/// with one indexed `SELECT stamp FROM store_change` per call; or a `LISTEN`ed channel that every writing
/// transaction `NOTIFY`s, feeding a local counter, with the connection's loss treated as a change (a notification
/// missed while reconnecting must not leave a stale cache). Combine it with a local counter of this process's own
/// writes, as SQLite does, so a process never waits for its own notification.
public protocol StoreChangeStamp: Sendable {
    /// The current stamp. Throws only when the store cannot be reached; callers then fall back to the store itself.
    func changeStamp() async throws -> UInt64
}
