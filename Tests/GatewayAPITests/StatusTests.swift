import Foundation
import GatewayAPI
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

@Suite("API: GET /v1/status and the ops dashboard")
struct StatusTests {
    func orderBody(_ connection: String) -> String {
        #"{"connectionId":"\#(connection)","accountId":"ACC-1","symbol":"AAPL","side":"buy","type":"limit","quantity":"1.50","limitPrice":"10"}"#
    }

    @Test(arguments: [[:], ["Authorization": "Bearer nope"], ["Authorization": "Bearer bgw_x_y"]])
    func statusWantsAValidKey(_ headers: [String: String]) async throws {
        try await APIHarness.with { harness, client in
            try await harness.link(.alpaca, baseURL: "https://secret-host.fake")
            var fields = HTTPFields()
            for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
            let response = try await client.call(.get, "/v1/status", headers: fields)
            #expect(response.status == 401)
            #expect(response.body.errorCode == "unauthorized")
            #expect(response.body["connections"] == nil)
        }
    }

    @Test func statusListsTheTenantsConnectionsAndBrokersOnly() async throws {
        try await APIHarness.with { harness, client in
            let mine = try await harness.link(.alpaca, baseURL: "https://mine.fake")
            let mySaxo = try await harness.link(.saxo, baseURL: "https://mine-saxo.fake")
            let other = try await harness.store.createTenant(name: "Tenant B")
            let otherKey = try await harness.store.issueDefaultUserKey(tenantId: other.id, label: "b")
            let theirs = try await harness.link(.alpaca, baseURL: "https://theirs.fake", tenant: other)

            let response = try await client.call(.get, "/v1/status", headers: harness.auth)
            #expect(response.status == 200)
            let connections = response.body["connections"] as? [[String: Any]] ?? []
            #expect(connections.compactMap { $0["connectionId"] as? String } == [mine.id, mySaxo.id])
            #expect(connections.first?["label"] as? String == "alpaca test")
            #expect(connections.first?["link"] as? String == "active")
            #expect(connections.first?["state"] as? String == "healthy")
            let health = connections.first?["health"] as? [String: Any] ?? [:]
            #expect(health["connectionId"] as? String == mine.id)
            #expect(health["breaker"] as? String == "closed")
            let brokers = response.body["brokers"] as? [[String: Any]] ?? []
            #expect(brokers.compactMap { $0["broker"] as? String } == ["alpaca", "saxo"])
            #expect(brokers.compactMap { $0["state"] as? String } == ["healthy", "healthy"])
            #expect(brokers.compactMap { $0["connections"] as? Int } == [1, 1])
            #expect(response.body["asOf"] as? String != nil)
            // Nothing of the connection's configuration or secrets.
            let text = try await client.execute(uri: "/v1/status", method: .get, headers: harness.auth) { String(buffer: $0.body) }
            #expect(!text.contains("mine.fake"))
            #expect(!text.contains("good"))
            #expect(!text.contains(theirs.id))

            var otherHeaders = HTTPFields()
            otherHeaders[.authorization] = "Bearer \(otherKey.plaintext)"
            let theirView = try await client.call(.get, "/v1/status", headers: otherHeaders)
            #expect(theirView.status == 200)
            let theirConnections = theirView.body["connections"] as? [[String: Any]] ?? []
            #expect(theirConnections.compactMap { $0["connectionId"] as? String } == [theirs.id])
            #expect((theirView.body["brokers"] as? [[String: Any]] ?? []).compactMap { $0["broker"] as? String } == ["alpaca"])
        }
    }

