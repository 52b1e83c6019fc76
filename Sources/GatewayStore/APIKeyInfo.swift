public import Foundation

/// An API key as listed: never its secret.
public struct APIKeyInfo: Codable, Sendable, Hashable {
    public var id: String
    public var tenantId: String
    public var label: String
    public var createdAt: Date
    public var revokedAt: Date?

    public init(id: String, tenantId: String, label: String, createdAt: Date, revokedAt: Date? = nil) {
        self.id = id
        self.tenantId = tenantId
        self.label = label
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}
