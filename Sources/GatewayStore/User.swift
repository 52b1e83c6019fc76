public import Foundation

/// An end user inside a tenant: their connections, orders and watchlists are theirs alone. Never carries a password
/// hash or anything else secret.
public struct User: Codable, Sendable, Hashable {
    /// `usr_…`
    public var id: String
    /// The tenant the user belongs to.
    public var tenantId: String
    /// The app's own id for this user, unique in the tenant.
    public var externalId: String?
    /// Lower-cased, unique in the tenant.
    public var email: String?
    /// A name to show, as the app set it.
    public var displayName: String?
    /// When the user was created: with `id`, the listing's order and cursor.
    public var createdAt: Date
    /// When the user's fields last changed.
    public var updatedAt: Date

    /// Builds a user; the store fills it from a row, `NewUser.stored` from a create.
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
    /// The app's own id for the user, unique in the tenant.
    public var externalId: String?
    /// Lower-cased, unique in the tenant.
    public var email: String?
    /// A name to show.
    public var displayName: String?

    /// A user to create, with the fields the app sent (already checked).
    public init(externalId: String? = nil, email: String? = nil, displayName: String? = nil) {
        self.externalId = externalId
        self.email = email
        self.displayName = displayName
    }
}

/// A change to a user's fields, already checked: each field is kept, set or cleared.
public struct UserUpdate: Sendable, Hashable {
    /// What an update does to one field: keep it, set it, or clear it (three states an optional cannot say).
    public enum Change: Sendable, Hashable {
        case keep
        case set(String)
        case clear

        /// The new value of a `set`; `nil` for `keep` and `clear` (a cleared column is written as NULL).
        public var value: String? {
            if case .set(let value) = self { return value }
            return nil
        }
    }

    /// The change to the app's id for the user.
    public var externalId: Change
    /// The change to the email.
    public var email: Change
    /// The change to the display name.
    public var displayName: Change

    /// An update; every field is kept unless said otherwise.
    public init(externalId: Change = .keep, email: Change = .keep, displayName: Change = .keep) {
        self.externalId = externalId
        self.email = email
        self.displayName = displayName
    }

    /// Whether the update changes no field, so the store can answer the user as it is without a write.
    public var changesNothing: Bool { externalId == .keep && email == .keep && displayName == .keep }
}
