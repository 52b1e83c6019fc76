public import GatewayCore
import GatewayModel
public import GatewayStore

/// What a credential allows. Which one an operation needs is declared in the OpenAPI document (the scope list of its
/// security requirement), never in code: `read` every GET of a user's or the tenant's data; `trade` what changes
/// things at a broker or in a user's data (orders, previews, links, watchlists); `admin` the tenant's users, keys,
/// audit log, settings, and moving links out and in (export, import).
public enum Scope: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    case read, trade, admin

    /// Scopes as stored and shown: comma-separated, in a fixed order, without duplicates.
    public static func text(_ scopes: Set<Scope>) -> String {
        scopes.sorted().map(\.rawValue).joined(separator: ",")
    }

    /// The scopes of a stored text; a name this gateway does not know grants nothing (an older gateway never reads
    /// a newer one's scope as another).
    public static func parse(_ names: [String]) -> Set<Scope> {
        Set(names.compactMap(Scope.init(rawValue:)))
    }

    /// What an end user's session holds: it reads and trades for its own user, never `admin`. Whoever sets a user's
    /// password or mints their login code must hold all of it (a login never yields more than the act that made it).
    public static let session: Set<Scope> = [.read, .trade]

    /// Scopes by what they allow: `read` < `trade` < `admin`.
    public static func < (lhs: Scope, rhs: Scope) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .read: 0
        case .trade: 1
        case .admin: 2
        }
    }
}

/// Who is calling, for the duration of one request: the tenant, the user the request acts for, what the credential
/// allows, and the credential itself (for rate limits and the audit log). Made by the server's authentication from an
/// API key (or, with the sessions work, an end user's access token) and read from the store on every request, so a
/// revoked key, a disabled tenant or a removed user takes effect on the next request.
public struct Principal: Sendable, Hashable {
    /// The credential a request came with.
    public enum Credential: Sendable, Hashable {
        /// A tenant API key (`key_…`).
        case apiKey(id: String)
        /// An end user's session on one of their devices.
        case session(id: String, deviceId: String)
    }

    /// The tenant the credential belongs to; every operation is scoped by it.
    public var tenant: Tenant
    /// The user the request acts for: a bound key's user, the user `X-User-ID` names, a session's own user; `nil` for
    /// an unbound key on a tenant-level operation (or a user-scoped one without the header).
    public var userId: String?
    /// What the credential may do.
    public var scopes: Set<Scope>
    /// The credential the request came with (an API key or a session), which the audit log names.
    public var credential: Credential

    /// A principal as `Authentication` makes it from a checked credential.
    public init(tenant: Tenant, userId: String?, scopes: Set<Scope>, credential: Credential) {
        self.tenant = tenant
        self.userId = userId
        self.scopes = scopes
        self.credential = credential
    }

    /// How the audit log names who acted: the key id, or a session's user id.
    public var actor: String {
        switch credential {
        case .apiKey(let id): id
        case .session: userId ?? "session"
        }
    }

    /// The credential's own rate-limit bucket (the tenant has one more).
    public var limitKey: String {
        switch credential {
        case .apiKey(let id): id
        case .session(let id, _): "session:" + id
        }
    }

    /// Whether the credential holds `scope` itself (a scope does not imply the ones below it here).
    public func has(_ scope: Scope) -> Bool { scopes.contains(scope) }

    /// The user whose data a user-scoped operation reaches.
    /// - Throws: 400 `invalid_request` naming `X-User-ID` when the request acts for no user (an unbound key without the
    ///   header).
    public func owner() throws -> Owner {
        guard let userId else { throw Self.missingUser }
        return Owner(tenant: tenant, userId: userId, actor: actor)
    }

    /// The error of a user-scoped operation asked without a user.
    public static let missingUser = GatewayError(
        .invalidRequest,
        "this operation acts for one of the tenant's users: name the user in the X-User-ID header (usr_…), or use a key "
            + "bound to a user",
        details: [FieldProblem(field: "X-User-ID", problem: "is required with a key that is not bound to a user")]
    )
}

/// Whose data a user-scoped operation reaches: a user of a tenant. Every store query of user-scoped data is scoped by
/// both, so a user's connections, orders and watchlists never reach another user of the same tenant.
public struct Owner: Sendable, Hashable {
    /// The user's tenant.
    public var tenant: Tenant
    /// The user.
    public var userId: String
    /// Who acts for the user, as the audit log names them: a key id, the user's own id (a session), or `operator`.
    public var actor: String

    /// The owner `actor` acts for.
    public init(tenant: Tenant, userId: String, actor: String) {
        self.tenant = tenant
        self.userId = userId
        self.actor = actor
    }

    /// Whether the connection is this user's (of this tenant): every path to a connection by id checks it, so another
    /// user's connection answers as one that does not exist.
    public func owns(_ connection: ConnectionDescriptor) -> Bool {
        connection.tenantId == tenant.id && connection.userId == userId
    }

    /// The operator acting on the data folder (the first run's demo data, `gateway` commands).
    public static func `operator`(tenant: Tenant, userId: String) -> Owner {
        Owner(tenant: tenant, userId: userId, actor: AuditRecord.operatorActor)
    }
}

// The store's tenancy types under names the generated server can reach (`GatewayStore.User` would name a member of
// the `GatewayStore` protocol, not the module's type).
/// A tenant's user, as the generated server names it.
public typealias TenantUser = User
/// An API key's public description, as the generated server names it.
public typealias TenantAPIKey = APIKeyInfo
/// An audit log entry, as the generated server names it.
public typealias TenantAuditEvent = AuditEvent
/// A user's device, as the generated server names it.
public typealias TenantDevice = Device
/// A user's session, as the generated server names it.
public typealias TenantSession = SessionRecord
