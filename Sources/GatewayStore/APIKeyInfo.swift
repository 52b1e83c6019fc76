public import Foundation

/// An API key as listed: never its secret.
public struct APIKeyInfo: Codable, Sendable, Hashable {
    /// The key's id (`key_…`): the lookup part of the presented key, and what a revocation names.
    public var id: String
    /// The tenant the key acts in; a key never reaches another tenant's data.
    public var tenantId: String
    /// The operator's or admin's name for the key, so a listing says what each key is for.
    public var label: String
    /// What the key may do (`read`, `trade`, `admin`), as stored; a name the gateway does not know grants nothing.
    public var scopes: [String]
    /// The user a bound key acts for (always, and only for them); `nil` for a key that names its user per request.
    public var userId: String?
    /// When it was issued.
    public var createdAt: Date
    /// When it was revoked; a revoked key is refused from the next request on, and kept for the audit trail.
    public var revokedAt: Date?

    /// Builds the listing of a key; the store fills it from a row, tests from literals.
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
    /// The key as stored now (live, its secret matched).
    public var key: APIKeyInfo
    /// The key's tenant as stored now, so the caller decides about a disabled one.
    public var tenant: Tenant

    /// Pairs a key with its tenant, as one authentication query reads them.
    public init(key: APIKeyInfo, tenant: Tenant) {
        self.key = key
        self.tenant = tenant
    }
}
