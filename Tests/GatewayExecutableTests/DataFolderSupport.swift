import Foundation
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore

/// A temporary folder for a test's data folders, removed afterwards.
func withTemporaryFolder(_ prefix: String, _ body: (URL) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try await body(directory)
}

/// A tenant with a user and connections, each with credentials of its own, as the operator-command tests need them.
struct SeededConnections: Sendable {
    var tenantId: String
    var userId: String?
    /// Each connection's credentials, by connection id.
    var credentials: [String: BrokerCredentials]
}

/// Makes a tenant named `name`, its default user, and `count` Alpaca connections with distinct credentials.
func seedConnections(_ store: SQLiteStore, tenant name: String, count: Int) async throws -> SeededConnections {
    let tenant = try await store.createTenant(name: name)
    let user = try await store.issueDefaultUserKey(tenantId: tenant.id, label: name).info.userId
    var seeded = SeededConnections(tenantId: tenant.id, userId: user, credentials: [:])
    for index in 0..<count {
        let credentials = BrokerCredentials(["keyId": "KEY-\(index)", "secretKey": "secret-\(index)-\(UUID().uuidString)"])
        let made = try await store.createConnection(
            tenantId: tenant.id,
            userId: user,
            NewConnection(
                broker: BrokerKind("alpaca"),
                displayName: "A\(index)",
                baseURL: "https://paper-api.alpaca.markets",
                credentials: credentials
            )
        )
        seeded.credentials[made.id] = credentials
    }
    return seeded
}

/// A file's permission bits, or -1 when they cannot be read.
func posixPermissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}
