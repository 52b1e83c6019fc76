public import Foundation

/// One thing that happened in a tenant, to be written to its audit log: who acted, what they did to what, and how it
/// ended. `detail` holds safe fields only (ids, labels, scopes, counts, broker kinds), never a secret, a password, a
/// token or credentials: the log is readable by every admin key of the tenant.
public struct AuditRecord: Sendable, Hashable {
    /// The actor of what the operator does on the data folder (`gateway …` commands, the first run's demo data).
    public static let operatorActor = "operator"

    /// How the action ended: audited failures (a refused link, a failed login) matter as much as successes.
    public enum Outcome: String, Codable, Sendable, Hashable {
        case ok
        case failed
    }

    /// The tenant whose log the record goes to.
    public var tenantId: String
    /// A key id (`key_…`), a user id (`usr_…`, an end user's own session) or `operator`.
    public var actor: String
    /// What happened, as `resource.verb` (`key.created`, `connection.linked`, …).
    public var action: String
    /// The id of what it happened to.
    public var target: String?
    /// Whether it succeeded.
    public var outcome: Outcome
    /// Safe fields only (ids, labels, scopes, counts, broker kinds): every admin key of the tenant reads them.
    public var detail: [String: String]

    /// A record to write; the store stamps its time and id, and a create fills `target` with the id it chose.
    public init(
        tenantId: String,
        actor: String,
        action: String,
        target: String? = nil,
        outcome: Outcome = .ok,
        detail: [String: String] = [:]
    ) {
        self.tenantId = tenantId
        self.actor = actor
        self.action = action
        self.target = target
        self.outcome = outcome
        self.detail = detail
    }
}

/// An audit record as the log keeps it.
public struct AuditEvent: Codable, Sendable, Hashable {
    /// `aud_…`
    public var id: String
    /// The tenant whose log it is in.
    public var tenantId: String
    /// When the store wrote it.
    public var at: Date
    /// Who acted: a key id, a user id or `operator`.
    public var actor: String
    /// What happened, as `resource.verb`.
    public var action: String
    /// The id of what it happened to, when there is one.
    public var target: String?
    /// Whether it succeeded.
    public var outcome: AuditRecord.Outcome
    /// Safe fields only, as recorded.
    public var detail: [String: String]

    /// Builds a log entry; the store fills it from a row.
    public init(
        id: String,
        tenantId: String,
        at: Date,
        actor: String,
        action: String,
        target: String?,
        outcome: AuditRecord.Outcome,
        detail: [String: String]
    ) {
        self.id = id
        self.tenantId = tenantId
        self.at = at
        self.actor = actor
        self.action = action
        self.target = target
        self.outcome = outcome
        self.detail = detail
    }
}
