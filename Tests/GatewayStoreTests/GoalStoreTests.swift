import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

@Suite("Goals in the store")
struct GoalStoreTests {
    static let allocations = [
        Goal.Allocation(connectionId: "conn_a", symbol: "AAPL", assetClass: .equity, quantity: Decimal(string: "8.5")),
        Goal.Allocation(connectionId: "conn_b", symbol: "BTC/USD", percent: Decimal(string: "12.5")),
    ]

    @Test("create, get, list, update, delete, with decimals kept exactly", arguments: StoreBackend.all)
    func lifecycle(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            let target = try #require(Decimal(string: "25000.000000000000000001"))
            let created = try await store.createGoal(
                tenantId: tenant.id,
                userId: user.id,
                GoalDraft(name: "  House  ", targetValue: target, currency: "EUR", allocations: Self.allocations)
            )
            #expect(created.id.hasPrefix("goal_"))
            #expect(created.name == "House")
            #expect(created.progress == nil)
            let fetched = try #require(try await store.goal(tenantId: tenant.id, userId: user.id, id: created.id))
            #expect(fetched == created)
            #expect(fetched.targetValue == target)
            #expect(fetched.allocations == Self.allocations)
            #expect(fetched.allocations[1].quantity == nil)

            let changed = try #require(
                try await store.updateGoal(
                    tenantId: tenant.id,
                    userId: user.id,
                    id: created.id,
                    GoalDraft(name: "Flat", targetValue: 300, currency: "USD", allocations: [])
                )
            )
            #expect(changed.name == "Flat")
            #expect(changed.targetValue == 300)
            #expect(changed.currency == "USD")
            #expect(changed.allocations.isEmpty)
            #expect(try #require(changed.updatedAt) > (try #require(created.updatedAt)))
            #expect(changed.createdAt == created.createdAt)
            #expect(try await store.goals(tenantId: tenant.id, userId: user.id) == [changed])

