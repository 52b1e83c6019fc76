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
    public var id: String
    public var tenantId: String
    /// The tenant's user the connection belongs to (`usr_…`): only requests acting for that user reach it.
    public var userId: String?
    public var broker: BrokerKind
    public var displayName: String
    /// The broker's base URL (`https://paper-api.alpaca.markets`), or `sandbox://<broker>` for the built-in sandbox.
    public var baseURL: String
    /// Non-secret adapter settings (e.g. `dataBaseURL`, `marketNaming`).
    public var settings: [String: String]
    public var status: ConnectionStatus
    /// Details for `challenge_required` and `relink_required` (the question, its options, the reason).
    public var statusDetail: [String: String]?
    public var createdAt: Date
    public var updatedAt: Date

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
    public var values: [String: String]

    public init(_ values: [String: String] = [:]) { self.values = values }

    public subscript(key: String) -> String? {
        get { values[key] }
        set { values[key] = newValue }
    }

    public var isEmpty: Bool { values.isEmpty }
    public var description: String { "BrokerCredentials(keys: \(values.keys.sorted()), values: redacted)" }
    public var debugDescription: String { description }
}
