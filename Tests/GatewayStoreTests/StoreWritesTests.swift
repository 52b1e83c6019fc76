import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewayStore

/// The rules both backends share (`StoreWrites.swift`), checked as pure functions: the backend suites run them
/// through SQL on both databases, these pin down the edges without one.
@Suite("The store's shared write rules")
struct StoreWritesTests {
    @Test("a journal listing with no state or no room asks the database nothing; states are distinct and sorted")
    func journalListingBounds() throws {
        #expect(JournalListing(tenantId: nil, [], limit: 10) == nil)
        #expect(JournalListing(tenantId: "ten_a", [.accepted], limit: 0) == nil)
        let listing = try #require(JournalListing(tenantId: nil, [.unknown, .accepted, .unknown], limit: 5))
        #expect(listing.states == ["accepted", "unknown"])
        #expect(listing.tenantCondition == "")
        #expect(JournalListing(tenantId: "ten_a", [.accepted], limit: 1)?.tenantCondition == "tenant_id = ? AND ")
    }

    @Test("a user page after a user the tenant does not have is a not-found naming the field")
    func userPageCursor() throws {
        let error = #expect(throws: GatewayError.self) {
            try UserPage(tenantId: "ten_a", after: "usr_gone", cursor: nil, externalId: nil, email: nil)
        }
        #expect(error?.code == .notFound)
        #expect(error?.details.map(\.field) == ["after"])
        let page = try UserPage(tenantId: "ten_a", after: "usr_b", cursor: 7, externalId: nil, email: "a@example.com")
        #expect(page.values == [.text("ten_a"), .integer(7), .integer(7), .text("usr_b"), .text("a@example.com")])
        #expect(page.conditions.count == 3)
    }

    @Test("a name another record of the user has is a conflict; the record's own name is not")
    func freeNames() throws {
        try StoreRules.requireFreeName("Tech", takenBy: nil, except: nil, conflict: "taken")
        try StoreRules.requireFreeName("Tech", takenBy: "wl_1", except: "wl_1", conflict: "taken")
        let error = #expect(throws: GatewayError.self) {
            try StoreRules.requireFreeName("Tech", takenBy: "wl_1", except: "wl_2", conflict: "taken")
        }
        #expect(error?.code == .conflict)
        #expect(error?.message == "taken")
    }

    @Test("an alert create at the user's limit is refused, below it is not")
    func alertRoom() throws {
        try StoreRules.requireRoomForAlert(count: 2, limit: 3)
        #expect(throws: GatewayError.self) { try StoreRules.requireRoomForAlert(count: 3, limit: 3) }
    }

    @Test("an API key issue retries an id collision with a fresh key, and gives up after three")
    func apiKeyCollisions() async throws {
        var attempts: [String] = []
        let issued = try await StoreRules.issueAPIKey(tenantId: "ten_a", label: "ci", scopes: ["read", "trade"], userId: nil) {
            attempts.append($0.keyId)
            if attempts.count == 1 { throw GatewayError(.conflict, "api key id collision") }
        }
        #expect(attempts.count == 2)
        #expect(Set(attempts).count == 2)
        #expect(issued.id == attempts[1])
        #expect(issued.info.scopes == ["read", "trade"])
        #expect(issued.plaintext.contains(attempts[1].dropFirst("key_".count)))

        var tries = 0
        do {
            _ = try await StoreRules.issueAPIKey(tenantId: "ten_a", label: "ci", scopes: [], userId: nil) { _ in
                tries += 1
                throw GatewayError(.conflict, "api key id collision")
            }
            Issue.record("an issue whose every attempt collides must fail")
        } catch let error as GatewayError {
            #expect(error.code == .internalError)
        }
        #expect(tries == StoreRules.apiKeyIssueAttempts)
    }

    @Test("a create's audit record names what it made; the original is unchanged")
    func auditTarget() {
        let record = AuditRecord(tenantId: "ten_a", actor: "operator", action: "goal.created")
        #expect(record.targeting("goal_1").target == "goal_1")
        #expect(record.target == nil)
    }
}
