import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

@Suite("Users")
struct UserTests {
    @Test("users are created, listed oldest first in pages, found by external id or email, and scoped to their tenant", arguments: StoreBackend.all)
    func createListAndFind(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let other = try await store.createTenant(name: "Other")
            var created: [User] = []
            for index in 0..<5 {
                created.append(
                    try await store.createUser(
                        tenantId: tenant.id,
                        NewUser(externalId: "app-\(index)", email: "u\(index)@example.com", displayName: "U\(index)"),
                        audit: nil
                    )
                )
            }
            let foreign = try await store.createUser(tenantId: other.id, NewUser(externalId: "app-0"), audit: nil)
            #expect(created.allSatisfy { $0.id.hasPrefix("usr_") && $0.tenantId == tenant.id })

            let first = try await store.users(tenantId: tenant.id, after: nil, limit: 2, externalId: nil, email: nil)
            #expect(first.map(\.id) == created.prefix(2).map(\.id))
            let second = try await store.users(tenantId: tenant.id, after: first.last?.id, limit: 2, externalId: nil, email: nil)
            #expect(second.map(\.id) == created[2..<4].map(\.id))
            let last = try await store.users(tenantId: tenant.id, after: second.last?.id, limit: 2, externalId: nil, email: nil)
            #expect(last.map(\.id) == [created[4].id])

            let byExternal = try await store.users(tenantId: tenant.id, after: nil, limit: 10, externalId: "app-0", email: nil)
            #expect(byExternal.map(\.id) == [created[0].id])
            let byEmail = try await store.users(tenantId: tenant.id, after: nil, limit: 10, externalId: nil, email: "u3@example.com")
            #expect(byEmail.map(\.id) == [created[3].id])

            #expect(try await store.user(tenantId: tenant.id, id: created[1].id) == created[1])
            #expect(try await store.user(tenantId: other.id, id: created[1].id) == nil)
            #expect(try await store.user(tenantId: tenant.id, id: foreign.id) == nil)
            // A cursor of another tenant's user is no cursor here.
            await expectGatewayError(.notFound) {
                try await store.users(tenantId: tenant.id, after: foreign.id, limit: 10, externalId: nil, email: nil)
            }
        }
    }

    @Test("external ids and emails are unique per tenant: a clash is a conflict naming the field", arguments: StoreBackend.all)
    func uniqueness(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let other = try await store.createTenant(name: "Other")
            let alice = try await store.createUser(tenantId: tenant.id, NewUser(externalId: "a", email: "a@example.com"), audit: nil)
            let bob = try await store.createUser(tenantId: tenant.id, NewUser(externalId: "b"), audit: nil)
            do {
                _ = try await store.createUser(tenantId: tenant.id, NewUser(externalId: "a", email: "a@example.com"), audit: nil)
                Issue.record("a second user with the same external id and email was created")
            } catch let error as GatewayError {
                #expect(error.code == .conflict)
                #expect(Set(error.details.map(\.field)) == ["externalId", "email"])
            }
            // Another tenant may use the same ones.
            _ = try await store.createUser(tenantId: other.id, NewUser(externalId: "a", email: "a@example.com"), audit: nil)
            // Users without either do not clash.
            _ = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            _ = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)

            await expectGatewayError(.conflict) {
                try await store.updateUser(tenantId: tenant.id, id: bob.id, UserUpdate(email: .set("a@example.com")))
            }
            // Setting one's own value again is no clash.
            let same = try await store.updateUser(tenantId: tenant.id, id: alice.id, UserUpdate(externalId: .set("a")))
            #expect(same?.externalId == "a")
        }
    }

    @Test("an update sets, clears or keeps each field and moves updatedAt forward", arguments: StoreBackend.all)
    func update(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(
                tenantId: tenant.id,
                NewUser(externalId: "x", email: "x@example.com", displayName: "X"),
                audit: nil
            )
            let updated = try #require(
                try await store.updateUser(
                    tenantId: tenant.id,
                    id: user.id,
                    UserUpdate(externalId: .keep, email: .clear, displayName: .set("Xavier"))
                )
            )
            #expect(updated.externalId == "x")
            #expect(updated.email == nil)
            #expect(updated.displayName == "Xavier")
            #expect(updated.updatedAt > user.updatedAt)
            #expect(updated.createdAt == user.createdAt)
            #expect(try await store.updateUser(tenantId: tenant.id, id: "usr_missing", UserUpdate(displayName: .set("y"))) == nil)
            let other = try await store.createTenant(name: "Other")
            #expect(try await store.updateUser(tenantId: other.id, id: user.id, UserUpdate(displayName: .set("y"))) == nil)
            #expect(try await store.user(tenantId: tenant.id, id: user.id)?.displayName == "Xavier")
        }
    }
}

@Suite("Audit log")
struct AuditLogTests {
    @Test("events are listed newest first, in pages, per tenant, with their detail", arguments: StoreBackend.all)
    func listing(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let other = try await store.createTenant(name: "Other")
            for index in 0..<5 {
                try await store.recordAudit(
                    AuditRecord(
                        tenantId: tenant.id,
                        actor: "key_a",
                        action: "thing.done",
                        target: "t\(index)",
                        detail: ["n": "\(index)"]
                    )
                )
            }
            try await store.recordAudit(AuditRecord(tenantId: other.id, actor: "operator", action: "tenant.disabled"))
            let page = try await store.auditEvents(tenantId: tenant.id, before: nil, limit: 3)
            #expect(page.map(\.target) == ["t4", "t3", "t2"])
            #expect(page.first?.detail == ["n": "4"])
            #expect(page.allSatisfy { $0.id.hasPrefix("aud_") && $0.actor == "key_a" && $0.outcome == .ok })
            let next = try await store.auditEvents(tenantId: tenant.id, before: page.last?.id, limit: 3)
            #expect(next.map(\.target) == ["t1", "t0"])
            let foreign = try #require(try await store.auditEvents(tenantId: other.id, before: nil, limit: 3).first)
            #expect(foreign.action == "tenant.disabled")
            await expectGatewayError(.notFound) { try await store.auditEvents(tenantId: tenant.id, before: foreign.id, limit: 3) }
        }
    }

    @Test("a key's creation and revocation are audited in the same write as the key", arguments: StoreBackend.all)
    func keyEventsAreWrittenWithTheKey(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let issued = try await store.issueAPIKey(
                tenantId: tenant.id,
                label: "ci",
                scopes: ["read", "trade"],
                userId: nil,
                audit: AuditRecord(tenantId: tenant.id, actor: "operator", action: "key.created", detail: ["scopes": "read,trade"])
            )
            #expect(issued.info.scopes == ["read", "trade"])
            #expect(
                try await store.revokeAPIKey(
                    tenantId: tenant.id,
                    keyId: issued.id,
                    audit: AuditRecord(tenantId: tenant.id, actor: "operator", action: "key.revoked", target: issued.id)
                )
            )
            // Revoking again changes nothing and writes nothing.
            #expect(
                try await store.revokeAPIKey(
                    tenantId: tenant.id,
                    keyId: issued.id,
                    audit: AuditRecord(tenantId: tenant.id, actor: "operator", action: "key.revoked", target: issued.id)
                ) == false
            )
            let events = try await store.auditEvents(tenantId: tenant.id, before: nil, limit: 10)
            #expect(events.map(\.action) == ["key.revoked", "key.created"])
            #expect(events.map(\.target) == [issued.id, issued.id])
        }
    }
}
