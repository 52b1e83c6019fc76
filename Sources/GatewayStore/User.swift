public import Foundation

/// An end user inside a tenant: their connections, orders and watchlists are theirs alone. Never carries a password
/// hash or anything else secret.
public struct User: Codable, Sendable, Hashable {
    /// `usr_…`
    public var id: String
    public var tenantId: String
    /// The app's own id for this user, unique in the tenant.
    public var externalId: String?
    /// Lower-cased, unique in the tenant.
    public var email: String?
    public var displayName: String?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: String,
        tenantId: String,
        externalId: String? = nil,
        email: String? = nil,
        displayName: String? = nil,
        createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.tenantId = tenantId
        self.externalId = externalId
        self.email = email
        self.displayName = displayName
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A user as the application creates it, already checked (lengths, email lower-cased).
public struct NewUser: Sendable, Hashable {
    public var externalId: String?
    public var email: String?
    public var displayName: String?

    public init(externalId: String? = nil, email: String? = nil, displayName: String? = nil) {
        self.externalId = externalId
        self.email = email
        self.displayName = displayName
    }
}

/// A change to a user's fields, already checked: each field is kept, set or cleared.
public struct UserUpdate: Sendable, Hashable {
    public enum Change: Sendable, Hashable {
        case keep
        case set(String)
        case clear

        public var value: String? {
            if case .set(let value) = self { return value }
            return nil
        }
    }

    public var externalId: Change
    public var email: Change
    public var displayName: Change

    public init(externalId: Change = .keep, email: Change = .keep, displayName: Change = .keep) {
        self.externalId = externalId
        self.email = email
        self.displayName = displayName
    }

    public var changesNothing: Bool { externalId == .keep && email == .keep && displayName == .keep }
}
