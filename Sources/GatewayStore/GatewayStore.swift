public import Foundation
public import GatewayCore
public import GatewayModel

/// A tenant: one customer of the gateway, with its own keys, connections and watchlists.
public struct Tenant: Codable, Sendable, Hashable {
    /// The tenant's id (`ten_…`).
    public var id: String
    /// The operator's name for the tenant.
    public var name: String
    /// When it was created.
    public var createdAt: Date
    /// How old an answer the tenant's reads accept by default (`maxAgeMs` of a read overrides it); `nil` leaves it to
    /// the gateway's default.
    public var readMaxAgeMs: Int?
    /// When the operator disabled the tenant: its keys and sessions are refused from the next request on.
    public var disabledAt: Date?

    /// Builds a tenant; the store fills it from a row.
    public init(id: String, name: String, createdAt: Date, readMaxAgeMs: Int? = nil, disabledAt: Date? = nil) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.readMaxAgeMs = readMaxAgeMs
        self.disabledAt = disabledAt
    }
}

/// An API key as issued: `plaintext` is shown once and never stored (the store keeps only its hash).
public struct IssuedAPIKey: Sendable {
    /// The key's id (`key_…`), the lookup part of `plaintext`.
    public var id: String
    /// The tenant it acts in.
    public var tenantId: String
    /// The whole key to present (`bgw_<lookup>_<secret>`): shown once, since only its hash is stored.
    public var plaintext: String
    /// The key as listed from now on (without its secret).
    public var info: APIKeyInfo

    /// Builds an issued key; `StoreWrites.swift` builds it after the row is written.
    public init(id: String, tenantId: String, plaintext: String, info: APIKeyInfo) {
        self.id = id
        self.tenantId = tenantId
        self.plaintext = plaintext
        self.info = info
    }
}

/// What a client gives to link a connection.
public struct NewConnection: Sendable {
    /// The id to save the connection under, chosen before it is saved (`NewConnection.makeId()`), so that the adapter
    /// that proves the link can be the connection's own from its first call; `nil` lets the store choose one.
    public var id: String?
    /// Which broker dialect the connection speaks.
    public var broker: BrokerKind
    /// The user's name for the link, shown in listings.
    public var displayName: String
    /// The broker's API root the adapter calls (or a `sandbox://` name for the built-in simulators).
    public var baseURL: String
    /// Broker-specific settings the adapter reads (never secrets: those go in `credentials`).
    public var settings: [String: String]
    /// The broker credentials, sealed with the master key before they are stored.
    public var credentials: BrokerCredentials
    /// The status it starts in (`active`, or `challenge_required` when the broker asked a question at once).
    public var status: ConnectionStatus

    /// A connection to save, with the status its proof left it in.
    public init(
        broker: BrokerKind,
        displayName: String,
        baseURL: String,
        settings: [String: String] = [:],
        credentials: BrokerCredentials,
        status: ConnectionStatus = .active
    ) {
        self.broker = broker
        self.displayName = displayName
        self.baseURL = baseURL
        self.settings = settings
        self.credentials = credentials
        self.status = status
    }

    /// A fresh connection id, of the form the stores give (`conn_` and 20 random base32 characters).
    public static func makeId() -> String {
        StoreIdentifier.make(StoreIdentifier.connection)
    }
}

/// The gateway's persistent state: every concern's store at once. Every query is scoped by tenant: no method returns
/// another tenant's rows.
///
/// Implementations: `SQLiteStore` (GatewaySQLiteStore, one file, the default) and `PostgresStore`
/// (GatewayPostgresStore, for many instances). Both keep only their SQL, bindings and transactions: the rules
/// (validation, limits, messages, row decoding, JSON columns) are `StoreRules` and `StoredRows.swift` here, which
/// import no database driver. Code that needs one concern can ask for its protocol alone (`UserStore`, `AlertStore`…).
public protocol GatewayStore:
    TenantStore, UserStore, SessionStore, DeviceStore, AuditStore, ConnectionStore, LinkStateStore, WatchlistStore,
    GoalStore, AlertStore
{}