            #expect(try await store.deleteGoal(tenantId: tenant.id, userId: user.id, id: created.id))
            #expect(try await store.deleteGoal(tenantId: tenant.id, userId: user.id, id: created.id) == false)
            #expect(try await store.goal(tenantId: tenant.id, userId: user.id, id: created.id) == nil)
            let draft = GoalDraft(name: "x", targetValue: 1, currency: "USD", allocations: [])
            #expect(try await store.updateGoal(tenantId: tenant.id, userId: user.id, id: created.id, draft) == nil)
        }
    }

    @Test("names are unique per user; a rename onto another goal's name is a conflict", arguments: StoreBackend.all)
    func nameConflicts(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            let other = try await store.createUser(tenantId: tenant.id, NewUser(externalId: "b"), audit: nil)
            func draft(_ name: String) -> GoalDraft { GoalDraft(name: name, targetValue: 10, currency: "USD", allocations: []) }
            let house = try await store.createGoal(tenantId: tenant.id, userId: user.id, draft("House"))
            let car = try await store.createGoal(tenantId: tenant.id, userId: user.id, draft("Car"))
            await expectGatewayError(.conflict) { try await store.createGoal(tenantId: tenant.id, userId: user.id, draft("House")) }
            await expectGatewayError(.conflict) {
                try await store.updateGoal(tenantId: tenant.id, userId: user.id, id: car.id, draft("House"))
            }
            // Keeping its own name is not a conflict; another user may use the name.
            #expect(try await store.updateGoal(tenantId: tenant.id, userId: user.id, id: house.id, draft("House"))?.name == "House")
            _ = try await store.createGoal(tenantId: tenant.id, userId: other.id, draft("House"))
            #expect(try await store.goals(tenantId: tenant.id, userId: user.id).map(\.name) == ["House", "Car"])
            await expectGatewayError(.invalidRequest) { try await store.createGoal(tenantId: tenant.id, userId: user.id, draft("   ")) }
            await expectGatewayError(.invalidRequest) {
                try await store.createGoal(tenantId: tenant.id, userId: user.id, draft(String(repeating: "x", count: 101)))
            }
        }
    }

    @Test("another user's or tenant's goal is out of reach; deleting the user deletes their goals", arguments: StoreBackend.all)
    func isolation(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            let other = try await store.createUser(tenantId: tenant.id, NewUser(externalId: "b"), audit: nil)
            let otherTenant = try await store.createTenant(name: "Other")
            let goal = try await store.createGoal(
                tenantId: tenant.id,
                userId: user.id,
                GoalDraft(name: "House", targetValue: 10, currency: "USD", allocations: Self.allocations)
            )
            let draft = GoalDraft(name: "Mine now", targetValue: 1, currency: "USD", allocations: [])
            for (tenantId, userId) in [(tenant.id, other.id), (otherTenant.id, user.id)] {
                #expect(try await store.goal(tenantId: tenantId, userId: userId, id: goal.id) == nil)
                #expect(try await store.goals(tenantId: tenantId, userId: userId).isEmpty)
                #expect(try await store.updateGoal(tenantId: tenantId, userId: userId, id: goal.id, draft) == nil)
                #expect(try await store.deleteGoal(tenantId: tenantId, userId: userId, id: goal.id) == false)
            }
            #expect(try await store.goal(tenantId: tenant.id, userId: user.id, id: goal.id) == goal)
            await expectGatewayError(.notFound) {
                try await store.createGoal(tenantId: tenant.id, userId: "usr_00000000000000000000", draft)
            }
            #expect(try await store.deleteUser(tenantId: tenant.id, id: user.id, audit: nil))
            #expect(try await store.rawStrings("SELECT id FROM goals").isEmpty)
        }
    }

    @Test("a write checked against goals that changed since is a retryable conflict", arguments: StoreBackend.all)
    func checkedAgainstStaleGoals(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            func draft(_ name: String, _ basis: [Goal]?) -> GoalDraft {
                GoalDraft(name: name, targetValue: 10, currency: "USD", allocations: Self.allocations, checkedAgainst: basis)
            }
            let house = try await store.createGoal(tenantId: tenant.id, userId: user.id, draft("House", []))
            // Checked when only House existed: still true, so it is written.
            let car = try await store.createGoal(tenantId: tenant.id, userId: user.id, draft("Car", [house]))
            // Checked when only House existed, but Car has been written since.
            let stale = await #expect(throws: GatewayError.self) {
                try await store.createGoal(tenantId: tenant.id, userId: user.id, draft("Boat", [house]))
            }
            #expect(stale?.code == .conflict && stale?.retryable == true && stale?.message == GoalDraft.goalsChangedMessage)
            // An update is checked against the others, itself aside; a change to another since is refused too.
            #expect(try await store.updateGoal(tenantId: tenant.id, userId: user.id, id: car.id, draft("Car", [house]))?.name == "Car")
            _ = try await store.updateGoal(tenantId: tenant.id, userId: user.id, id: house.id, draft("Home", nil))
            await expectGatewayError(.conflict) {
                try await store.updateGoal(tenantId: tenant.id, userId: user.id, id: car.id, draft("Car", [house]))
            }
            #expect(try await store.goals(tenantId: tenant.id, userId: user.id).map(\.name) == ["Home", "Car"])
        }
    }

    @Test("each goal write is audited in the same write; a write that changes nothing audits nothing", arguments: StoreBackend.all)
    func auditedInTheSameWrite(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            func record(_ action: String, _ target: String?) -> AuditRecord {
                AuditRecord(tenantId: tenant.id, actor: "key_x", action: action, target: target, detail: ["userId": user.id])
            }
            let draft = GoalDraft(name: "House", targetValue: 10, currency: "USD", allocations: [])
            let goal = try await store.createGoal(tenantId: tenant.id, userId: user.id, draft, audit: record("goal.created", nil))
            _ = try await store.updateGoal(tenantId: tenant.id, userId: user.id, id: goal.id, draft, audit: record("goal.updated", goal.id))
            #expect(try await store.deleteGoal(tenantId: tenant.id, userId: user.id, id: goal.id, audit: record("goal.deleted", goal.id)))
            // Nothing to update or delete any more: no event.
            #expect(
                try await store.updateGoal(tenantId: tenant.id, userId: user.id, id: goal.id, draft, audit: record("goal.updated", goal.id)) == nil
            )
            #expect(try await store.deleteGoal(tenantId: tenant.id, userId: user.id, id: goal.id, audit: record("goal.deleted", goal.id)) == false)
            // A refused write (a duplicate name) audits nothing either.
            _ = try await store.createGoal(tenantId: tenant.id, userId: user.id, draft)
            await expectGatewayError(.conflict) {
                try await store.createGoal(tenantId: tenant.id, userId: user.id, draft, audit: record("goal.created", nil))
            }
            let events = try await store.auditEvents(tenantId: tenant.id, before: nil, limit: 50).filter { $0.action.hasPrefix("goal.") }
            #expect(events.map(\.action) == ["goal.deleted", "goal.updated", "goal.created"])
            #expect(events.allSatisfy { $0.target == goal.id })
        }
    }
}
