public import Foundation
public import GatewayCore
public import GatewayModel

/// A tenant: one customer of the gateway, with its own keys, connections and watchlists.
public struct Tenant: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    public var createdAt: Date
    /// How old an answer the tenant's reads accept by default (`maxAgeMs` of a read overrides it); `nil` leaves it to
    /// the gateway's default.
    public var readMaxAgeMs: Int?

    public init(id: String, name: String, createdAt: Date, readMaxAgeMs: Int? = nil) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.readMaxAgeMs = readMaxAgeMs
    }
}

/// An API key as issued: `plaintext` is shown once and never stored (the store keeps only its hash).
public struct IssuedAPIKey: Sendable {
    public var id: String
    public var tenantId: String
    public var plaintext: String

    public init(id: String, tenantId: String, plaintext: String) {
        self.id = id
        self.tenantId = tenantId
        self.plaintext = plaintext
    }
}

/// What a client gives to link a connection.
public struct NewConnection: Sendable {
    public var broker: BrokerKind
    public var displayName: String
    public var baseURL: String
    public var settings: [String: String]
    public var credentials: BrokerCredentials
    public var status: ConnectionStatus

    public init(
        broker: BrokerKind, displayName: String, baseURL: String, settings: [String: String] = [:],
        credentials: BrokerCredentials, status: ConnectionStatus = .active
    ) {
        self.broker = broker
        self.displayName = displayName
        self.baseURL = baseURL
        self.settings = settings
        self.credentials = credentials
        self.status = status
    }
}

/// The gateway's persistent state. Every query is scoped by tenant: no method returns another tenant's rows.
///
/// Implementations: `SQLiteStore` (one file, the default). A PostgreSQL implementation slots in behind the same
/// protocol for many instances.
public protocol GatewayStore: Sendable {
    // MARK: Tenants and API keys
    func createTenant(name: String) async throws -> Tenant
    func tenant(id: String) async throws -> Tenant?
    func tenants() async throws -> [Tenant]
    /// Whether the store answers and its schema is up to date: throws when it cannot be reached, returns `false`
    /// when migrations are missing (a newer schema is expected than the database has).
    func migrationsApplied() async throws -> Bool
    /// Sets (or with `nil` clears) the tenant's default read freshness; `nil` when there is no such tenant.
    func setReadMaxAge(tenantId: String, milliseconds: Int?) async throws -> Tenant?
    /// Issues a new key for a tenant. The plaintext is returned once; only a hash is kept.
    func issueAPIKey(tenantId: String, label: String) async throws -> IssuedAPIKey
    /// The tenant a presented key belongs to, compared in constant time; `nil` for an unknown or revoked key.
    func tenant(forAPIKey key: String) async throws -> Tenant?
    func revokeAPIKey(tenantId: String, keyId: String) async throws -> Bool

    // MARK: Connections
    func createConnection(tenantId: String, _ connection: NewConnection) async throws -> ConnectionDescriptor
    /// The tenant's connections, oldest first (a stable order for fan-out results).
    func connections(tenantId: String) async throws -> [ConnectionDescriptor]
    func connection(tenantId: String, id: String) async throws -> ConnectionDescriptor?
    func deleteConnection(tenantId: String, id: String) async throws -> Bool
    /// The connection's secrets, decrypted.
    func credentials(tenantId: String, connectionId: String) async throws -> BrokerCredentials
    func updateCredentials(tenantId: String, connectionId: String, _ credentials: BrokerCredentials) async throws
    func updateConnectionStatus(
        tenantId: String, connectionId: String, status: ConnectionStatus, detail: [String: String]?
    ) async throws -> ConnectionDescriptor?

    // MARK: Interactive links in progress

    /// Records the state nonce of a link that starts for a connection, by its hash only, replacing any earlier state
    /// of that connection; rows that expired long ago are purged on the way.
    /// - Throws: `GatewayError(.notFound)` when the tenant has no such connection.
    func recordLinkState(tenantId: String, connectionId: String, stateHash: [UInt8], expiresAt: Date, now: Date) async throws
    /// Spends the live state with this hash if it belongs to `connectionId`, in one write: of any number of
    /// concurrent callers, exactly one gets `consumed`. Looked up by the hash (the callback has no tenant yet), never
    /// by scanning tenants; the hash is the capability.
    func consumeLinkState(connectionId: String, stateHash: [UInt8], now: Date) async throws -> LinkStateOutcome
    /// Spends the connection's live state (a client completing the link with its API key, without the nonce).
    func consumeLinkState(tenantId: String, connectionId: String, now: Date) async throws -> LinkStateOutcome

    // MARK: The embedded default's demo tenant

    /// The tenant the first run created for the demo, if it is recorded.
    func demoTenantId() async throws -> String?
    func setDemoTenantId(_ id: String) async throws

    // MARK: Gateway-side watchlists (for brokers that have none)
    func watchlists(tenantId: String) async throws -> [Watchlist]
    func watchlist(tenantId: String, id: String) async throws -> Watchlist?
    /// Throws `GatewayError.conflict` when the tenant already has a watchlist of that name.
    func createWatchlist(tenantId: String, name: String, instruments: [Instrument]) async throws -> Watchlist
    func updateWatchlist(tenantId: String, id: String, name: String?, instruments: [Instrument]?) async throws -> Watchlist?
    func deleteWatchlist(tenantId: String, id: String) async throws -> Bool
}
