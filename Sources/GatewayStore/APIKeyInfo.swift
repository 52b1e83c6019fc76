public import Foundation

/// An API key as listed: never its secret.
public struct APIKeyInfo: Codable, Sendable, Hashable {
    public var id: String
    public var tenantId: String
    public var label: String
    /// What the key may do (`read`, `trade`, `admin`), as stored; a name the gateway does not know grants nothing.
    public var scopes: [String]
    /// The user a bound key acts for (always, and only for them); `nil` for a key that names its user per request.
    public var userId: String?
    public var createdAt: Date
    public var revokedAt: Date?

    public init(
        id: String,
        tenantId: String,
        label: String,
        scopes: [String] = [],
        userId: String? = nil,
        createdAt: Date,
        revokedAt: Date? = nil
    ) {
        self.id = id
        self.tenantId = tenantId
        self.label = label
        self.scopes = scopes
        self.userId = userId
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

/// A presented key that checked out: the key (live, its secret matched) and its tenant as stored now (a disabled
/// tenant is returned with `disabledAt` set; refusing it is the caller's decision to word).
public struct AuthenticatedAPIKey: Sendable, Hashable {
    public var key: APIKeyInfo
    public var tenant: Tenant

    public init(key: APIKeyInfo, tenant: Tenant) {
        self.key = key
        self.tenant = tenant
    }
}
