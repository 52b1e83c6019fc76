import ArgumentParser
import Foundation
import GatewayApp
import GatewayCore
import GatewayPostgresStore
import GatewaySQLiteStore
import GatewayStore
import Logging

/// The data folder an operator command works on, read as `gateway serve` reads it (`--data-dir`, `--database-url`,
/// their environment variables, or a config file).
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "The data folder (as `gateway serve --data-dir`).")
    var dataDirectory: String?

    @Option(
        name: .customLong("database-url"),
        help: "A SQLite path, sqlite:///path or postgres://user:password@host:port/database (as `gateway serve --database-url`)."
    )
    var databaseURL: String?

    @Option(name: .customLong("config-file"), help: "A JSON config file (as `gateway serve --config-file`).")
    var configFile: String?

    /// Runs `body` with the store the settings name, migrated: the data folder's SQLite file, or the PostgreSQL
    /// database of `--database-url` (its pool closed afterwards). The master key is found (or made) as `serve` does.
    func withStore<T: Sendable>(_ body: (any GatewayStore & OrderJournalStore & MasterKeyStore) async throws -> T) async throws -> T {
        let (settings, cipher) = try await settingsAndCipher()
        var logger = Logger(label: "BrokerGateway.operator")
        logger.logLevel = .warning
        if let postgres = settings.postgres {
            return try await PostgresStore.withStore(settings: postgres, cipher: cipher, logger: logger) { store in
                try await body(store)
            }
        }
        return try await body(try await SQLiteStore.opening(path: settings.databasePath, cipher: cipher, logger: logger))
    }

    /// The data folder's SQLite store, migrated (for tests that keep it open across commands).
    func openStore() async throws -> SQLiteStore {
        let (settings, cipher) = try await settingsAndCipher()
        guard settings.postgres == nil else { throw ValidationError("--database-url names PostgreSQL, not a SQLite file") }
        var logger = Logger(label: "BrokerGateway.operator")
        logger.logLevel = .warning
        return try await SQLiteStore.opening(path: settings.databasePath, cipher: cipher, logger: logger)
    }

    /// The settings as `gateway serve` would read them here; nothing is opened or made.
    func settings() async throws -> GatewaySettings {
        var arguments: [String] = []
        if let dataDirectory { arguments += ["--data-dir", dataDirectory] }
        if let databaseURL { arguments += ["--database-url", databaseURL] }
        if let configFile { arguments += ["--config-file", configFile] }
        let environment = ProcessInfo.processInfo.environment
        do {
            return try GatewaySettings(reader: try await GatewaySettings.reader(arguments: arguments, environment: environment))
        } catch let error as SettingsError {
            throw ValidationError(error.description)
        }
    }

    private func settingsAndCipher() async throws -> (GatewaySettings, CredentialCipher) {
        let environment = ProcessInfo.processInfo.environment
        let settings = try await settings()
        try FileManager.default.createDirectory(
            at: settings.dataDirectory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        return (settings, try CredentialCipher.load(environment: environment, dataDirectory: settings.dataDirectory))
    }
}

/// What an operator command prints: one line per row, fields separated by tabs, so scripts can cut them.
enum OperatorOutput {
    static func line(_ fields: String?...) -> String {
        fields.map { $0 ?? "-" }.joined(separator: "\t")
    }

    static func date(_ date: Date?) -> String? {
        date.map { $0.formatted(.iso8601) }
    }

    /// The command's lines, printed; a store failure said as the command's error, never a stack trace.
    static func run(_ lines: () async throws -> [String]) async throws {
        for line in try await mapped(lines) { print(line) }
    }

    /// The command's lines, with a store or master key failure turned into the command's error (its code and message).
    static func mapped(_ lines: () async throws -> [String]) async throws -> [String] {
        do {
            return try await lines()
        } catch {
            throw said(error)
        }
    }

    /// A failure as the command's error: the store's and the key files' messages name paths, never secrets.
    static func said(_ error: any Error) -> any Error {
        switch error {
        case let error as GatewayError: ValidationError("\(error.code.rawValue): \(error.message)")
        case let error as MasterKeyError: ValidationError(error.description)
        default: error
        }
    }
}

/// An operator command: its output as lines, so tests read what it prints.
protocol OperatorCommand: AsyncParsableCommand {
    func lines() async throws -> [String]
}

extension OperatorCommand {
    func run() async throws {
        try await OperatorOutput.run { try await lines() }
    }
}

/// `gateway tenants create|list|disable`: the tenants on this gateway, for the operator.
struct TenantsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tenants",
        abstract: "Create, list and disable tenants (the organisations or apps on this gateway).",
        subcommands: [TenantsCreateCommand.self, TenantsListCommand.self, TenantsDisableCommand.self]
    )
}

struct TenantsCreateCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a tenant; prints its id. Then `gateway keys create --tenant <id> --scopes admin,read,trade`."
    )

    @Option(help: "The tenant's name (1 to 100 characters).")
    var name: String

    @OptionGroup var store: StoreOptions

    func validate() throws {
        let name = name.trimmingCharacters(in: .whitespaces)
        guard (1...100).contains(name.count), !name.contains(where: \.isNewline) else {
            throw ValidationError("--name must be 1 to 100 characters on one line")
        }
    }

    func lines() async throws -> [String] {
        let name = name.trimmingCharacters(in: .whitespaces)
        return try await store.withStore { store in
            let tenant = try await store.createTenant(name: name)
            try await store.recordAudit(
                AuditRecord(
                    tenantId: tenant.id,
                    actor: AuditRecord.operatorActor,
                    action: "tenant.created",
                    target: tenant.id
                )
            )
            return [OperatorOutput.line(tenant.id, tenant.name)]
        }
    }
}

