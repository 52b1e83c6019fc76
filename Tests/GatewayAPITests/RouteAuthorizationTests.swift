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

/// Every operation of the OpenAPI document, read from the document (so a new route is walked without anyone adding
/// it here), asked with each credential that must not reach user A's data: none, a revoked key, another tenant's
/// key, a key of the same tenant acting for another user, a key bound to A naming another user, and a key without
/// the operation's scope. Each gets the status the document's error codes say, and no answer ever carries one of
/// A's resource ids.
@Suite("Route authorization")
struct RouteAuthorizationTests {
    /// One operation of the document.
    struct Operation: CustomStringConvertible {
        var id: String
        var method: HTTPRequest.Method
        var path: String
        var scope: Scope?
        var userScoped: Bool
        var description: String { "\(method) \(path) (\(id))" }
        var hasPathId: Bool { path.contains("{id}") }
    }

    static func operations() throws -> [Operation] {
        let document = try OpenAPIDocument.bundled()
        let root = try #require(try JSONSerialization.jsonObject(with: document.data) as? [String: Any])
        let paths = try #require(root["paths"] as? [String: [String: Any]])
        var operations: [Operation] = []
        for (path, item) in paths {
            for (method, value) in item {
                guard let operation = value as? [String: Any], let id = operation["operationId"] as? String,
                    let httpMethod = HTTPRequest.Method(method.uppercased())
                else { continue }
                operations.append(
                    Operation(
                        id: id,
                        method: httpMethod,
                        path: path,
                        scope: document.requiredScopes[id],
                        userScoped: document.userScopedOperationIDs.contains(id)
                    )
                )
            }
        }
        return operations.sorted { $0.description < $1.description }
    }

