/// A number that changes whenever a committed write could change what the store answers: the seam that lets the
/// application keep what every request reads (an API key and its tenant, a session, a user, a connection list) in
/// memory and still see a revocation on the very next request, whichever process made it.
///
/// The application reads the stamp before each consultation of its caches (concurrent requests share a read, but
/// only one that began after they asked); a stamp other than the one its cached answers were read under drops them
/// all. So the contract covers every write to what is cached (tenants, API
/// keys, users, sessions, devices, connections), not only the ones that touch authentication: a store may change the
/// stamp more often than needed (that only costs cache refills), never less.
///
/// Requirements on an implementation:
/// - **Every committed write to a cached table changes it**, this process's and any other's (the operator CLI writes the same SQLite
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
/// PostgreSQL (`PostgresStore`): a one-row table bumped by deferred constraint triggers in the same transaction as
/// every write to the tables whose rows the application caches (tenants, API keys, users, sessions, devices,
/// connections), so the promise above holds for those tables across instances; writes to the journal and the other
/// busy tables leave it alone, which is why a new cache of anything else must add its table's trigger first.
public protocol StoreChangeStamp: Sendable {
    /// The current stamp. Throws only when the store cannot be reached; callers then fall back to the store itself.
    func changeStamp() async throws -> UInt64
}
