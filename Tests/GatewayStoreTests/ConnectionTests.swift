import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

@Suite("Connections")
struct ConnectionTests {
    @Test("connections are listed oldest first, in a stable order", arguments: StoreBackend.all)
    func stableOrder(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            var created: [ConnectionDescriptor] = []
            for index in 0..<8 {
                created.append(try await store.createConnection(tenantId: tenant.id, userId: nil, sampleConnection("c\(index)")))
            }
            let listed = try await store.connections(tenantId: tenant.id)
            #expect(listed == created)
            #expect(listed.map(\.createdAt) == listed.map(\.createdAt).sorted())
            #expect(try await store.connections(tenantId: tenant.id) == listed)

            // Updating a connection does not move it.
            _ = try await store.updateConnectionStatus(
                tenantId: tenant.id,
                connectionId: created[0].id,
                status: .relinkRequired,
                detail: nil
            )
            #expect(try await store.connections(tenantId: tenant.id).map(\.id) == created.map(\.id))
            #expect(Set(created.map(\.id)).count == created.count)
            #expect(created.allSatisfy { $0.id.hasPrefix("conn_") })
        }
    }

    @Test("what is returned equals what is read back, timestamps included", arguments: StoreBackend.all)
    func roundTrip(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            #expect(tenant.id.hasPrefix("ten_"))
            let created = try await store.createConnection(tenantId: tenant.id, userId: nil, sampleConnection())
            #expect(created.createdAt == created.updatedAt)
            #expect(created.settings == ["dataBaseURL": "sandbox://alpaca"])
            #expect(try await store.connection(tenantId: tenant.id, id: created.id) == created)
        }
    }

    @Test("updateCredentials and updateConnectionStatus move updatedAt strictly forward", arguments: StoreBackend.all)
    func updatedAtIncreases(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let created = try await store.createConnection(tenantId: tenant.id, userId: nil, sampleConnection())
            var previous = created.updatedAt
            for round in 0..<5 {
                try await store.updateCredentials(
                    tenantId: tenant.id,
                    connectionId: created.id,
                    BrokerCredentials(["token": "t\(round)"])
                )
                let afterCredentials = try #require(try await store.connection(tenantId: tenant.id, id: created.id))
                #expect(afterCredentials.updatedAt > previous)
                let afterStatus = try #require(
                    try await store.updateConnectionStatus(
                        tenantId: tenant.id,
                        connectionId: created.id,
                        status: .challengeRequired,
                        detail: ["question": "Your first pet?"]
                    )
                )
                #expect(afterStatus.updatedAt > afterCredentials.updatedAt)
                #expect(afterStatus.status == .challengeRequired)
                #expect(afterStatus.statusDetail == ["question": "Your first pet?"])
                #expect(afterStatus.createdAt == created.createdAt)
                #expect(try await store.connection(tenantId: tenant.id, id: created.id) == afterStatus)
                previous = afterStatus.updatedAt
            }
            let cleared = try await store.updateConnectionStatus(
                tenantId: tenant.id,
                connectionId: created.id,
                status: .active,
                detail: nil
            )
            #expect(cleared?.statusDetail == nil)
            #expect(cleared?.status == .active)
            #expect(try await store.credentials(tenantId: tenant.id, connectionId: created.id)["token"] == "t4")
        }
    }

    @Test("a deleted connection is gone", arguments: StoreBackend.all)
    func delete(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let created = try await store.createConnection(tenantId: tenant.id, userId: nil, sampleConnection())
            #expect(try await store.deleteConnection(tenantId: tenant.id, id: created.id))
            #expect(try await store.deleteConnection(tenantId: tenant.id, id: created.id) == false)
            #expect(try await store.connections(tenantId: tenant.id).isEmpty)
            await expectGatewayError(.notFound) {
                try await store.credentials(tenantId: tenant.id, connectionId: created.id)
            }
        }
    }
}

@Suite("Connections under concurrency")
struct ConnectionConcurrencyTests {
    @Test("concurrent creations get distinct times and one stable order; concurrent updates all move updatedAt", arguments: StoreBackend.all)
    func concurrentWrites(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let created = try await withThrowingTaskGroup(of: ConnectionDescriptor.self) { group in
                for index in 0..<20 {
                    group.addTask { try await store.createConnection(tenantId: tenant.id, userId: nil, sampleConnection("c\(index)")) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(created.map(\.createdAt)).count == 20)
            let listed = try await store.connections(tenantId: tenant.id)
            #expect(listed == created.sorted { $0.createdAt < $1.createdAt })

            let target = listed[0]
            let stamps = try await withThrowingTaskGroup(of: Date?.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        try await store.updateConnectionStatus(
                            tenantId: tenant.id,
                            connectionId: target.id,
                            status: .active,
                            detail: ["n": "\(index)"]
                        )?.updatedAt
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(stamps.compactMap { $0 }).count == 20)
            #expect(stamps.compactMap { $0 }.allSatisfy { $0 > target.updatedAt })
        }
    }
}