/// Tenants, their API keys, the schema's state and the embedded default's demo tenant.
public protocol TenantStore: Sendable {
    func createTenant(name: String) async throws -> Tenant
    func tenant(id: String) async throws -> Tenant?
    func tenants() async throws -> [Tenant]
    /// Whether the store answers and its schema is up to date: throws when it cannot be reached, returns `false`
    /// when migrations are missing (a newer schema is expected than the database has).
    func migrationsApplied() async throws -> Bool
    /// Sets (or with `nil` clears) the tenant's default read freshness; `nil` when there is no such tenant.
    func setReadMaxAge(tenantId: String, milliseconds: Int?) async throws -> Tenant?
    /// Marks the tenant disabled (its keys and sessions are refused from the next request on); the tenant as stored
    /// then, or `nil` when there is no such tenant. Disabling a disabled tenant keeps its first `disabledAt`.
    func disableTenant(id: String, audit: AuditRecord?) async throws -> Tenant?
    /// Issues a new key for a tenant with its scopes (stored names) and, for a bound key, its user. The plaintext is
    /// returned once; only a hash is kept. `audit` is written in the same transaction.
    /// - Throws: `GatewayError(.notFound)` for an unknown tenant, or a user that is not the tenant's.
    func issueAPIKey(
        tenantId: String,
        label: String,
        scopes: [String],
        userId: String?,
        audit: AuditRecord?
    ) async throws
        -> IssuedAPIKey
    /// The live key a presented key is, with its tenant as stored now, compared in constant time; `nil` for an
    /// unknown or revoked key, or one bound to a user that no longer exists.
    func authenticateAPIKey(_ key: String) async throws -> AuthenticatedAPIKey?
    /// A tenant's keys, oldest first, revoked ones included; never their secrets.
    func apiKeys(tenantId: String) async throws -> [APIKeyInfo]
    func apiKey(tenantId: String, id: String) async throws -> APIKeyInfo?
    /// Revokes a tenant's live key; `false` when it has no such key or it is already revoked. `audit` is written in
    /// the same transaction, only when the key is revoked.
    func revokeAPIKey(tenantId: String, keyId: String, audit: AuditRecord?) async throws -> Bool

    /// The tenant the first run created for the demo, if it is recorded.
    func demoTenantId() async throws -> String?
    func setDemoTenantId(_ id: String) async throws
}

/// A tenant's users.
public protocol UserStore: Sendable {
    /// - Throws: `GatewayError(.conflict)` when the tenant already has a user with that external id or email;
    ///   `.notFound` for an unknown tenant.
    func createUser(tenantId: String, _ user: NewUser, audit: AuditRecord?) async throws -> User
    /// The tenant's users, oldest first: at most `limit`, after the user `after` (a cursor), optionally only the one
    /// with an external id or an email.
    func users(tenantId: String, after: String?, limit: Int, externalId: String?, email: String?) async throws -> [User]
    func user(tenantId: String, id: String) async throws -> User?
    /// `nil` when the tenant has no such user.
    /// - Throws: `GatewayError(.conflict)` for an external id or email another user of the tenant has.
    func updateUser(tenantId: String, id: String, _ update: UserUpdate) async throws -> User?
    /// Deletes the user and, at once and in the same transaction, their connections (with their sealed credentials
    /// and link states) and gateway watchlists (and whatever else references the user with a cascade, such as
    /// devices and sessions); keys bound to the user are revoked. Their journaled orders stay, with their user id.
    /// `false` when the tenant has no such user.
    func deleteUser(tenantId: String, id: String, audit: AuditRecord?) async throws -> Bool
    /// The tenant's oldest user, made (external id `default`) when the tenant has none: the one user of a tenant
    /// used as a single account, as every tenant from before users was (migration `v7-tenancy`).
    /// - Throws: `GatewayError(.notFound)` for an unknown tenant.
    func defaultUser(tenantId: String) async throws -> User
}

