import Foundation
import GatewayAPI
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import HTTPTypes
import HummingbirdTesting
import Testing

/// Setting a password, minting a login code or minting a key never yields more than the acting key holds: the
/// session a password or a code logs in to reads and trades, so the key must hold both; a minted key's scopes are the
/// acting key's at most; a key bound to one user acts for that user only.
@Suite("API: scopes do not escalate through passwords, login codes or new keys")
struct ScopeEscalationTests {
    static func headers(_ key: String) -> HTTPFields {
        [.authorization: "Bearer \(key)", .contentType: "application/json"]
    }

    static func key(_ harness: APIHarness, _ scopes: [String], user: String? = nil) async throws -> String {
        try await harness.store.issueAPIKey(
            tenantId: harness.tenant.id,
            label: scopes.joined(separator: "+"),
            scopes: scopes,
            userId: user,
            audit: nil
        ).plaintext
    }

    static func login(
        _ harness: APIHarness,
        _ client: some TestClientProtocol,
        password: String? = nil,
        code: String? = nil,
        email: String
    ) async throws -> (status: Int, token: String?) {
        let credential = if let code { #""code":"\#(code)""# } else { #""email":"\#(email)","password":"\#(password ?? "")""# }
        let login = try await client.call(
            .post,
            "/v1/auth/login",
            headers: [.contentType: "application/json"],
            json: #"{"tenantId":"\#(harness.tenant.id)",\#(credential),"device":{"name":"p","type":"ios","fingerprint":"p"}}"#
        )
        return (login.status, login.body.dataObject["accessToken"] as? String)
    }

    @Test("an admin-only key cannot set a password and trade with the session it logs in to")
    func adminOnlyKeyCannotSetAPassword() async throws {
        try await APIHarness.with { harness, client in
            let ann = try await harness.store.createUser(
                tenantId: harness.tenant.id,
                NewUser(email: "ann@example.com"),
                audit: nil
            )
            let adminOnly = try await Self.key(harness, ["admin"])
            let password = "correct horse battery"
            let set = try await client.call(
                .put,
                "/v1/users/\(ann.id)/password",
                headers: Self.headers(adminOnly),
                json: #"{"password":"\#(password)"}"#
            )
            #expect(set.status == 403 && set.body.errorCode == "forbidden" && set.body.detailFields == ["scope"], "\(set.body)")
            #expect(set.body.errorMessage?.contains("read,trade") == true, "\(set.body)")
            // No password was set: the login the admin key aimed for does not exist.
            #expect(try await Self.login(harness, client, password: password, email: "ann@example.com").status == 401)
            // Admin with trade but without read is still short of a session's scopes.
            let adminTrade = try await Self.key(harness, ["admin", "trade"])
            let short = try await client.call(
                .put,
                "/v1/users/\(ann.id)/password",
                headers: Self.headers(adminTrade),
                json: #"{"password":"\#(password)"}"#
            )
            #expect(short.status == 403 && short.body.errorMessage?.contains("'read'") == true, "\(short.body)")
            // Removing a password hands nobody anything: admin alone may.
            let removed = try await client.call(
                .put,
                "/v1/users/\(ann.id)/password",
                headers: Self.headers(adminOnly),
                json: #"{"password":null}"#
            )
            #expect(removed.status == 204, "\(removed.body)")
            // A key holding every scope a session gets sets it, and the login works.
            let full = try await Self.key(harness, ["admin", "read", "trade"])
            let allowed = try await client.call(
                .put,
                "/v1/users/\(ann.id)/password",
                headers: Self.headers(full),
                json: #"{"password":"\#(password)"}"#
            )
            #expect(allowed.status == 204, "\(allowed.body)")
            #expect(try await Self.login(harness, client, password: password, email: "ann@example.com").status == 200)
        }
    }

    @Test("a login code is minted only by a key holding every scope of the session it opens, for its own user")
    func loginCodesNeedTheSessionsScopes() async throws {
        try await APIHarness.with { harness, client in
            let tradeOnly = try await Self.key(harness, ["trade"])
            let refused = try await client.call(
                .post,
                "/v1/users/\(harness.userId)/login-codes",
                headers: Self.headers(tradeOnly)
            )
            #expect(refused.status == 403 && refused.body.detailFields == ["scope"], "\(refused.body)")
            #expect(refused.body.errorMessage?.contains("'read'") == true, "\(refused.body)")
            let ann = try await harness.store.createUser(tenantId: harness.tenant.id, NewUser(externalId: "ann"), audit: nil)
            // The harness key is bound to the default user: it mints codes for that user only.
            let forAnn = try await client.call(.post, "/v1/users/\(ann.id)/login-codes", headers: Self.headers(harness.apiKey))
            #expect(forAnn.status == 403 && forAnn.body.detailFields == ["id"], "\(forAnn.body)")
            let readTrade = try await Self.key(harness, ["read", "trade"])
            let minted = try await client.call(.post, "/v1/users/\(ann.id)/login-codes", headers: Self.headers(readTrade))
            #expect(minted.status == 201, "\(minted.body)")
            let code = try #require(minted.body.dataObject["code"] as? String)
            #expect(try await Self.login(harness, client, code: code, email: "").status == 200)
        }
    }

    @Test("a key bound to one user cannot mint an unbound key, a key for another user, or set another's password")
    func boundKeyActsForItsUserOnly() async throws {
        try await APIHarness.with { harness, client in
            // The harness key: bound to the default user, with every scope.
            let unbound = try await client.call(
                .post,
                "/v1/keys",
                headers: Self.headers(harness.apiKey),
                json: #"{"label":"x","scopes":["admin"]}"#
            )
            #expect(unbound.status == 403 && unbound.body.errorCode == "forbidden" && unbound.body.detailFields == ["userId"], "\(unbound.body)")
            let ann = try await harness.store.createUser(
                tenantId: harness.tenant.id,
                NewUser(email: "ann@example.com"),
                audit: nil
            )
            let forAnn = try await client.call(
                .post,
                "/v1/keys",
                headers: Self.headers(harness.apiKey),
                json: #"{"label":"x","scopes":["read"],"userId":"\#(ann.id)"}"#
            )
            #expect(forAnn.status == 403 && forAnn.body.detailFields == ["userId"], "\(forAnn.body)")
            let annsPassword = try await client.call(
                .put,
                "/v1/users/\(ann.id)/password",
                headers: Self.headers(harness.apiKey),
                json: #"{"password":"correct horse battery"}"#
            )
            #expect(annsPassword.status == 403 && annsPassword.body.detailFields == ["id"], "\(annsPassword.body)")
            // Its own user's key, within its scopes, it mints.
            let own = try await client.call(
                .post,
                "/v1/keys",
                headers: Self.headers(harness.apiKey),
                json: #"{"label":"x","scopes":["read"],"userId":"\#(harness.userId)"}"#
            )
            #expect(own.status == 201, "\(own.body)")
            let keys = try await harness.store.apiKeys(tenantId: harness.tenant.id)
            #expect(!keys.contains { $0.userId == nil }, "a bound key minted an unbound key")
        }
    }

    @Test("a minted key's scopes are the acting key's at most: 403 naming the scope it lacks")
    func mintedScopesAreASubset() async throws {
        try await APIHarness.with { harness, client in
            let adminRead = try await Self.key(harness, ["admin", "read"])
            let escalation = try await client.call(
                .post,
                "/v1/keys",
                headers: Self.headers(adminRead),
                json: #"{"label":"x","scopes":["read","trade"]}"#
            )
            #expect(escalation.status == 403 && escalation.body.errorCode == "forbidden", "\(escalation.body)")
            #expect(escalation.body.detailFields == ["scopes"] && escalation.body.errorMessage?.contains("'trade'") == true, "\(escalation.body)")
            let within = try await client.call(
                .post,
                "/v1/keys",
                headers: Self.headers(adminRead),
                json: #"{"label":"x","scopes":["read"]}"#
            )
            #expect(within.status == 201, "\(within.body)")
        }
    }
}

extension Dictionary where Key == String, Value == Any {
    /// The error's message.
    var errorMessage: String? { error?["message"] as? String }
}
