import ArgumentParser
import Foundation
import GatewayCore
import GatewaySQLiteStore
import GatewayStore
import Logging

/// `gateway backup --to FOLDER`: a consistent copy of the embedded database, taken while the gateway serves, with
/// the data folder's key files that open it, in a new folder (mode 0700, files 0600). The folder appears whole or
/// not at all: it is written beside its final name and renamed into place. A master key that comes from the
/// environment is not in the folder, and the command says so: keep it with the backup. PostgreSQL is backed up with
/// `pg_dump` (README, "Deploying").
struct BackupCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the embedded database, consistently while serving, with the key files that open it."
    )

    @OptionGroup var store: StoreOptions

    @Option(name: .customLong("to"), help: "A new folder for the backup (it must not exist).")
    var destination: String

    /// The manifest's name in a backup folder.
    static let manifestName = "backup.json"

    func lines() async throws -> [String] {
        let settings = try await store.settings()
        guard settings.postgres == nil else {
            throw ValidationError("the database is PostgreSQL: back it up with pg_dump (README, \"Deploying\")")
        }
        let environment = ProcessInfo.processInfo.environment
        let target = URL(fileURLWithPath: destination)
        guard !FileManager.default.fileExists(atPath: target.path(percentEncoded: false)) else {
            throw ValidationError("\(destination) already exists: a backup goes into a new folder")
        }
        let masterKeyFromEnvironment = try SuppliedSecret.named(CredentialCipher.environmentVariable, in: environment) != nil
        let keyFile = settings.dataDirectory.appending(path: CredentialCipher.keyFileName).path(percentEncoded: false)
        guard masterKeyFromEnvironment || FileManager.default.fileExists(atPath: keyFile) else {
            throw ValidationError(
                "no master key: neither \(CredentialCipher.environmentVariable) nor \(keyFile); the database cannot be opened without it"
            )
        }

        // Written beside its final name, then renamed: a folder with the final name is a whole backup.
        let partial = target.deletingLastPathComponent().appending(path: ".\(target.lastPathComponent).partial-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ValidationError("\(partial.deletingLastPathComponent().path(percentEncoded: false)) cannot hold a backup folder")
        }
        do {
            let database = partial.appending(path: SQLiteStore.databaseFileName).path(percentEncoded: false)
            try SQLiteStore.backup(databaseAt: settings.databasePath, to: database)
            let keys = try DataFolderKeys.copy(from: settings.dataDirectory, to: partial)
            let manifest = BackupManifest(
                format: 1,
                createdAt: Date(),
                database: SQLiteStore.databaseFileName,
                keyFiles: keys,
                masterKeyInEnvironment: masterKeyFromEnvironment
            )
            try BackupManifest.encoder.encode(manifest).write(to: partial.appending(path: Self.manifestName), options: .withoutOverwriting)
            try FileManager.default.moveItem(at: partial, to: target)
            let size = (try? FileManager.default.attributesOfItem(atPath: target.appending(path: SQLiteStore.databaseFileName).path)[.size]) as? Int
            var lines = [OperatorOutput.line("database", target.appending(path: SQLiteStore.databaseFileName).path, size.map { "\($0) bytes" })]
            lines += keys.map { OperatorOutput.line("key", $0) }
            if masterKeyFromEnvironment {
                lines.append(
                    OperatorOutput.line("master-key", "from the environment, not in the backup: keep \(CredentialCipher.environmentVariable) with it")
                )
            }
            return lines
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw OperatorOutput.said(error)
        }
    }
}

/// `gateway restore --from FOLDER`: puts a backup into a new data folder (one with no database and no key file)
/// and proves it: the database opens with the restored master key (or the environment's) and every stored
/// credential of every tenant decrypts. A restore that fails its proof removes what it put there.
struct RestoreCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put a backup into a new data folder and check that every stored credential opens."
    )

    @OptionGroup var store: StoreOptions

    @Option(name: .customLong("from"), help: "A folder `gateway backup` wrote.")
    var source: String

    func lines() async throws -> [String] {
        let settings = try await store.settings()
        guard settings.postgres == nil else {
            throw ValidationError("the database is PostgreSQL: restore it with pg_restore (README, \"Deploying\")")
        }
        let from = URL(fileURLWithPath: source)
        let manifestData: Data
        do {
            manifestData = try Data(contentsOf: from.appending(path: BackupCommand.manifestName))
        } catch {
            throw ValidationError("\(source) is not a backup: it has no \(BackupCommand.manifestName)")
        }
        guard let manifest = try? BackupManifest.decoder.decode(BackupManifest.self, from: manifestData), manifest.format == 1,
            manifest.database == SQLiteStore.databaseFileName
        else {
            throw ValidationError("\(source)/\(BackupCommand.manifestName) is not a backup manifest this gateway reads")
        }
        let data = settings.dataDirectory
        let database = settings.databasePath
        let occupied = ([database] + DataFolderKeys.present(in: data).map { data.appending(path: $0).path(percentEncoded: false) })
            .filter { FileManager.default.fileExists(atPath: $0) }
        guard occupied.isEmpty else {
            throw ValidationError("restore into a new data folder: \(occupied.joined(separator: ", ")) already exists")
        }
        let environment = ProcessInfo.processInfo.environment
        if manifest.masterKeyInEnvironment, try SuppliedSecret.named(CredentialCipher.environmentVariable, in: environment) == nil {
            throw ValidationError("this backup's master key came from the environment: set \(CredentialCipher.environmentVariable) to it")
        }

        var placed: [URL] = []
        do {
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let keys = try DataFolderKeys.copy(from: from, to: data)
            placed += keys.map { data.appending(path: $0) }
            try SQLiteStore.backup(databaseAt: from.appending(path: manifest.database).path(percentEncoded: false), to: database)
            placed.append(URL(fileURLWithPath: database))
            let cipher = try CredentialCipher.load(environment: environment, dataDirectory: data)
            var logger = Logger(label: "BrokerGateway.operator")
            logger.logLevel = .warning
            let restored = try await SQLiteStore.opening(path: database, cipher: cipher, logger: logger)
            var connections = 0
            for tenant in try await restored.tenants() {
                for connection in try await restored.connections(tenantId: tenant.id) {
                    _ = try await restored.credentials(tenantId: tenant.id, connectionId: connection.id)
                    connections += 1
                }
            }
            var lines = [OperatorOutput.line("database", database)]
            lines += keys.map { OperatorOutput.line("key", $0) }
            lines.append(OperatorOutput.line("connections", "\(connections)", "every stored credential opens"))
            return lines
        } catch {
            for url in placed.reversed() {
                try? FileManager.default.removeItem(at: url)
                for suffix in ["-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: url.path(percentEncoded: false) + suffix) }
            }
            throw OperatorOutput.said(error)
        }
    }
}

/// What a backup folder holds, written last by `gateway backup` and read first by `gateway restore`.
struct BackupManifest: Codable, Sendable {
    /// The manifest's own format; `1`.
    var format: Int
    var createdAt: Date
    /// The database file's name in the folder.
    var database: String
    /// The key files in the folder, relative to it.
    var keyFiles: [String]
    /// Whether the master key came from the environment (so it is not in the folder).
    var masterKeyInEnvironment: Bool

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
