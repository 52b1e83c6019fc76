import ArgumentParser
import Foundation
import GatewayApp
import GatewayCore
import GatewaySQLiteStore
import GatewayStore
import TestWorlds
import Testing

@testable import BrokerGatewayServer

/// `gateway tenants …` and `gateway keys …` on a data folder, as the operator runs them, checked through the store
/// the gateway serves from.
@Suite("gateway tenants and keys", .heavyWorld)
struct OperatorCommandTests {
    func withDataFolder(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-operator-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory.path)
    }

    func run(_ arguments: [String]) async throws -> [String] {
        try await runOperatorCommand(arguments)
    }

    @Test("an operator creates a tenant, a key (shown once) that serves, lists and revokes it, and disables the tenant")
    func tenantAndKeyLifecycle() async throws {
        try await withDataFolder { data in
            let created = try await run(["tenants", "create", "--name", "Acme", "--data-dir", data])
            let tenantId = try #require(created.first?.split(separator: "\t").first.map(String.init))
            #expect(tenantId.hasPrefix("ten_"))
            #expect(try await run(["tenants", "list", "--data-dir", data]).contains { $0.hasPrefix(tenantId + "\tAcme\t") })

            let issued = try await run(["keys", "create", "--tenant", tenantId, "--scopes", "admin,read", "--label", "backend", "--data-dir", data])
            #expect(issued.count == 2)
            let keyId = try #require(issued.first?.split(separator: "\t").first.map(String.init))
            let secret = try #require(issued.last)
            #expect(secret.hasPrefix("bgw_") && APIKeyText.keyId(of: secret) == keyId)
            #expect(issued.first?.contains("\tread,admin") == true)

            // The key authenticates against the same data folder, with the scopes given.
            let store = try await StoreOptions.parse(["--data-dir", data]).openStore()
            let found = try #require(try await store.authenticateAPIKey(secret))
            #expect(found.tenant.id == tenantId && Set(found.key.scopes) == ["admin", "read"])

            let listed = try await run(["keys", "list", "--tenant", tenantId, "--data-dir", data])
            #expect(listed.count == 1 && listed[0].hasPrefix(keyId + "\tbackend\tread,admin\t-\t"))
            #expect(!listed.joined().contains(secret), "a listed key never shows its secret")

            #expect(try await run(["keys", "revoke", "--tenant", tenantId, keyId, "--data-dir", data]) == ["\(keyId)\trevoked"])
            #expect(try await store.authenticateAPIKey(secret) == nil)
            await #expect(throws: (any Error).self) {
                try await run(["keys", "revoke", "--tenant", tenantId, keyId, "--data-dir", data])
            }

            let again = try await run(["keys", "create", "--tenant", tenantId, "--data-dir", data])
            let live = try #require(again.last)
            _ = try await run(["tenants", "disable", tenantId, "--data-dir", data])
            let disabled = try #require(try await store.authenticateAPIKey(live))
            #expect(disabled.tenant.disabledAt != nil)
            let audit = try await store.auditEvents(tenantId: tenantId, before: nil, limit: 10).map(\.action)
            #expect(audit == ["tenant.disabled", "key.created", "key.revoked", "key.created", "tenant.created"])
            #expect(try await store.auditEvents(tenantId: tenantId, before: nil, limit: 10).allSatisfy { $0.actor == "operator" })
        }
    }

    @Test("bad operator input is refused with a clear message")
    func badInput() async throws {
        try await withDataFolder { data in
            #expect(throws: (any Error).self) {
                try GatewayCommand.parseAsRoot(["keys", "create", "--tenant", "ten_x", "--scopes", "root", "--data-dir", data])
            }
            #expect(throws: (any Error).self) { try GatewayCommand.parseAsRoot(["tenants", "create", "--name", "", "--data-dir", data]) }
            await #expect(throws: (any Error).self) {
                try await run(["keys", "create", "--tenant", "ten_missing", "--data-dir", data])
            }
            await #expect(throws: (any Error).self) { try await run(["tenants", "disable", "ten_missing", "--data-dir", data]) }
        }
    }
}

/// Parses the command line as `gateway` does and runs the operator command it names; its printed lines.
func runOperatorCommand(_ arguments: [String]) async throws -> [String] {
    let command = try GatewayCommand.parseAsRoot(arguments)
    let operatorCommand = try #require(command as? any OperatorCommand, "\(arguments) is not an operator command")
    return try await OperatorOutput.mapped { try await operatorCommand.lines() }
}
