import Foundation
import GRDB
import GatewayCore

extension SQLiteStore {
    /// Copies the database at `path` into the new file `destination` with SQLite's online backup API: a consistent
    /// snapshot taken while other connections, a serving gateway's included, go on reading and writing (a write that
    /// commits during the copy restarts it, so what is copied is one committed state). The copy is one self-contained
    /// file (rollback journal, no `-wal` beside it), mode 0600.
    ///
    /// - Throws: `GatewayError(.notFound)` when there is no database at `path`; `.conflict` when `destination`
    ///   exists; `.internalError` when either file cannot be opened or the copy fails (the partial copy removed).
    public static func backup(databaseAt path: String, to destination: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw GatewayError(.notFound, "there is no database at \(path)")
        }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw GatewayError(.conflict, "\(destination) already exists")
        }
        do {
            var configuration = Configuration()
            configuration.label = "BrokerGateway.Backup"
            configuration.busyMode = .timeout(10)
            let source = try DatabaseQueue(path: path, configuration: configuration)
            createOwnerOnlyFileIfMissing(destination)
            let copy = try DatabaseQueue(path: destination)
            try source.backup(to: copy)
            // The pages carry the source's WAL mode: the copy is a single file, so it keeps a rollback journal.
            try copy.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = DELETE") }
            let check = try copy.read { try String.fetchOne($0, sql: "PRAGMA quick_check") }
            try source.close()
            try copy.close()
            guard check == "ok" else { throw BackupFailure(description: "the copy does not pass SQLite's quick check") }
        } catch {
            try? FileManager.default.removeItem(atPath: destination)
            throw GatewayError(.internalError, "the database at \(path) could not be copied: \(Self.safeDescription(error))")
        }
    }

    /// Why a copy is refused after it was made.
    struct BackupFailure: Error, CustomStringConvertible {
        var description: String
    }
}