    @Test func unknownOrdersAwaitingReconciliationAreListedForTheirTenantOnly() async throws {
        try await APIHarness.with { harness, client in
            let url = "https://lost.fake"
            let connection = try await harness.link(.alpaca, baseURL: url)
            harness.state.set(url, FakeBrokerBehaviour(failAfterPlacing: GatewayError(.upstreamTimeout, "late"), unreachableAfterPlacing: true))
            let placed = try await client.call(.post, "/v1/orders", headers: harness.auth, json: orderBody(connection.id))
            #expect(placed.status == 202)
            let orderId = try #require(placed.body.dataObject["id"] as? String)
            // The broker stays unreachable: a reconciler pass asks and learns nothing.
            await harness.gateway.orders.reconcilePending()

            let status = try await client.call(.get, "/v1/status", headers: harness.auth)
            let orders = status.body["unknownOrders"] as? [[String: Any]] ?? []
            #expect(orders.count == 1)
            let order = try #require(orders.first)
            #expect(order["orderId"] as? String == orderId)
            #expect(order["connectionId"] as? String == connection.id)
            #expect(order["broker"] as? String == "alpaca")
            #expect(order["state"] as? String == "unknown")
            #expect(order["quantity"] as? String == "1.5")
            #expect(order["symbol"] as? String == "AAPL")
            #expect(order["side"] as? String == "buy")
            // Once at placement (at once), once by the pass above.
            #expect(order["attempts"] as? Int == 2)
            #expect(order["lastAttemptAt"] as? String != nil)
            #expect(order["since"] as? String != nil)

            let other = try await harness.store.createTenant(name: "Tenant B")
            let otherKey = try await harness.store.issueDefaultUserKey(tenantId: other.id, label: "b")
            var otherHeaders = HTTPFields()
            otherHeaders[.authorization] = "Bearer \(otherKey.plaintext)"
            let theirs = try await client.call(.get, "/v1/status", headers: otherHeaders)
            #expect((theirs.body["unknownOrders"] as? [Any])?.isEmpty == true)

            // The broker is back: the order is resolved and leaves the list.
            harness.state.set(url, FakeBrokerBehaviour())
            await harness.gateway.orders.reconcilePending()
            let after = try await client.call(.get, "/v1/status", headers: harness.auth)
            #expect((after.body["unknownOrders"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func statusReflectsAFailingBrokersErrorsAndAHealthyOnesSuccesses() async throws {
        // The fake brokers' calls go through the real pipeline to this transport: 503 for one, 200 for the other.
        let transport = ScriptedTransport { request in
            BrokerResponse(status: request.url.contains("failing.fake") ? 503 : 200, body: Data("{}".utf8))
        }
        let pipeline = BrokerPipeline(
            settings: PipelineSettings(
                breakerConsecutiveFailures: 3,
                breakerCoolDown: .seconds(300),
                maxRetries: 0
            )
        )
        // What health counts is the subject, not the deadline: 60 s a source (the harness's default is 2 s) keeps a
        // loaded machine from turning a read into a timeout that health then counts differently.
        let router = BrokerRouter(perSourceTimeout: .seconds(60), overallTimeout: .seconds(90))
        try await APIHarness.with(router: router, pipeline: pipeline, transport: transport) { harness, client in
            let failing = try await harness.link(.alpaca, baseURL: "https://failing.fake")
            let healthy = try await harness.link(.saxo, baseURL: "https://healthy.fake")
            harness.state.set("https://failing.fake", FakeBrokerBehaviour(callsTransport: true))
            harness.state.set("https://healthy.fake", FakeBrokerBehaviour(callsTransport: true))
            for _ in 0..<5 {
                let read = try await client.call(.get, "/v1/positions", headers: harness.auth)
                #expect(read.status == 200)
            }

            let status = try await client.call(.get, "/v1/status", headers: harness.auth)
            #expect(status.status == 200)
            let connections = status.body["connections"] as? [[String: Any]] ?? []
            let bad = try #require(connections.first { $0["connectionId"] as? String == failing.id })
            let good = try #require(connections.first { $0["connectionId"] as? String == healthy.id })
            let badHealth = bad["health"] as? [String: Any] ?? [:]
            let goodHealth = good["health"] as? [String: Any] ?? [:]

            // Three 503s opened the breaker; the reads after it were refused without a call.
            #expect(bad["state"] as? String == "failing")
            #expect(badHealth["breaker"] as? String == "open")
            #expect(badHealth["breakerSince"] as? String != nil)
            #expect((badHealth["errors"] as? Int ?? 0) >= 3)
            #expect((badHealth["errorRate"] as? Double ?? 0) > 0.5)
            #expect(badHealth["lastSuccessAt"] == nil)
            let lastError = badHealth["lastError"] as? [String: Any] ?? [:]
            #expect(lastError["code"] as? String != nil)
            #expect(lastError["at"] as? String != nil)
            #expect(!(badHealth["recentErrors"] as? [Any] ?? []).isEmpty)
            let badSlices = badHealth["slices"] as? [[String: Any]] ?? []
            #expect(badSlices.reduce(0) { $0 + ($1["errors"] as? Int ?? 0) } >= 3)

            #expect(good["state"] as? String == "healthy")
            #expect(goodHealth["breaker"] as? String == "closed")
            #expect(goodHealth["calls"] as? Int == 5)
            #expect(goodHealth["errors"] as? Int == 0)
            #expect(goodHealth["errorRate"] as? Double == 0)
            #expect(goodHealth["lastSuccessAt"] as? String != nil)
            #expect(goodHealth["lastError"] == nil)
            #expect(goodHealth["p50Ms"] as? Int != nil)

            let brokers = status.body["brokers"] as? [[String: Any]] ?? []
            #expect(brokers.map { "\($0["broker"] ?? "")=\($0["state"] ?? "")" } == ["alpaca=failing", "saxo=healthy"])
            #expect(brokers.first?["failing"] as? Int == 1)

            // What is served is what the document says: every key documented, every required key present.
            try StatusSchema.check(status.body, against: "Status")
        }
    }

    /// Issue 26: an authentication failure on a read moves the connection to `relink_required` (status, reads and
    /// health say so), when the broker itself refused the credentials; an adapter's own refusal (a public connection
    /// without keys) leaves the link as it is.
    @Test func aReadTheBrokerRefusesForCredentialsMarksTheConnectionForRelinking() async throws {
        try await APIHarness.with { harness, client in
            let revoked = try await harness.link(.alpaca, baseURL: "https://revoked.fake")
            let keyless = try await harness.link(.tradeogre, baseURL: "https://keyless.fake")
            harness.state.set(
                "https://revoked.fake",
                FakeBrokerBehaviour(
                    failure: GatewayError(
                        .unauthorized,
                        "Alpaca: request is not authorized",
                        broker: .alpaca,
                        retryable: false,
                        brokerCode: "40110000"
                    )
                )
            )
            harness.state.set(
                "https://keyless.fake",
                FakeBrokerBehaviour(
                    failure: GatewayError(
                        .unauthorized,
                        "this connection has no API keys",
                        broker: .tradeogre,
                        retryable: false
                    )
                )
            )

            let first = try await client.call(.get, "/v1/positions", headers: harness.auth)
            #expect(first.status == 200)
            let connections = try await client.call(.get, "/v1/connections", headers: harness.auth)
            let statuses = Dictionary(
                uniqueKeysWithValues: connections.body.dataList.compactMap { item in
                    (item["id"] as? String).map { ($0, item["status"] as? String ?? "?") }
                }
            )
            #expect(statuses[revoked.id] == "relink_required", "\(connections.body)")
            #expect(statuses[keyless.id] == "active", "\(connections.body)")

            // The next read does not call the broker again: it says the link must be renewed.
            let second = try await client.call(.get, "/v1/positions", headers: harness.auth)
            let sources = second.body["sources"] as? [[String: Any]] ?? []
            let source = try #require(sources.first { $0["connection"] as? String == revoked.id }, "\(second.body)")
            #expect((source["error"] as? [String: Any])?["message"] as? String == "the broker link has expired: link the connection again")

            let status = try await client.call(.get, "/v1/status", headers: harness.auth)
            let shown = (status.body["connections"] as? [[String: Any]] ?? []).first { $0["connectionId"] as? String == revoked.id }
            #expect(shown?["state"] as? String == "failing", "\(status.body)")
        }
    }

    /// Issue 26. Before: an open breaker stayed `open` on the dashboard long after its cool-down, until a user's call
    /// happened to probe it.
    @Test func aBreakerShowsItsCurrentStateAndIsProbedWithoutUserTraffic() async throws {
        let failing = Mutex(true)
        let transport = ScriptedTransport { _ in
            BrokerResponse(status: failing.withLock { $0 } ? 503 : 200, body: Data("{}".utf8))
        }
        let pipeline = BrokerPipeline(
            settings: PipelineSettings(
                breakerConsecutiveFailures: 3,
                breakerCoolDown: .milliseconds(200),
                maxRetries: 0
            )
        )
        let router = BrokerRouter(perSourceTimeout: .seconds(60), overallTimeout: .seconds(90))
        try await APIHarness.with(router: router, pipeline: pipeline, transport: transport) { harness, client in
            let connection = try await harness.link(.alpaca, baseURL: "https://recovers.fake")
            harness.state.set("https://recovers.fake", FakeBrokerBehaviour(callsTransport: true))
            func breaker() async throws -> String? {
                let status = try await client.call(.get, "/v1/status", headers: harness.auth)
                let report = (status.body["connections"] as? [[String: Any]])?.first { $0["connectionId"] as? String == connection.id }
                return (report?["health"] as? [String: Any])?["breaker"] as? String
            }
            for _ in 0..<4 { _ = try await client.call(.get, "/v1/positions", headers: harness.auth) }
            // Open, or already past its short cool-down on a slow machine; never closed after three failures.
            #expect(["open", "half_open"].contains(try await breaker()))
            failing.withLock { $0 = false }
            // The cool-down is time itself: wait for it to pass (bounded), and the breaker shows it.
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(30)
            while try await breaker() == "open", clock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(try await breaker() == "half_open")
            // The prober's pass, with no user call: the probe succeeds and closes the breaker.
            let reads = harness.state.accountReads.withLock { $0 }
            await harness.gateway.status.probeRecoveringBreakers()
            #expect(harness.state.accountReads.withLock { $0 } == reads + 1)
            #expect(try await breaker() == "closed")
        }
    }

    // MARK: The health rule

    func health(breaker: BreakerState = .closed, slices: [(secondsAgo: Double, calls: Int, errors: Int)], now: Date) -> ConnectionHealth {
        ConnectionHealth(
            connectionId: "c",
            broker: .alpaca,
            breaker: breaker,
            slices: slices.map { .init(start: now.addingTimeInterval(-$0.secondsAgo), calls: $0.calls, errors: $0.errors, p50Ms: 10) }
        )
    }

    @Test func theHealthRule() {
        let now = Date()
        #expect(HealthState.of(health(slices: [], now: now), at: now) == .healthy)
        #expect(HealthState.of(health(breaker: .open, slices: [], now: now), at: now) == .failing)
        #expect(HealthState.of(health(breaker: .halfOpen, slices: [], now: now), at: now) == .degraded)
        // Every recent call failed.
        #expect(HealthState.of(health(slices: [(5, 3, 3)], now: now), at: now) == .failing)
        // Too few calls to call it failing, but errors: degraded.
        #expect(HealthState.of(health(slices: [(5, 2, 2)], now: now), at: now) == .degraded)
        #expect(HealthState.of(health(slices: [(5, 10, 2)], now: now), at: now) == .degraded)
        #expect(HealthState.of(health(slices: [(5, 10, 1)], now: now), at: now) == .healthy)
        // Old failures no longer count; the five-minute numbers keep them.
        #expect(HealthState.of(health(slices: [(200, 10, 10), (5, 4, 0)], now: now), at: now) == .healthy)
        // The broker's verdict on the link counts: a refused login fails, however fast and few its calls; a link
        // waiting for the user is degraded.
        #expect(HealthState.of(health(slices: [(5, 10, 0)], now: now), at: now, link: .relinkRequired) == .failing)
        #expect(HealthState.of(health(slices: [], now: now), at: now, link: .challengeRequired) == .degraded)
        #expect(HealthState.of(health(slices: [(5, 3, 3)], now: now), at: now, link: .challengeRequired) == .failing)
        #expect(HealthState.ofBroker([.failing, .failing]) == .failing)
        #expect(HealthState.ofBroker([.failing, .healthy]) == .degraded)
        #expect(HealthState.ofBroker([.degraded]) == .degraded)
        #expect(HealthState.ofBroker([.healthy, .healthy]) == .healthy)
    }

    // MARK: The dashboard's files

    @Test(arguments: [
        ("/dashboard", "text/html"), ("/dashboard/app.js", "text/javascript"), ("/dashboard/app.css", "text/css"),
    ])
    func dashboardFilesAreServedPubliclyWithAStrictPolicy(_ path: String, _ type: String) async throws {
        try await APIHarness.with { _, client in
            try await client.execute(uri: path, method: .get, headers: [:]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix(type) == true, "\(response.headers[.contentType] ?? "")")
                #expect(response.headers[.cacheControl] == "no-cache")
                #expect(
                    response.headers[HTTPField.Name("Content-Security-Policy")!]
                        == "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
                )
                #expect(response.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
                #expect(response.body.readableBytes > 100)
            }
        }
    }

    @Test func theAPIKeepsItsOwnPolicy() async throws {
        try await APIHarness.with { harness, client in
            for path in ["/v1/status", "/healthz", "/dashboardx", "/v1/nothing"] {
                try await client.execute(uri: path, method: .get, headers: harness.auth) { response in
                    #expect(response.headers[HTTPField.Name("Content-Security-Policy")!] == "default-src 'none'; frame-ancestors 'none'", "\(path)")
                }
            }
        }
    }

    @Test func thePageRunsNoInlineCodeAndSetsNoHTMLFromData() throws {
        let folder = SpecFirstTests.packageRoot.appendingPathComponent("Sources/GatewayAPI/Dashboard")
        let page = try String(contentsOf: folder.appendingPathComponent("index.html"), encoding: .utf8)
        let script = try String(contentsOf: folder.appendingPathComponent("app.js"), encoding: .utf8)
        // Every <script> has a src; no style element or attribute; no inline handlers.
        #expect(page.components(separatedBy: "<script").count - 1 == page.components(separatedBy: "<script src=\"/dashboard/app.js\"").count - 1)
        #expect(!page.contains("<style"))
        #expect(!page.contains(" style="))
        #expect(page.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil)
        #expect(page.contains(#"<meta name="viewport""#))
        for forbidden in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "localStorage"] {
            #expect(!script.contains(forbidden), "\(forbidden)")
        }
        #expect(script.contains("sessionStorage"))
        #expect(script.contains("Authorization"))
    }
}