/// End users' passwords, login codes and sessions.
public protocol SessionStore: Sendable {
    /// Sets (or with `nil` removes) a user's password hash (a PHC string), clearing any lockout. `false` when the
    /// tenant has no such user.
    func setPasswordHash(tenantId: String, userId: String, hash: String?, audit: AuditRecord?) async throws -> Bool
    /// The user with this (lower-cased) email, with their password hash and lockout.
    func loginCandidate(tenantId: String, email: String) async throws -> LoginCandidate?
    func recordFailedLogin(
        tenantId: String,
        userId: String,
        threshold: Int,
        base: Double,
        maximum: Double,
        now: Date,
        audit: AuditRecord?
    ) async throws -> Date?
    func recordSuccessfulLogin(tenantId: String, userId: String) async throws
    func createLoginCode(tenantId: String, userId: String, hash: [UInt8], expiresAt: Date, audit: AuditRecord?) async throws
    func consumeLoginCode(tenantId: String, hash: [UInt8], now: Date) async throws -> String?
    func createSession(
        tenantId: String,
        userId: String,
        deviceId: String,
        refreshHash: [UInt8],
        expiresAt: Date,
        audit: AuditRecord?
    ) async throws -> SessionRecord
    func session(id: String) async throws -> SessionRecord?
    func liveSessions(tenantId: String, userId: String, deviceId: String?, now: Date) async throws -> [SessionRecord]
    /// Rotates the session whose live token is `presented` to `newHash`. A spent token is reuse (the session is
    /// revoked), unless it was spent less than `grace` seconds ago and the session's live token is still `newHash`
    /// (what it was rotated to): that is `.replayed`, and nothing changes.
    func rotateRefreshToken(
        presented: [UInt8],
        newHash: [UInt8],
        now: Date,
        grace: TimeInterval,
        audit: @escaping @Sendable (SessionRecord) -> AuditRecord
    ) async throws -> RefreshOutcome
    func revokeSessions(
        tenantId: String,
        userId: String,
        sessionId: String?,
        deviceId: String?,
        reason: String,
        audit: AuditRecord?
    ) async throws -> Int
    func extendSession(id: String, expiresAt: Date, now: Date) async throws -> SessionRecord?
}

/// End users' devices and their push tokens.
public protocol DeviceStore: Sendable {
    func registerDevice(tenantId: String, userId: String, _ device: NewDevice, limit: Int) async throws -> Device
    func devices(tenantId: String, userId: String) async throws -> [Device]
    func device(tenantId: String, userId: String, id: String) async throws -> Device?
    func updateDevice(tenantId: String, userId: String, id: String, name: String?, trusted: Bool?) async throws -> Device?
    func deleteDevice(tenantId: String, userId: String, id: String, audit: AuditRecord?) async throws -> Bool
    func touchDevice(id: String, now: Date) async throws
    /// Sets the device's push token, active, as the user's only device with it: the same token on another of the
    /// user's devices is taken off that one in the same write. Registering the token the device already has, active,
    /// changes nothing (its `registeredAt` stays); an inactive one is made active again. `nil` when the user has no
    /// such device. `audit` is written with it.
    func setPushToken(
        tenantId: String,
        userId: String,
        deviceId: String,
        token: String,
        platform: PushPlatform,
        audit: AuditRecord?
    ) async throws -> Device?
    /// Removes the device's push token; `false` when the user has no such device or it has no token.
    func removePushToken(tenantId: String, userId: String, deviceId: String, audit: AuditRecord?) async throws -> Bool
    /// Marks the device's push token inactive (`reason`: the push service's) if it is still `token` and active; `false`
    /// otherwise (the app registered another one meanwhile, or it was already marked). Not audited: the push service's
    /// verdict, not a user's write.
    func deactivatePushToken(
        tenantId: String,
        userId: String,
        deviceId: String,
        token: String,
        reason: String,
        at: Date
    ) async throws -> Bool
}

