import GRDB
public import GatewayStore
import Synchronization

/// The SQLite side of ``StoreChangeStamp``.
///
/// SQLite documents `PRAGMA data_version` as changing, between two calls on one connection, when any *other*
/// connection committed a change in between (another process's included), and as unchanged by the connection's own
/// commits. So the stamp is read on a connection that never writes, opened read-only on the same file, and added to
/// the count of this store's own writes (needed by the in-memory store, whose one connection makes every write; a
/// belt and braces for the file store, whose writes go through the pool's writer). Both parts only grow, so their sum
/// changes whenever either does.
///
/// Each call is one `PRAGMA` on that connection, run synchronously: it touches the WAL index in shared memory, not
/// the disk, and costs microseconds, less than the hop to GRDB's queue and back that the async API would add on
/// every request.
extension SQLiteStore: StoreChangeStamp {
    /// Implements `StoreChangeStamp.changeStamp()` on SQLite (GRDB); the contract (order, errors, what `nil` means) is documented there.
    public func changeStamp() async throws -> UInt64 {
        let own = ownWrites.load(ordering: .acquiring)
        guard let stampConnection else { return own }
        do {
            let version = try stampConnection.inDatabase { db in
                try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
            }
            return own &+ UInt64(bitPattern: version)
        } catch {
            throw gatewayError(for: error, operation: "changeStamp", conflict: nil)
        }
    }

    /// Counts one of this store's writes, after it committed (or failed: counting too often costs only a refill).
    func countWrite() {
        ownWrites.wrappingAdd(1, ordering: .releasing)
    }

    /// The read-only connection `changeStamp()` asks.
    static func openStampConnection(path: String, busyTimeout: Double) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.label = "BrokerGateway.Store.ChangeStamp"
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}
