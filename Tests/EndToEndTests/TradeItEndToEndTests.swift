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
import Sandbox
import TestWorlds
import Testing

/// TradeIt through /v1: the OAuth popup link, the security question, and a session expiring mid-use.
@Suite("End to end: TradeIt through /v1", .heavyWorld)
struct TradeItEndToEndTests {
    /// Starts a link through the API, logs in on the sandbox's page as `persona`, and follows the broker's redirect
    /// back to the gateway's callback. Returns the connection id.
    func link(_ world: Loopback, _ client: any TestClientProtocol, persona: String) async throws -> String {
        let started = try await world.call(
            client,
            .post,
            "/v1/connections",
            json: """
                {"broker":"tradeit","displayName":"Dummy","baseURL":"\(world.sandboxURL)",
                 "settings":{"brokerShortName":"Dummy"},"credentials":{"apiKey":"\(TradeItSandboxConfiguration.demoAPIKey)"}}
                """
        )
        #expect(started.status == 202)
        let popupURL = try #require(started.body.data["popupURL"] as? String)
        let connection = try #require((started.body.data["connection"] as? [String: Any])?["id"] as? String)
        #expect((started.body.data["connection"] as? [String: Any])?["status"] as? String == "pending_link")
        // Until the user has logged in, reads report the connection instead of failing.
        let early = try await world.call(client, .get, "/v1/accounts")
        #expect(early.status == 200)
        #expect(early.body.sources.first?["status"] as? String == "error")

        let page = try await rawGET(popupURL)
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("name=\"password\""))
        let login = try await rawGET(popupURL + "&autoLogin=\(persona)")
        #expect(login.status == 302)
        let location = try #require(login.location)
        let callback = try #require(URLComponents(string: location))
        #expect(callback.path == "/v1/connections/\(connection)/oauth/callback")
        #expect(callback.queryItems?.contains { $0.name == "oAuthVerifier" } == true)
        // The browser lands on the gateway's callback: no API key there, the state nonce instead.
        let landed = try await world.call(client, .get, callback.path + "?" + (callback.percentEncodedQuery ?? ""), headers: [:])
        #expect(landed.status == 200)
        let forged = try await world.call(client, .get, callback.path + "?state=forged&oAuthVerifier=x", headers: [:])
        #expect(forged.status == 403)
        return connection
    }

    @Test func theCallbackPageIsStaticEscapedAndItsLinkComesFromConfiguration() async throws {
        try await Loopback.with(TradeItSandbox()) { world, client in
            // A hostile display name, and request headers that try to choose where the browser is sent back.
            var headers = world.auth
            headers[HTTPField.Name("X-Forwarded-Host")!] = "evil.example"
            headers[HTTPField.Name("X-Forwarded-Proto")!] = "javascript"
            let started = try await world.call(
                client,
                .post,
                "/v1/connections",
                json: """
                    {"broker":"tradeit","displayName":"<script>alert('x')</script> & \\"Dummy\\"","baseURL":"\(world.sandboxURL)",
                     "settings":{"brokerShortName":"Dummy"},"credentials":{"apiKey":"\(TradeItSandboxConfiguration.demoAPIKey)"}}
                    """,
                headers: headers
            )
            #expect(started.status == 202)
            let popupURL = try #require(started.body.data["popupURL"] as? String)
            let login = try await rawGET(popupURL + "&autoLogin=dummy")
            let location = try #require(login.location)
            #expect(location.hasPrefix("http://127.0.0.1:8080/v1/connections/"), "\(location)")
            #expect(!location.contains("evil.example") && !location.contains("javascript"))
            let callback = try #require(URLComponents(string: location))
            let landed = try await client.execute(
                uri: callback.path + "?" + (callback.percentEncodedQuery ?? ""),
                method: .get,
                headers: [:]
            ) { response in
                (response.status.code, response.headers, String(buffer: response.body))
            }
            #expect(landed.0 == 200)
            #expect(landed.1[HTTPField.Name("Content-Security-Policy")!]?.hasPrefix("default-src 'none'") == true)
            #expect(landed.1[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(!landed.2.contains("<script>"))
            #expect(landed.2.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;Dummy&quot;"))
        }
    }

    @Test func theWholeLinkFlowEndsInAnAuthenticatedRead() async throws {
        try await Loopback.with(TradeItSandbox()) { world, client in
            let connection = try await link(world, client, persona: "dummy")
            let linked = try await world.call(client, .get, "/v1/connections/\(connection)")
            #expect(linked.body.data["status"] as? String == "active")
            let accounts = try await world.call(client, .get, "/v1/accounts")
            #expect(accounts.body["partial"] as? Bool == false)
            #expect(accounts.body.list.first?["broker"] as? String == "tradeit")
            let balances = try await world.call(client, .get, "/v1/balances")
            #expect(balances.body.list.count == 1)
            let positions = try await world.call(client, .get, "/v1/positions")
            #expect(!positions.body.list.isEmpty)
            // The stored credentials are the link's, not the request's.
            let stored = try await world.store.credentials(tenantId: world.tenant.id, connectionId: connection)
            #expect(stored["userToken"]?.isEmpty == false)
            #expect(stored["linkState"] == nil)
        }
    }

    @Test func aSecurityQuestionIsAChallengeOnTheConnection() async throws {
        try await Loopback.with(TradeItSandbox()) { world, client in
            let connection = try await link(world, client, persona: "dummySecurity")
            let waiting = try await world.call(client, .get, "/v1/connections/\(connection)")
            #expect(waiting.body.data["status"] as? String == "challenge_required")
            let detail = waiting.body.data["statusDetail"] as? [String: String]
            #expect(detail?["question"] == TradeItSandboxConfiguration.securityQuestion)
            let blocked = try await world.call(client, .get, "/v1/balances")
            #expect(blocked.status == 200)
            #expect(blocked.body["partial"] as? Bool == true)
            #expect((blocked.body.sources.first?["error"] as? [String: Any])?["code"] as? String == "forbidden")

            let wrong = try await world.call(client, .post, "/v1/connections/\(connection)/challenge", json: #"{"answer":"nope"}"#)
            #expect(wrong.status == 200)
            #expect(wrong.body.data["status"] as? String == "challenge_required")
            let right = try await world.call(
                client,
                .post,
                "/v1/connections/\(connection)/challenge",
                json: #"{"answer":"\#(TradeItSandboxConfiguration.securityAnswer)"}"#
            )
            #expect(right.body.data["status"] as? String == "active")
            let open = try await world.call(client, .get, "/v1/balances")
            #expect(open.body["partial"] as? Bool == false)
            let none = try await world.call(client, .post, "/v1/connections/\(connection)/challenge", json: #"{"answer":"again"}"#)
            #expect(none.status == 409)
        }
    }

    /// Issue 26. Before: the `fail` login's link read `active` everywhere (the callback page, the connection, the
    /// status, the dashboard) while every read failed `unauthorized: Could Not Login`.
    @Test func aFailedLoginIsNeverActive() async throws {
        try await Loopback.with(TradeItSandbox()) { world, client in
            let connection = try await link(world, client, persona: "fail")
            let linked = try await world.call(client, .get, "/v1/connections/\(connection)")
            #expect(linked.body.data["status"] as? String == "relink_required")
            #expect((linked.body.data["statusDetail"] as? [String: String])?["reason"]?.contains("Could Not Login") == true)
            let read = try await world.call(client, .get, "/v1/balances")
            #expect(read.body["partial"] as? Bool == true)
            #expect((read.body.sources.first?["error"] as? [String: Any])?["code"] as? String == "unauthorized")
            let again = try await world.call(client, .post, "/v1/connections/\(connection)/authenticate")
            #expect(again.body.data["status"] as? String == "relink_required")
            let status = try await world.call(client, .get, "/v1/status")
            let report = try #require((status.body["connections"] as? [[String: Any]])?.first { $0["connectionId"] as? String == connection })
            #expect(report["link"] as? String == "relink_required")
            #expect(report["state"] as? String == "failing")
            // The refusal came in a 200 answer (TradeIt's ERROR envelope): health counts it as the failed call it was.
            #expect(((report["health"] as? [String: Any])?["errors"] as? Int ?? 0) >= 1)
        }
    }

    /// Issue 26. Before: authenticate-all opened a new session for every connection, and asked an already answered
    /// security question again.
    @Test func authenticateAllLeavesAnActiveConnectionAlone() async throws {
        let sandbox = TradeItSandbox()
        try await Loopback.with(sandbox) { world, client in
            let connection = try await link(world, client, persona: "dummySecurity")
            let right = try await world.call(
                client,
                .post,
                "/v1/connections/\(connection)/challenge",
                json: #"{"answer":"\#(TradeItSandboxConfiguration.securityAnswer)"}"#
            )
            #expect(right.body.data["status"] as? String == "active")
            let sessions = sandbox.openSessionCount
            let all = try await world.call(client, .post, "/v1/connections/authenticate")
            #expect(all.body.list.first?["status"] as? String == "active")
            #expect(all.body.list.first?["challenge"] == nil)
            #expect(sandbox.openSessionCount == sessions)
            let after = try await world.call(client, .get, "/v1/connections/\(connection)")
            #expect(after.body.data["status"] as? String == "active")
        }
    }

    @Test func aSessionExpiringMidUseIsReopenedUnnoticed() async throws {
        let sandbox = TradeItSandbox()
        try await Loopback.with(sandbox) { world, client in
            _ = try await link(world, client, persona: "dummy")
            #expect(try await world.call(client, .get, "/v1/positions").body["partial"] as? Bool == false)
            let sessionsBefore = sandbox.openSessionCount
            sandbox.expireSessions()
            let after = try await world.call(client, .get, "/v1/positions")
            #expect(after.body["partial"] as? Bool == false)
            #expect(!after.body.list.isEmpty)
            #expect(sandbox.openSessionCount >= 1)
            _ = sessionsBefore
            let all = try await world.call(client, .post, "/v1/connections/authenticate")
            #expect(all.body.list.first?["status"] as? String == "active")
        }
    }

    @Test func previewThenPlace() async throws {
        try await Loopback.with(TradeItSandbox()) { world, client in
            let connection = try await link(world, client, persona: "dummy")
            let account = try #require(try await world.call(client, .get, "/v1/accounts").body.list.first?["id"] as? String)
            let order = #"{"connectionId":"\#(connection)","accountId":"\#(account)","symbol":"AAPL","side":"buy","type":"market","quantity":"1""#
            let preview = try await world.call(client, .post, "/v1/orders/preview", json: order + "}")
            #expect(preview.status == 200)
            let previewId = try #require(preview.body.data["id"] as? String)
            #expect(preview.body.data["brokerPreviewId"] is String)
            #expect(preview.body.data["estimatedCost"] is String)
            let placed = try await world.call(client, .post, "/v1/orders", json: order + #","previewId":"\#(previewId)"}"#)
            #expect(placed.status == 201)
            #expect(placed.body.data["brokerOrderId"] is String)
            let mismatched = try await world.call(
                client,
                .post,
                "/v1/orders",
                json:
                    #"{"connectionId":"\#(connection)","accountId":"\#(account)","symbol":"AAPL","side":"buy","type":"market","quantity":"2","previewId":"\#(previewId)"}"#
            )
            #expect(mismatched.status == 422)
        }
    }
}