/// The audit log.
public protocol AuditStore: Sendable {
    func recordAudit(_ record: AuditRecord) async throws
    /// The tenant's events, newest first: at most `limit`, older than the event `before` (a cursor) when given.
    /// - Throws: `GatewayError(.notFound)` when `before` names no event of the tenant.
    func auditEvents(tenantId: String, before: String?, limit: Int) async throws -> [AuditEvent]
}

/// Linked broker connections and their sealed credentials.
public protocol ConnectionStore: Sendable {
    /// - Throws: `GatewayError(.notFound)` for an unknown tenant, or a user that is not the tenant's.
    func createConnection(
        tenantId: String,
        userId: String?,
        _ connection: NewConnection
    ) async throws
        -> ConnectionDescriptor
    /// All the tenant's connections, every user's, oldest first (the operator's status, restarts, reconciliation).
    func connections(tenantId: String) async throws -> [ConnectionDescriptor]
    /// One user's connections, oldest first (a stable order for fan-out results).
    func connections(tenantId: String, userId: String) async throws -> [ConnectionDescriptor]
    /// Any of the tenant's connections by id, whoever's it is: the caller checks `userId` against whom it acts for.
    func connection(tenantId: String, id: String) async throws -> ConnectionDescriptor?
    func deleteConnection(tenantId: String, id: String) async throws -> Bool
    /// The connection's secrets, decrypted.
    func credentials(tenantId: String, connectionId: String) async throws -> BrokerCredentials
    func updateCredentials(tenantId: String, connectionId: String, _ credentials: BrokerCredentials) async throws
    func updateConnectionStatus(
        tenantId: String,
        connectionId: String,
        status: ConnectionStatus,
        detail: [String: String]?
    ) async throws -> ConnectionDescriptor?
}

/// Interactive links in progress.
public protocol LinkStateStore: Sendable {
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
}

/// Gateway-side watchlists (for brokers that have none). Each is one user's: names are unique per user, and no call
/// reaches another user's list.
public protocol WatchlistStore: Sendable {
    func watchlists(tenantId: String, userId: String) async throws -> [Watchlist]
    func watchlist(tenantId: String, userId: String, id: String) async throws -> Watchlist?
    /// Throws `GatewayError.conflict` when the user already has a watchlist of that name.
    func createWatchlist(tenantId: String, userId: String, name: String, instruments: [Instrument]) async throws -> Watchlist
    func updateWatchlist(
        tenantId: String,
        userId: String,
        id: String,
        name: String?,
        instruments: [Instrument]?
    ) async throws -> Watchlist?
    func deleteWatchlist(tenantId: String, userId: String, id: String) async throws -> Bool
}

/// Goals (seed 002). Each is one user's, as watchlists: names are unique per user, and no call reaches another user's
/// goal. The store keeps what the user set; whether the allocations are held is the application's check, against live
/// positions.
public protocol GoalStore: Sendable {
    func goals(tenantId: String, userId: String) async throws -> [Goal]
    func goal(tenantId: String, userId: String, id: String) async throws -> Goal?
    /// Throws `GatewayError.conflict` when the user already has a goal of that name. `audit` (its target set to the
    /// new goal's id) is written in the same transaction, as is each goal write's.
    func createGoal(tenantId: String, userId: String, _ draft: GoalDraft, audit: AuditRecord?) async throws -> Goal
    /// Replaces every field; `nil` when the user has no such goal (then nothing is audited).
    func updateGoal(tenantId: String, userId: String, id: String, _ draft: GoalDraft, audit: AuditRecord?) async throws -> Goal?
    func deleteGoal(tenantId: String, userId: String, id: String, audit: AuditRecord?) async throws -> Bool
}