/// Checks a JSON answer against a schema of the served document: no undocumented key, no missing required key,
/// recursively through objects, arrays and `$ref`s.
enum StatusSchema {
    static func check(_ value: Any, against name: String) throws {
        let document = try #require(try JSONSerialization.jsonObject(with: GatewayServer.openAPIDocument()) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]])
        check(value, schema: try #require(schemas[name]), schemas: schemas, path: name)
    }

    static func check(_ value: Any, schema: [String: Any], schemas: [String: [String: Any]], path: String) {
        if let ref = schema["$ref"] as? String, let target = schemas[String(ref.split(separator: "/").last ?? "")] {
            check(value, schema: target, schemas: schemas, path: path)
            return
        }
        if let object = value as? [String: Any], let properties = schema["properties"] as? [String: [String: Any]] {
            for key in object.keys where properties[key] == nil {
                Issue.record("\(path).\(key) is served but not documented")
            }
            for key in schema["required"] as? [String] ?? [] where object[key] == nil {
                Issue.record("\(path).\(key) is required but missing")
            }
            for (key, child) in object {
                if let property = properties[key] { check(child, schema: property, schemas: schemas, path: "\(path).\(key)") }
            }
        } else if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, item) in array.enumerated() { check(item, schema: items, schemas: schemas, path: "\(path)[\(index)]") }
        }
    }
}
