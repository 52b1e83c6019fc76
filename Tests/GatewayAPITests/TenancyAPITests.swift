import Foundation
import GatewayAPI
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Users, keys and the audit log through HTTP, as a tenant's backend uses them.
@Suite("API: users, keys and the audit log")
struct TenancyAPITests {
    static func headers(_ key: String, user: String? = nil) -> HTTPFields {
        var fields: HTTPFields = [
            .authorization: "Bearer \(key)", .contentType: "application/json",
            HTTPField.Name("Idempotency-Key")!: UUID().uuidString,
        ]
        if let user { fields[HTTPField.Name("X-User-ID")!] = user }
        return fields
    }

    /// A new key of the harness tenant made through the API, by default with an unbound key of every scope (the
    /// harness key is bound to one user, so it mints keys for that user only).
    static func createKey(
        _ harness: APIHarness,
        _ client: some TestClientProtocol,
        scopes: [String],
        userId: String? = nil,
        with key: String? = nil
    ) async throws -> (id: String, secret: String) {
        let user = userId.map { #","userId":"\#($0)""# } ?? ""
        let scopeList = scopes.map { "\"\($0)\"" }.joined(separator: ",")
        let creator =
            if let key { key } else {
                try await harness.store.issueAPIKey(
                    tenantId: harness.tenant.id,
                    label: "unbound admin",
                    scopes: ["admin", "read", "trade"],
                    userId: nil,
                    audit: nil
                ).plaintext
            }
        let created = try await client.call(
            .post,
            "/v1/keys",
            headers: headers(creator),
            json: #"{"label":"made in a test","scopes":[\#(scopeList)]\#(user)}"#
        )
        #expect(created.status == 201, "\(created.body)")
        let key = created.body.dataObject["key"] as? [String: Any]
        return (try #require(key?["id"] as? String), try #require(created.body.dataObject["secret"] as? String))
    }

    @Test("an app onboards a user, links a broker for them with X-User-ID, and only that user's requests reach it")
    func onboardAUserAndLinkForThem() async throws {
        try await APIHarness.with { harness, client in
            let created = try await client.call(
                .post,
                "/v1/users",
                headers: Self.headers(harness.apiKey),
                json: #"{"externalId":"app-42","email":"Ann@Example.com","displayName":"Ann"}"#
            )
            #expect(created.status == 201, "\(created.body)")
            let ann = try #require(created.body.dataObject["id"] as? String)
            #expect(created.body.dataObject["email"] as? String == "ann@example.com")
            let backend = try await Self.createKey(harness, client, scopes: ["read", "trade"])

            // Without a user, a user-scoped operation says which header is missing.
            let noUser = try await client.call(.get, "/v1/connections", headers: Self.headers(backend.secret))
            #expect(noUser.status == 400 && noUser.body.detailFields == ["X-User-ID"], "\(noUser.body)")

            let linked = try await client.call(
                .post,
                "/v1/connections",
                headers: Self.headers(backend.secret, user: ann),
                json: #"{"broker":"alpaca","baseURL":"https://alpaca.example","credentials":{"token":"good"}}"#
            )
            #expect(linked.status == 201, "\(linked.body)")
            let connection = try #require(linked.body.dataObject["id"] as? String)
            #expect(linked.body.dataObject["userId"] as? String == ann)

            let annsList = try await client.call(.get, "/v1/connections", headers: Self.headers(backend.secret, user: ann))
            #expect(annsList.body.dataList.compactMap { $0["id"] as? String } == [connection])
            let annsPositions = try await client.call(.get, "/v1/positions", headers: Self.headers(backend.secret, user: ann))
            #expect(annsPositions.status == 200)
            #expect((annsPositions.body["sources"] as? [[String: Any]])?.compactMap { $0["connection"] as? String } == [connection])
            // The default user (the harness key's) sees none of it.
            let defaultsList = try await client.call(.get, "/v1/connections", headers: Self.headers(harness.apiKey))
            #expect(!defaultsList.body.dataList.contains { $0["id"] as? String == connection })
            let defaultsRead = try await client.call(.get, "/v1/connections/\(connection)", headers: Self.headers(harness.apiKey))
            #expect(defaultsRead.status == 404)

            // Found by the app's own id, and by email whatever its case.
            let byExternal = try await client.call(.get, "/v1/users?externalId=app-42", headers: Self.headers(harness.apiKey))
            #expect(byExternal.body.dataList.compactMap { $0["id"] as? String } == [ann])
            let byEmail = try await client.call(.get, "/v1/users?email=ANN%40example.com", headers: Self.headers(harness.apiKey))
            #expect(byEmail.body.dataList.compactMap { $0["id"] as? String } == [ann])
            // The same external id twice is a conflict naming the field; a bad email is a 422 naming it.
            let again = try await client.call(.post, "/v1/users", headers: Self.headers(harness.apiKey), json: #"{"externalId":"app-42"}"#)
            #expect(again.status == 409 && again.body.detailFields == ["externalId"], "\(again.body)")
            let badEmail = try await client.call(.post, "/v1/users", headers: Self.headers(harness.apiKey), json: #"{"email":"not-an-email"}"#)
            #expect(badEmail.status == 422 && badEmail.body.detailFields == ["email"], "\(badEmail.body)")
            // PATCH: absent keeps, null clears.
            let patched = try await client.call(
                .patch,
                "/v1/users/\(ann)",
                headers: Self.headers(harness.apiKey),
                json: #"{"displayName":null}"#
            )
            #expect(patched.status == 200)
            #expect(patched.body.dataObject["displayName"] == nil)
            #expect(patched.body.dataObject["externalId"] as? String == "app-42")
        }
    }

    @Test("a key never grants more than its creator holds, and a key without admin manages no keys")
    func scopesDoNotEscalate() async throws {
        try await APIHarness.with { harness, client in
            let reader = try await Self.createKey(harness, client, scopes: ["read"])
            let byReader = try await client.call(
                .post,
                "/v1/keys",
                headers: Self.headers(reader.secret),
                json: #"{"label":"x","scopes":["read"]}"#
            )
            #expect(byReader.status == 403 && byReader.body.detailFields == ["scope"], "\(byReader.body)")
            let admin = try await Self.createKey(harness, client, scopes: ["admin"])
            let escalation = try await client.call(
                .post,
                "/v1/keys",
                headers: Self.headers(admin.secret),
                json: #"{"label":"x","scopes":["admin","trade"]}"#
            )
            #expect(escalation.status == 403 && escalation.body.detailFields == ["scopes"], "\(escalation.body)")
            let unknownUser = try await client.call(
                .post,
                "/v1/keys",
                headers: Self.headers(harness.apiKey),
                json: #"{"label":"x","scopes":["read"],"userId":"usr_00000000000000000000"}"#
            )
            #expect(unknownUser.status == 422 && unknownUser.body.detailFields == ["userId"], "\(unknownUser.body)")
            // A reader reads, and trades nothing.
            let read = try await client.call(.get, "/v1/connections", headers: Self.headers(reader.secret, user: harness.userId))
            #expect(read.status == 200)
            let trade = try await client.call(
                .post,
                "/v1/watchlists",
                headers: Self.headers(reader.secret, user: harness.userId),
                json: #"{"name":"x"}"#
            )
            #expect(trade.status == 403 && trade.body.detailFields == ["scope"])
        }
    }

    @Test("a revoked key and a disabled tenant are refused on the very next request, and the audit log tells it without a secret")
    func revocationAndDisablingTakeEffectAtOnce() async throws {
        try await APIHarness.with { harness, client in
            // Made by the harness key (the audit log names it below), bound to its user as a bound key's must be.
            let key = try await Self.createKey(harness, client, scopes: ["read"], userId: harness.userId, with: harness.apiKey)
            #expect(try await client.call(.get, "/v1/tenant", headers: Self.headers(key.secret)).status == 200)
            let revoked = try await client.call(.delete, "/v1/keys/\(key.id)", headers: Self.headers(harness.apiKey))
            #expect(revoked.status == 200 && revoked.body.dataObject["revokedAt"] is String, "\(revoked.body)")
            let after = try await client.call(.get, "/v1/tenant", headers: Self.headers(key.secret))
            #expect(after.status == 401 && after.body.errorCode == "unauthorized")
            let twice = try await client.call(.delete, "/v1/keys/\(key.id)", headers: Self.headers(harness.apiKey))
            #expect(twice.status == 200, "revoking a revoked key answers the key as it is")
            let unknown = try await client.call(.delete, "/v1/keys/key_nothere", headers: Self.headers(harness.apiKey))
            #expect(unknown.status == 404)

            let listed = try await client.call(.get, "/v1/keys", headers: Self.headers(harness.apiKey))
            let text = String(decoding: try JSONSerialization.data(withJSONObject: listed.body), as: UTF8.self)
            #expect(listed.body.dataList.contains { $0["id"] as? String == key.id && $0["revokedAt"] is String })
            #expect(!text.contains(key.secret) && !text.contains("hash"))

            let audit = try await client.call(.get, "/v1/audit", headers: Self.headers(harness.apiKey))
            let actions = audit.body.dataList.compactMap { $0["action"] as? String }
            #expect(Array(actions.prefix(2)) == ["key.revoked", "key.created"], "\(actions)")
            let harnessKeyId = try #require(APIKeyText.keyId(of: harness.apiKey))
            #expect(audit.body.dataList.prefix(2).allSatisfy { $0["actor"] as? String == harnessKeyId }, "\(audit.body.dataList.prefix(2))")
            let auditText = String(decoding: try JSONSerialization.data(withJSONObject: audit.body), as: UTF8.self)
            #expect(!auditText.contains(key.secret))
            // Paged newest first: one event, then the ones before it.
            let first = try await client.call(.get, "/v1/audit?limit=1", headers: Self.headers(harness.apiKey))
            let firstId = try #require(first.body.dataList.first?["id"] as? String)
            let next = try await client.call(.get, "/v1/audit?limit=1&before=\(firstId)", headers: Self.headers(harness.apiKey))
            #expect(next.body.dataList.first?["action"] as? String == "key.created")

            _ = try await harness.gateway.tenancy.disableTenant(id: harness.tenant.id)
            let disabled = try await client.call(.get, "/v1/tenant", headers: Self.headers(harness.apiKey))
            #expect(disabled.status == 403 && disabled.body.errorCode == "forbidden", "\(disabled.body)")
        }
    }

    @Test("deleting a user deletes their connections and watchlists at once and revokes their keys; their orders stay, for an admin")
    func deletingAUser() async throws {
        try await APIHarness.with { harness, client in
            let created = try await client.call(.post, "/v1/users", headers: Self.headers(harness.apiKey), json: #"{"externalId":"leaver"}"#)
            let leaver = try #require(created.body.dataObject["id"] as? String)
            let own = try await Self.createKey(harness, client, scopes: ["read", "trade"], userId: leaver)
            let linked = try await client.call(
                .post,
                "/v1/connections",
                headers: Self.headers(own.secret),
                json: #"{"broker":"alpaca","baseURL":"https://alpaca.example","credentials":{"token":"good"}}"#
            )
            let connection = try #require(linked.body.dataObject["id"] as? String)
            let placed = try await client.call(
                .post,
                "/v1/orders",
                headers: Self.headers(own.secret),
                json:
                    #"{"connectionId":"\#(connection)","accountId":"ACC-1","symbol":"AAPL","side":"buy","type":"limit","quantity":"1","limitPrice":"10"}"#
            )
            #expect(placed.status == 201, "\(placed.body)")
            let order = try #require(placed.body.dataObject["id"] as? String)
            let list = try await client.call(.post, "/v1/watchlists", headers: Self.headers(own.secret), json: #"{"name":"Mine"}"#)
            #expect(list.status == 201)

            let deleted = try await client.call(.delete, "/v1/users/\(leaver)", headers: Self.headers(harness.apiKey))
            #expect(deleted.status == 204, "\(deleted.body)")
            #expect(try await client.call(.get, "/v1/connections", headers: Self.headers(own.secret)).status == 401)
            #expect(try await harness.store.connection(tenantId: harness.tenant.id, id: connection) == nil)
            #expect(try await harness.store.connections(tenantId: harness.tenant.id).allSatisfy { $0.userId != leaver })
            #expect(try await client.call(.get, "/v1/users/\(leaver)", headers: Self.headers(harness.apiKey)).status == 404)

            // The order stays in the journal: an admin key naming no user reads it; the default user does not.
            let admin = try await Self.createKey(harness, client, scopes: ["admin", "read"])
            let byAdmin = try await client.call(.get, "/v1/orders/\(order)", headers: Self.headers(admin.secret))
            #expect(byAdmin.status == 200 && byAdmin.body.dataObject["id"] as? String == order, "\(byAdmin.body)")
            #expect(byAdmin.body.dataObject["broker"] as? String == "alpaca")
            let events = try await client.call(.get, "/v1/orders/\(order)/events", headers: Self.headers(admin.secret))
            #expect(events.status == 200 && !events.body.dataList.isEmpty)
            let byOther = try await client.call(.get, "/v1/orders/\(order)", headers: Self.headers(harness.apiKey))
            #expect(byOther.status == 404)
            // A reader without admin naming no user is asked for one.
            let reader = try await Self.createKey(harness, client, scopes: ["read"])
            #expect(try await client.call(.get, "/v1/orders/\(order)", headers: Self.headers(reader.secret)).status == 400)

            let audit = try await client.call(.get, "/v1/audit", headers: Self.headers(harness.apiKey))
            let deletion = audit.body.dataList.first { $0["action"] as? String == "user.deleted" }
            #expect(deletion?["target"] as? String == leaver)
            #expect((deletion?["detail"] as? [String: Any])?["connectionsRemoved"] as? String == "1")
            #expect(audit.body.dataList.contains { $0["action"] as? String == "connection.linked" && $0["target"] as? String == connection })
        }
    }
}