/// Alerts. Each is one user's: no call reaches another user's alert or its delivery log. The webhook secret is sealed
/// with the credential cipher (its tenant and alert ids authenticated) and read back only to sign a delivery.
public protocol AlertStore: Sendable {
    /// The user's alerts, oldest first.
    func alerts(tenantId: String, userId: String) async throws -> [Alert]
    func alert(tenantId: String, userId: String, id: String) async throws -> Alert?
    /// Every enabled alert of every tenant with its owner (what the alert engine watches).
    func enabledAlerts() async throws -> [OwnedAlert]
    /// - Throws: `GatewayError(.unprocessable)` when the user already has `limit` alerts; `.notFound` for an unknown
    ///   tenant or user. `audit` (its target set to the new alert's id) is written in the same transaction.
    func createAlert(
        tenantId: String,
        userId: String,
        _ draft: AlertDraft,
        webhookSecret: String,
        limit: Int,
        audit: AuditRecord?
    ) async throws -> Alert
    /// Replaces every field of the draft and re-arms the alert; `nil` when the user has no such alert.
    func updateAlert(tenantId: String, userId: String, id: String, _ draft: AlertDraft, audit: AuditRecord?) async throws -> Alert?
    /// Deletes the alert and its delivery log.
    func deleteAlert(tenantId: String, userId: String, id: String, audit: AuditRecord?) async throws -> Bool
    /// The alert's webhook signing secret, decrypted; `nil` when the user has no such alert.
    func alertWebhookSecret(tenantId: String, userId: String, id: String) async throws -> String?
    /// Records an alert's state after the engine judged it: `armed` (a price alert waits for its condition again, or
    /// not until the price crosses back), `firedAt` (when it fired: `lastFiredAt` moves) and `disable` (a `once`
    /// alert that fired); `false` when there is no such alert. Not audited: the gateway's doing, not a user's write.
    func recordAlertState(tenantId: String, userId: String, id: String, armed: Bool, firedAt: Date?, disable: Bool) async throws -> Bool
    /// Removes the APNs channel of the alert if it still names `deviceToken` (APNs said the token is gone).
    func dropAlertDeviceToken(tenantId: String, userId: String, id: String, deviceToken: String) async throws -> Bool
    /// Appends one attempt to the alert's delivery log (the newest `AlertDraft.deliveryLogLength` are kept).
    func recordAlertDelivery(tenantId: String, userId: String, _ attempt: AlertDeliveryAttempt) async throws
    /// The alert's delivery log, newest first: at most `limit`, older than the entry `before` (a cursor) when given.
    /// - Throws: `GatewayError(.notFound)` when `before` names no entry of the alert's log.
    func alertDeliveries(
        tenantId: String,
        userId: String,
        alertId: String,
        before: String?,
        limit: Int
    ) async throws -> [AlertDeliveryAttempt]
}

/// An alert with its owner.
public struct OwnedAlert: Sendable, Hashable {
    /// The tenant of the alert's owner.
    public var tenantId: String
    /// The user it belongs to: what it fires for, and whose devices and webhooks it reaches.
    public var userId: String
    /// The alert as stored.
    public var alert: Alert

    /// Pairs an alert with its owner, as the evaluator reads every enabled alert.
    public init(tenantId: String, userId: String, alert: Alert) {
        self.tenantId = tenantId
        self.userId = userId
        self.alert = alert
    }
}

/// An alert's fields as the store writes them (already checked by the application).
public struct AlertDraft: Sendable, Hashable {
    /// The user's name for it; trimmed again by the store.
    public var name: String?
    /// What fires it (a price crossing, a move), as JSON in its column.
    public var rule: AlertRule
    /// Where it is delivered (webhook, APNs), as JSON in its column.
    public var channels: AlertChannels
    /// A disabled alert is kept but not evaluated.
    public var enabled: Bool
    /// Whether it fires once or re-arms when the condition clears.
    public var rearm: AlertRearm

    /// An alert's fields to write, already checked by the application.
    public init(name: String?, rule: AlertRule, channels: AlertChannels, enabled: Bool, rearm: AlertRearm) {
        self.name = name
        self.rule = rule
        self.channels = channels
        self.enabled = enabled
        self.rearm = rearm
    }

    /// How many entries of one alert's delivery log are kept (older ones are dropped as new ones come).
    public static let deliveryLogLength = 1000
}