    @Test("every operation is open or declares exactly one scope, and the document refuses one that declares none")
    func everyOperationDeclaresAScope() throws {
        let document = try OpenAPIDocument.bundled()
        for operation in try Self.operations() {
            #expect(
                operation.scope != nil || document.publicOperationIDs.contains(operation.id),
                "\(operation) declares no scope"
            )
        }
        // An operation added without `security` (or with two scopes) makes the document refuse to load.
        let refused = [
            "", #","security": [{"apiKey": ["read", "trade"]}]"#, #","security": [{"apiKey": ["root"]}]"#,
            #","security": [{"session": ["admin"]}]"#, #","security": [{"apiKey": ["read"]}, {"session": ["trade"]}]"#,
            #","security": [{"oauth": ["read"]}]"#,
        ]
        for security in refused {
            let json = #"{"openapi": "3.1.0", "paths": {"/v1/new": {"get": {"operationId": "newRoute"\#(security), "responses": {}}}}}"#
            #expect(throws: GatewayError.self) { try OpenAPIDocument(data: Data(json.utf8)) }
        }
    }

    /// User A's resources (of the harness user) and the credentials that must not reach them.
    struct World {
        var connection: ConnectionDescriptor
        var watchlist: Watchlist
        var goal: Goal
        var alert: Alert
        var orderId: String
        var deviceId: String
        var expiredToken: String
        var loggedOutToken: String
        var userA: String
        var userB: String
        var keyId: String
        var revokedKey: String
        var otherTenantKey: String
        var unboundAllScopes: String
        var withoutScope: [Scope: String]
        var guardedIds: [String] { [connection.id, watchlist.id, goal.id, alert.id, orderId, deviceId] }
    }

    /// An access token of user A from a login with a one-time code.
    static func sessionToken(_ harness: APIHarness, _ client: some TestClientProtocol, device: String) async throws -> (token: String, device: String)
    {
        let minted = try await client.call(.post, "/v1/users/\(harness.userId)/login-codes", headers: harness.auth)
        let code = try #require(minted.body.dataObject["code"] as? String, "\(minted.body)")
        let login = try await client.call(
            .post,
            "/v1/auth/login",
            headers: [.contentType: "application/json"],
            json: #"{"tenantId":"\#(harness.tenant.id)","code":"\#(code)","device":{"name":"\#(device)","type":"ios","fingerprint":"\#(device)"}}"#
        )
        let data = login.body.dataObject
        return (
            try #require(data["accessToken"] as? String, "\(login.body)"),
            try #require((data["device"] as? [String: Any])?["id"] as? String)
        )
    }

    static func makeWorld(_ harness: APIHarness, _ client: some TestClientProtocol, clock: TestClock) async throws -> World {
        let store = harness.store
        let tenant = harness.tenant
        let connection = try await harness.link(.alpaca, baseURL: "https://alpaca.example")
        let watchlist = try await store.createWatchlist(
            tenantId: tenant.id,
            userId: harness.userId,
            name: "A's list",
            instruments: []
        )
        let goal = try await store.createGoal(
            tenantId: tenant.id,
            userId: harness.userId,
            GoalDraft(name: "A's goal", targetValue: 1000, currency: "USD", allocations: [])
        )
        let alert = try await store.createAlert(
            tenantId: tenant.id,
            userId: harness.userId,
            AlertDraft(name: "A's alert", rule: .order(.init(on: .filled)), channels: AlertChannels(), enabled: true, rearm: .crossBack),
            webhookSecret: "whsec_a",
            limit: 100,
            audit: nil
        )
        let placed = try await client.call(
            .post,
            "/v1/orders",
            headers: harness.auth,
            json:
                #"{"connectionId": "\#(connection.id)", "accountId": "ACC-1", "symbol": "AAPL", "side": "buy", "type": "limit", "quantity": "1", "limitPrice": "10"}"#
        )
        #expect(placed.status == 201, "\(placed.body)")
        let orderId = try #require(placed.body.dataObject["id"] as? String)
        let userB = try await store.createUser(tenantId: tenant.id, NewUser(externalId: "b"), audit: nil)
        let all = ["read", "trade", "admin"]
        let revoked = try await store.issueAPIKey(tenantId: tenant.id, label: "revoked", scopes: all, userId: nil, audit: nil)
        #expect(try await store.revokeAPIKey(tenantId: tenant.id, keyId: revoked.id))
        let other = try await store.createTenant(name: "Tenant B")
        let otherKey = try await store.issueDefaultUserKey(tenantId: other.id, label: "b")
        let unbound = try await store.issueAPIKey(tenantId: tenant.id, label: "all", scopes: all, userId: nil, audit: nil)
        var without: [Scope: String] = [:]
        for scope in Scope.allCases {
            without[scope] = try await store.issueAPIKey(
                tenantId: tenant.id,
                label: "no \(scope)",
                scopes: all.filter { $0 != scope.rawValue },
                userId: nil,
                audit: nil
            ).plaintext
        }
        let harnessKeyId = try #require(try await store.apiKeys(tenantId: tenant.id).first?.id)
        // An access token that has expired, and one of a device that logged out.
        let expired = try await sessionToken(harness, client, device: "old-phone")
        clock.advance(16 * 60)
        let loggedOut = try await sessionToken(harness, client, device: "tablet")
        let logout = try await client.call(
            .post,
            "/v1/auth/logout/device",
            headers: [.authorization: "Bearer \(loggedOut.token)", .contentType: "application/json"],
            json: "{}"
        )
        #expect(logout.status == 200, "\(logout.body)")
        return World(
            connection: connection,
            watchlist: watchlist,
            goal: goal,
            alert: alert,
            orderId: orderId,
            deviceId: expired.device,
            expiredToken: expired.token,
            loggedOutToken: loggedOut.token,
            userA: harness.userId,
            userB: userB.id,
            keyId: harnessKeyId,
            revokedKey: revoked.plaintext,
            otherTenantKey: otherKey.plaintext,
            unboundAllScopes: unbound.plaintext,
            withoutScope: without
        )
    }

    /// The path with `{id}` naming user A's resource of that kind.
    static func path(_ operation: Operation, _ world: World) -> String {
        let id: String =
            if operation.path.hasPrefix("/v1/connections") { world.connection.id } else if operation.path.hasPrefix("/v1/orders") {
                world.orderId
            } else if operation.path.hasPrefix("/v1/watchlists") { world.watchlist.id } else if operation.path.hasPrefix("/v1/goals") {
                world.goal.id
            } else if operation.path.hasPrefix("/v1/alerts") { world.alert.id } else if operation.path.hasPrefix("/v1/users") {
                world.userA
            } else if operation.path.hasPrefix("/v1/keys") { world.keyId } else if operation.path.hasPrefix("/v1/devices") { world.deviceId } else {
                "unknown"
            }
        // The event stream answers until the client closes it, which this client cannot do: a cursor that is not one
        // makes a request that passes every check a 400 (after authentication and the user's checks, which are
        // what is tested here), instead of a stream without end.
        if operation.id == "getStream" { return operation.path + "?lastEventId=not-a-cursor" }
        return operation.path.replacingOccurrences(of: "{id}", with: id)
    }

    /// A body the operation accepts, naming A's resources where it names any, so that what answers is the
    /// authorization and ownership checks, not the body's.
    static func body(_ operation: Operation, _ world: World) -> String? {
        let order =
            #"{"connectionId": "\#(world.connection.id)", "accountId": "ACC-1", "symbol": "AAPL", "side": "buy", "type": "limit", "quantity": "1", "limitPrice": "10"}"#
        return switch operation.id {
        case "placeOrder", "previewOrder": order
        case "modifyOrder": #"{"quantity": "2"}"#
        case "linkConnection": #"{"broker": "alpaca", "baseURL": "https://alpaca.example", "credentials": {"token": "good"}}"#
        case "completeLink": #"{"oAuthVerifier": "verifier"}"#
        case "answerChallenge": #"{"answer": "blue"}"#
        case "createWatchlist": #"{"name": "New", "connectionId": "\#(world.connection.id)"}"#
        case "updateWatchlist": #"{"name": "Renamed"}"#
        case "createGoal": #"{"name": "New", "targetValue": "100", "currency": "USD", "allocations": []}"#
        case "updateGoal": #"{"name": "Renamed"}"#
        case "createAlert": #"{"rule": {"type": "order", "on": "filled"}}"#
        case "updateAlert": #"{"name": "Renamed"}"#
        case "putTenantSettings": #"{"readMaxAgeMs": 100}"#
        case "exportConnections": #"{"recipientKey": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}"#
        case "importConnections": #"{"bundle": "AAAA"}"#
        case "createUser": #"{"displayName": "New"}"#
        case "updateUser": #"{"displayName": "Renamed"}"#
        case "createKey": #"{"label": "new", "scopes": ["read"]}"#
        case "setUserPassword": #"{"password": "a long enough password"}"#
        case "updateDevice": #"{"name": "Renamed"}"#
        default: operation.method == .post || operation.method == .put || operation.method == .patch ? "{}" : nil
        }
    }

    static func headers(key: String?, user: String? = nil, idempotency: String) -> HTTPFields {
        var fields: HTTPFields = [.contentType: "application/json", HTTPField.Name("Idempotency-Key")!: idempotency]
        if let key { fields[.authorization] = "Bearer \(key)" }
        if let user { fields[HTTPField.Name("X-User-ID")!] = user }
        return fields
    }

    @Test("every route refuses whoever must not reach a user's data, and never answers with that data")
    func everyRouteWithEveryWrongCredential() async throws {
        let operations = try Self.operations()
        #expect(operations.count > 40)
        let clock = TestClock()
        try await APIHarness.with(sessions: SessionSettings(passwordCost: 10, now: { clock.now() })) { harness, client in
            let world = try await Self.makeWorld(harness, client, clock: clock)
            var checked = 0
            for operation in operations {
                guard let scope = operation.scope else { continue }
                let path = Self.path(operation, world)
                let body = Self.body(operation, world)
                func ask(_ key: String?, user: String? = nil) async throws -> (status: Int, text: String, code: String?) {
                    checked += 1
                    return try await client.execute(
                        uri: path,
                        method: operation.method,
                        headers: Self.headers(key: key, user: user, idempotency: UUID().uuidString),
                        body: body.map { .init(string: $0) }
                    ) { response in
                        let text = String(buffer: response.body)
                        let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
                        return (Int(response.status.code), text, object?.errorCode)
                    }
                }
                // A refusal carries no data (its message may repeat the id the caller sent); an answer carries none
                // of A's ids.
                func expectNoneOfA(_ answer: (status: Int, text: String, code: String?), _ who: String) {
                    if answer.status >= 400 {
                        let object = (try? JSONSerialization.jsonObject(with: Data(answer.text.utf8))) as? [String: Any]
                        #expect(object?["data"] == nil && object?["error"] != nil, "\(operation) with \(who): \(answer.text.prefix(300))")
                        return
                    }
                    for id in world.guardedIds {
                        #expect(!answer.text.contains(id), "\(operation) with \(who) answered with A's \(id): \(answer.text.prefix(300))")
                    }
                }

                let anonymous = try await ask(nil)
                #expect(anonymous.status == 401 && anonymous.code == "unauthorized", "\(operation) without a key: \(anonymous)")
                let revoked = try await ask(world.revokedKey)
                #expect(revoked.status == 401 && revoked.code == "unauthorized", "\(operation) with a revoked key: \(revoked)")
                let expired = try await ask(world.expiredToken)
                #expect(expired.status == 401 && expired.code == "unauthorized", "\(operation) with an expired access token: \(expired)")
                let loggedOut = try await ask(world.loggedOutToken)
                #expect(loggedOut.status == 401 && loggedOut.code == "unauthorized", "\(operation) with a logged-out device's token: \(loggedOut)")
                let missingScope = try await ask(world.withoutScope[scope], user: operation.userScoped ? world.userA : nil)
                #expect(missingScope.status == 403 && missingScope.code == "forbidden", "\(operation) without '\(scope)': \(missingScope)")
                for answer in [anonymous, revoked, expired, loggedOut, missingScope] { expectNoneOfA(answer, "a refused credential") }

                let otherTenant = try await ask(world.otherTenantKey)
                if operation.hasPathId {
                    #expect(otherTenant.status == 404, "\(operation) with another tenant's key: \(otherTenant)")
                }
                expectNoneOfA(otherTenant, "another tenant's key")
                // Naming A with another tenant's key finds no such user.
                if operation.userScoped {
                    let otherTenantNamingA = try await ask(world.otherTenantKey, user: world.userA)
                    #expect(otherTenantNamingA.status == 403, "\(operation) with B's bound key naming A: \(otherTenantNamingA)")
                    expectNoneOfA(otherTenantNamingA, "another tenant's key naming A")
                }

                guard operation.userScoped else { continue }
                // A key of A's tenant acting for user B reaches none of A's data.
                let otherUser = try await ask(world.unboundAllScopes, user: world.userB)
                if operation.hasPathId {
                    #expect(otherUser.status == 404, "\(operation) acting for another user: \(otherUser)")
                }
                expectNoneOfA(otherUser, "a key acting for another user")
                // A key bound to A may not name another user.
                let boundNamingB = try await ask(harness.apiKey, user: world.userB)
                #expect(boundNamingB.status == 403 && boundNamingB.code == "forbidden", "\(operation) bound key naming B: \(boundNamingB)")
                // An unbound key naming a user the tenant does not have: 404.
                let unknownUser = try await ask(world.unboundAllScopes, user: "usr_00000000000000000000")
                #expect(unknownUser.status == 404, "\(operation) naming an unknown user: \(unknownUser)")
                // An unbound key naming no user: 400 naming X-User-ID (an admin reads journaled orders without one).
                if operation.id != "getOrder" && operation.id != "listOrderEvents" {
                    let noUser = try await ask(world.unboundAllScopes)
                    #expect(noUser.status == 400, "\(operation) with an unbound key and no user: \(noUser)")
                    expectNoneOfA(noUser, "an unbound key without a user")
                }
            }
            #expect(checked > 200)
            // None of the refused requests changed A's data.
            #expect(try await harness.store.connections(tenantId: harness.tenant.id, userId: harness.userId).map(\.id) == [world.connection.id])
            #expect(try await harness.store.watchlist(tenantId: harness.tenant.id, userId: harness.userId, id: world.watchlist.id) == world.watchlist)
            #expect(try await harness.store.goal(tenantId: harness.tenant.id, userId: harness.userId, id: world.goal.id) == world.goal)
            #expect(try await harness.store.alert(tenantId: harness.tenant.id, userId: harness.userId, id: world.alert.id) == world.alert)
        }
    }
}
