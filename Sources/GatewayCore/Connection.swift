public import Foundation
public import GatewayModel

/// Where a connection stands with its broker.
public enum ConnectionStatus: String, WireEnum {
    /// Linked and usable.
    case active
    /// Linking has started (an OAuth popup is open) and is not finished.
    case pendingLink = "pending_link"
    /// The broker asks a question (TradeIt security question) before it opens a session.
    case challengeRequired = "challenge_required"
    /// The broker's long-lived token is dead: the user must link again.
    case relinkRequired = "relink_required"
}

/// A tenant's link to one broker account login, without its secrets.
public struct ConnectionDescriptor: Codable, Sendable, Hashable {
    /// The gateway's opaque id (`conn_…`), chosen before the connection is saved; stamped on every record it yields.
    public var id: String
    /// The tenant that owns the connection; also bound into its sealed credentials, so they open in no other row.
    public var tenantId: String
    /// The tenant's user the connection belongs to (`usr_…`): only requests acting for that user reach it.
    public var userId: String?
    /// The dialect, which picks the adapter factory.
    public var broker: BrokerKind
    /// The user's own label for the connection, shown in lists and status pages.
    public var displayName: String
    /// The broker's base URL (`https://paper-api.alpaca.markets`), or `sandbox://<broker>` for the built-in sandbox.
    public var baseURL: String
    /// Non-secret adapter settings (e.g. `dataBaseURL`, `marketNaming`).
    public var settings: [String: String]
    /// Whether the connection is usable; anything but `active` is reported by reads rather than called.
    public var status: ConnectionStatus
    /// Details for `challenge_required` and `relink_required` (the question, its options, the reason).
    public var statusDetail: [String: String]?
    /// When the connection was first saved.
    public var createdAt: Date
    /// When the connection last changed (credentials, status, configuration); the store only moves it forward.
    public var updatedAt: Date

    /// A descriptor as the store reads it, or as linking builds one before saving.
    public init(
        id: String,
        tenantId: String,
        userId: String? = nil,
        broker: BrokerKind,
        displayName: String,
        baseURL: String,
        settings: [String: String] = [:],
        status: ConnectionStatus = .active,
        statusDetail: [String: String]? = nil,
        createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.tenantId = tenantId
        self.userId = userId
        self.broker = broker
        self.displayName = displayName
        self.baseURL = baseURL
        self.settings = settings
        self.status = status
        self.statusDetail = statusDetail
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A connection's secrets (API keys, tokens). Its description never shows a value.
public struct BrokerCredentials: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secrets by the keys the factory names (`credentialKeys`, such as `keyId` and `secretKey`).
    public var values: [String: String]

    /// Credentials from key/value pairs; empty for a broker used without a login.
    public init(_ values: [String: String] = [:]) { self.values = values }

    /// One secret by key; `nil` when absent. Setting `nil` removes the key.
    public subscript(key: String) -> String? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// Whether there are no secrets at all.
    public var isEmpty: Bool { values.isEmpty }
    /// The keys only, values redacted, so credentials that reach a log or an error message leak nothing.
    public var description: String { "BrokerCredentials(keys: \(values.keys.sorted()), values: redacted)" }
    /// The same redacted text as `description`, so `debugPrint` and `String(reflecting:)` leak nothing either.
    public var debugDescription: String { description }
}