extension SessionStore {
    /// A rotation without a grace window: every spent token presented again is reuse.
    public func rotateRefreshToken(
        presented: [UInt8],
        newHash: [UInt8],
        now: Date,
        audit: @escaping @Sendable (SessionRecord) -> AuditRecord
    ) async throws -> RefreshOutcome {
        try await rotateRefreshToken(presented: presented, newHash: newHash, now: now, grace: 0, audit: audit)
    }
}

// The goal writes without an audit record (the tests', and the operator's).
extension GoalStore {
    /// Creates a goal with no audit record.
    public func createGoal(tenantId: String, userId: String, _ draft: GoalDraft) async throws -> Goal {
        try await createGoal(tenantId: tenantId, userId: userId, draft, audit: nil)
    }

    /// Replaces a goal's fields with no audit record; `nil` when the user has no such goal.
    public func updateGoal(tenantId: String, userId: String, id: String, _ draft: GoalDraft) async throws -> Goal? {
        try await updateGoal(tenantId: tenantId, userId: userId, id: id, draft, audit: nil)
    }

    /// Deletes a goal with no audit record; `false` when the user has no such goal.
    public func deleteGoal(tenantId: String, userId: String, id: String) async throws -> Bool {
        try await deleteGoal(tenantId: tenantId, userId: userId, id: id, audit: nil)
    }
}

/// A goal's fields as the store writes them (already checked by the application; the name is trimmed again here).
public struct GoalDraft: Sendable, Hashable {
    /// The user's name for the goal; unique per user.
    public var name: String
    /// The value to reach, in `currency` (a `Decimal`, stored as text).
    public var targetValue: Decimal
    /// The currency the target and the progress are valued in.
    public var currency: String
    /// The positions counted toward the goal, each at most the units the user holds.
    public var allocations: [Goal.Allocation]
    /// The user's other goals (oldest first) as they were when the allocations were checked against them: the write
    /// happens only if they are still exactly so, else it throws a retryable `conflict` (`goalsChangedMessage`), so
    /// two writes racing for the same units cannot both pass the check. `nil`: written whatever the others are.
    public var checkedAgainst: [Goal]?

    /// A goal's fields to write, with the other goals the allocations were checked against (if any).
    public init(name: String, targetValue: Decimal, currency: String, allocations: [Goal.Allocation], checkedAgainst: [Goal]? = nil) {
        self.name = name
        self.targetValue = targetValue
        self.currency = currency
        self.allocations = allocations
        self.checkedAgainst = checkedAgainst
    }

    /// The message of the retryable conflict a write throws when the goals it was checked against have changed.
    public static let goalsChangedMessage = "the user's goals changed while this one was checked: retry"
}

// Shorthands for the operator's and the tests' single-account use of a tenant.
extension GatewayStore {
    /// A key with every scope, bound to no user.
    public func issueAPIKey(tenantId: String, label: String) async throws -> IssuedAPIKey {
        try await issueAPIKey(tenantId: tenantId, label: label, scopes: ["read", "trade", "admin"], userId: nil, audit: nil)
    }

    /// The tenant of a live key, unless the tenant is disabled.
    public func tenant(forAPIKey key: String) async throws -> Tenant? {
        guard let found = try await authenticateAPIKey(key), found.tenant.disabledAt == nil else { return nil }
        return found.tenant
    }

    /// A key with every scope bound to the tenant's default user (see `defaultUser`): a tenant used as a single
    /// account, the way tenants from before users keep working.
    public func issueDefaultUserKey(tenantId: String, label: String) async throws -> IssuedAPIKey {
        let user = try await defaultUser(tenantId: tenantId)
        return try await issueAPIKey(
            tenantId: tenantId,
            label: label,
            scopes: ["read", "trade", "admin"],
            userId: user.id,
            audit: nil
        )
    }

    /// Revokes a key with no audit record (the operator's and the tests' use); `false` when the tenant has no such key.
    public func revokeAPIKey(tenantId: String, keyId: String) async throws -> Bool {
        try await revokeAPIKey(tenantId: tenantId, keyId: keyId, audit: nil)
    }
}