struct TenantsListCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the tenants: id, name, created, disabled (or -)."
    )

    @OptionGroup var store: StoreOptions

    func lines() async throws -> [String] {
        try await store.withStore { try await $0.tenants() }.map { tenant in
            OperatorOutput.line(tenant.id, tenant.name, OperatorOutput.date(tenant.createdAt), OperatorOutput.date(tenant.disabledAt))
        }
    }
}

struct TenantsDisableCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable",
        abstract: "Disable a tenant: its keys are refused from the next request on."
    )

    @Argument(help: "The tenant's id (ten_…).")
    var tenantId: String

    @OptionGroup var store: StoreOptions

    func lines() async throws -> [String] {
        let tenantId = tenantId
        guard
            let tenant = try await store.withStore({ store in
                try await store.disableTenant(
                    id: tenantId,
                    audit: AuditRecord(tenantId: tenantId, actor: AuditRecord.operatorActor, action: "tenant.disabled", target: tenantId)
                )
            })
        else {
            throw GatewayError(.notFound, "no tenant '\(tenantId)'")
        }
        return [OperatorOutput.line(tenant.id, tenant.name, OperatorOutput.date(tenant.disabledAt))]
    }
}

/// `gateway keys create|list|revoke`: a tenant's API keys, for the operator.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Create, list and revoke a tenant's API keys; rotate the master key.",
        subcommands: [KeysCreateCommand.self, KeysListCommand.self, KeysRevokeCommand.self, KeysRotateMasterCommand.self]
    )
}

struct KeysCreateCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create an API key; prints its id, then the key itself on a line of its own (shown this once)."
    )

    @Option(help: "The tenant's id (ten_…).")
    var tenant: String

    @Option(help: "The key's scopes, comma-separated: read, trade, admin.")
    var scopes: String = "read,trade"

    @Option(help: "A label to tell keys apart.")
    var label: String = "operator"

    @Option(help: "Bind the key to one of the tenant's users (usr_…): it acts for that user only.")
    var user: String?

    @OptionGroup var store: StoreOptions

    func validate() throws {
        let names = scopes.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !names.isEmpty, names.allSatisfy({ Scope(rawValue: $0) != nil }) else {
            throw ValidationError("--scopes must name read, trade and/or admin, comma-separated")
        }
        guard (1...100).contains(label.count), !label.contains(where: \.isNewline) else {
            throw ValidationError("--label must be 1 to 100 characters on one line")
        }
    }

    func lines() async throws -> [String] {
        let (tenant, label, user) = (tenant, label, user)
        let scopes = Scope.parse(scopes.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        var detail = ["label": label, "scopes": Scope.text(scopes)]
        if let user { detail["userId"] = user }
        let issued = try await store.withStore { [detail] store in
            guard try await store.tenant(id: tenant) != nil else { throw GatewayError(.notFound, "no tenant '\(tenant)'") }
            return try await store.issueAPIKey(
                tenantId: tenant,
                label: label,
                scopes: scopes.sorted().map(\.rawValue),
                userId: user,
                audit: AuditRecord(tenantId: tenant, actor: AuditRecord.operatorActor, action: "key.created", detail: detail)
            )
        }
        // The key itself on a line of its own: the one time it is shown.
        return [OperatorOutput.line(issued.id, Scope.text(scopes), user), issued.plaintext]
    }
}

struct KeysListCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List a tenant's keys: id, label, scopes, user (or -), created, revoked (or -)."
    )

    @Option(help: "The tenant's id (ten_…).")
    var tenant: String

    @OptionGroup var store: StoreOptions

    func lines() async throws -> [String] {
        let tenant = tenant
        return try await store.withStore { try await $0.apiKeys(tenantId: tenant) }.map { key in
            OperatorOutput.line(
                key.id,
                key.label,
                key.scopes.joined(separator: ","),
                key.userId,
                OperatorOutput.date(key.createdAt),
                OperatorOutput.date(key.revokedAt)
            )
        }
    }
}

struct KeysRevokeCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke a key: refused from the next request on."
    )

    @Option(help: "The tenant's id (ten_…).")
    var tenant: String

    @Argument(help: "The key's id (key_…).")
    var keyId: String

    @OptionGroup var store: StoreOptions

    func lines() async throws -> [String] {
        let (tenant, keyId) = (tenant, keyId)
        let revoked = try await store.withStore { store in
            try await store.revokeAPIKey(
                tenantId: tenant,
                keyId: keyId,
                audit: AuditRecord(tenantId: tenant, actor: AuditRecord.operatorActor, action: "key.revoked", target: keyId)
            )
        }
        guard revoked else { throw GatewayError(.notFound, "no live key '\(keyId)' of tenant '\(tenant)'") }
        return [OperatorOutput.line(keyId, "revoked")]
    }
}
