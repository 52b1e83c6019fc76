import Crypto
import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Prometheus
import Synchronization
import Testing

@Suite("Alerts over the API")
struct AlertAPITests {
    /// Fast retries, to loopback receivers allowed explicitly (the default policy refuses them).
    static let loopback = AlertSettings(baseDelay: .milliseconds(5), maxDelay: .milliseconds(50), transport: HTTPClientTransport.loopbackForTests)

    static func priceAlert(webhook: String? = nil, threshold: String = "\"200.50\"") -> String {
        let channels = webhook.map { #", "channels": {"webhook": {"url": "\#($0)"}}"# } ?? ""
        return
            #"{"name": "AAPL breakout", "rule": {"type": "price", "instrument": {"symbol": "AAPL", "assetClass": "equity"}, "condition": "above", "threshold": \#(threshold)}\#(channels)}"#
    }

    @Test("create (the secret once), list, get, change (re-armed), deliveries, delete; another user's alert is a 404")
    func lifecycle() async throws {
        try await APIHarness.with(alerts: Self.loopback) { harness, client in
            let created = try await client.call(.post, "/v1/alerts", headers: harness.auth, json: Self.priceAlert(webhook: "https://hooks.example/a"))
            #expect(created.status == 201, "\(created.body)")
            let alert = created.body.dataObject
            let id = try #require(alert["id"] as? String)
            #expect((created.body["webhookSecret"] as? String)?.hasPrefix("whsec_") == true)
            #expect(alert["armed"] as? Bool == true && alert["enabled"] as? Bool == true && alert["rearm"] as? String == "cross_back")
            let rule = alert["rule"] as? [String: Any] ?? [:]
            #expect(rule["threshold"] as? String == "200.5" && rule["condition"] as? String == "above")
            #expect(alert["webhookSecret"] == nil)

            let listed = try await client.call(.get, "/v1/alerts", headers: harness.auth)
            #expect(listed.status == 200 && listed.body.dataList.map { $0["id"] as? String } == [id])
            let fetched = try await client.call(.get, "/v1/alerts/\(id)", headers: harness.auth)
            #expect(fetched.status == 200 && fetched.body.dataObject["id"] as? String == id)
            #expect(fetched.body["webhookSecret"] == nil)

            let changed = try await client.call(
                .patch,
                "/v1/alerts/\(id)",
                headers: harness.auth,
                json: #"{"rule": {"type": "order", "on": "unknown", "unknownForSeconds": 30}, "enabled": false}"#
            )
            #expect(changed.status == 200, "\(changed.body)")
            #expect(changed.body.dataObject["enabled"] as? Bool == false)
            #expect((changed.body.dataObject["rule"] as? [String: Any])?["on"] as? String == "unknown")
            #expect((changed.body.dataObject["channels"] as? [String: Any])?["webhook"] != nil)

            let log = try await client.call(.get, "/v1/alerts/\(id)/deliveries", headers: harness.auth)
            #expect(log.status == 200 && log.body.dataList.isEmpty)

            // Another tenant's key sees none of it.
            let other = try await harness.store.createTenant(name: "B")
            let otherKey = try await harness.store.issueDefaultUserKey(tenantId: other.id, label: "b")
            let otherAuth: HTTPFields = [.authorization: "Bearer \(otherKey.plaintext)", .contentType: "application/json"]
            for (method, path) in [
                (HTTPRequest.Method.get, "/v1/alerts/\(id)"), (.delete, "/v1/alerts/\(id)"), (.get, "/v1/alerts/\(id)/deliveries"),
                (.post, "/v1/alerts/\(id)/test"),
            ] {
                #expect(try await client.call(method, path, headers: otherAuth).status == 404)
            }
            #expect(try await client.call(.patch, "/v1/alerts/\(id)", headers: otherAuth, json: #"{"enabled": true}"#).status == 404)
            #expect(try await client.call(.get, "/v1/alerts", headers: otherAuth).body.dataList.isEmpty)

            #expect(try await client.call(.delete, "/v1/alerts/\(id)", headers: harness.auth).status == 204)
            #expect(try await client.call(.get, "/v1/alerts/\(id)", headers: harness.auth).status == 404)
            let actions = try await harness.store.auditEvents(tenantId: harness.tenant.id, before: nil, limit: 20).map(\.action)
            #expect(actions.filter { $0.hasPrefix("alert.") } == ["alert.deleted", "alert.updated", "alert.created"])
        }
    }

    @Test(
        "every bad input is a 4xx naming the field, never a 500",
        arguments: [
            (#"{"name": "x"}"#, 422, "rule"),
            (#"{"rule": {"type": "price", "condition": "above", "threshold": "1"}}"#, 422, "rule.instrument"),
            (#"{"rule": {"type": "price", "instrument": {"symbol": "AAPL"}, "condition": "above"}}"#, 422, "rule.threshold"),
            (#"{"rule": {"type": "price", "instrument": {"symbol": "AAPL"}, "threshold": "1"}}"#, 422, "rule.condition"),
            (#"{"rule": {"type": "price", "instrument": {"symbol": "AAPL"}, "condition": "above", "threshold": "-1"}}"#, 422, "rule.threshold"),
            (#"{"rule": {"type": "price", "instrument": {"symbol": "AAPL"}, "condition": "above", "threshold": "1e13"}}"#, 422, "rule.threshold"),
            (
                #"{"rule": {"type": "price", "instrument": {"symbol": "AAPL"}, "condition": "above", "threshold": 1.000000000000000000000000000000000000001}}"#,
                422, "rule.threshold"
            ),
            (
                #"{"rule": {"type": "price", "instrument": {"symbol": "AAPL"}, "condition": "percent_move", "threshold": "5"}}"#, 422,
                "rule.windowSeconds"
            ),
            (
                #"{"rule": {"type": "price", "instrument": {"symbol": "AAPL"}, "condition": "percent_move", "threshold": "5000", "windowSeconds": 60}}"#,
                422, "rule.threshold"
            ),
            (
                #"{"rule": {"type": "price", "instrument": {"symbol": "AAPL"}, "condition": "above", "threshold": "1", "windowSeconds": 60}}"#, 422,
                "rule.windowSeconds"
            ),
            (
                #"{"rule": {"type": "price", "instrument": {"symbol": "AA PL"}, "condition": "above", "threshold": "1"}}"#, 422,
                "rule.instrument.symbol"
            ),
            (#"{"rule": {"type": "order", "on": "filled", "threshold": "1"}}"#, 422, "rule.threshold"),
            (#"{"rule": {"type": "order"}}"#, 422, "rule.on"),
            (#"{"rule": {"type": "order", "on": "unknown"}}"#, 422, "rule.unknownForSeconds"),
            (#"{"rule": {"type": "order", "on": "unknown", "unknownForSeconds": 0}}"#, 422, "rule.unknownForSeconds"),
            (#"{"rule": {"type": "order", "on": "filled", "connectionId": "conn_nobody"}}"#, 422, "rule.connectionId"),
            (#"{"rule": {"type": "order", "on": "filled"}, "channels": {"webhook": {"url": "ftp://hooks.example"}}}"#, 422, "channels.webhook.url"),
            (#"{"rule": {"type": "order", "on": "filled"}, "channels": {"apns": {"deviceToken": "xyz"}}}"#, 422, "channels.apns.deviceToken"),
            (#"{"rule": {"type": "order", "on": "filled"}, "name": "   "}"#, 422, "name"),
            (#"{"rule": {"type": "order", "on": "filled"}, "colour": "red"}"#, 400, "colour"),
            (#"{"rule": {"type": "order", "on": "filled", "stopLoss": 1}}"#, 400, "rule.stopLoss"),
            (#"{"rule": {"type": "volume"}}"#, 400, "rule.type"),
            (#"{"rule": {"type": "order", "on": "filled"}, "channels": {"webhook": {}}}"#, 400, "channels.webhook.url"),
        ]
    )
    func badInput(body: String, status: Int, field: String) async throws {
        try await APIHarness.with(alerts: Self.loopback) { harness, client in
            let answer = try await client.call(.post, "/v1/alerts", headers: harness.auth, json: body)
            #expect(answer.status == status, "\(answer.body)")
            #expect(answer.body.detailFields.contains(field) || (answer.body.error?["message"] as? String ?? "").contains(field), "\(answer.body)")
            #expect(try await harness.store.alerts(tenantId: harness.tenant.id, userId: harness.userId).isEmpty)
        }
    }

    @Test("a change that changes nothing, one alert past the user's limit, a log cursor of nothing: 4xx")
    func otherRefusals() async throws {
        let settings = AlertSettings(maxAlertsPerUser: 2, transport: HTTPClientTransport.loopbackForTests)
        try await APIHarness.with(alerts: settings) { harness, client in
            let first = try await client.call(.post, "/v1/alerts", headers: harness.auth, json: Self.priceAlert())
            let id = try #require(first.body.dataObject["id"] as? String)
            #expect(try await client.call(.post, "/v1/alerts", headers: harness.auth, json: Self.priceAlert()).status == 201)
            let third = try await client.call(.post, "/v1/alerts", headers: harness.auth, json: Self.priceAlert())
            #expect(third.status == 422 && (third.body.error?["message"] as? String ?? "").contains("2 alerts"), "\(third.body)")
            let empty = try await client.call(.patch, "/v1/alerts/\(id)", headers: harness.auth, json: "{}")
            #expect(empty.status == 422 && empty.body.detailFields == ["body"])
            let badRule = try await client.call(
                .patch,
                "/v1/alerts/\(id)",
                headers: harness.auth,
                json: #"{"rule": {"type": "order", "on": "unknown"}}"#
            )
            #expect(badRule.status == 422 && badRule.body.detailFields == ["rule.unknownForSeconds"])
            #expect(try await client.call(.get, "/v1/alerts/\(id)/deliveries?before=dlv_nothing", headers: harness.auth).status == 404)
            #expect(try await client.call(.get, "/v1/alerts/\(id)/deliveries?limit=0", headers: harness.auth).status == 400)
            #expect(try await client.call(.get, "/v1/alerts/alr_nothing", headers: harness.auth).status == 404)
            // A test send of an alert with no webhook or APNs tries nothing.
            let test = try await client.call(.post, "/v1/alerts/\(id)/test", headers: harness.auth)
            #expect(test.status == 200 && (test.body.dataObject["attempts"] as? [Any])?.isEmpty == true)
            #expect(test.body.dataObject["streamed"] as? Bool == false)
        }
    }

    /// The issue's "done when": the receiver answers 500, then 200; it verifies both signatures with the secret
    /// returned at creation, and the delivery log shows both attempts.
    @Test("a webhook is signed, retried after a 500, and both attempts are in the delivery log")
    func webhookRetryAndLog() async throws {
        try await WebhookReceiver.with(statuses: [.internalServerError, .ok]) { receiver, url in
            let pipeline = BrokerPipeline(metrics: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry()))
            try await APIHarness.with(pipeline: pipeline, alerts: Self.loopback) { harness, client in
                let created = try await client.call(.post, "/v1/alerts", headers: harness.auth, json: Self.priceAlert(webhook: url))
                #expect(created.status == 201, "\(created.body)")
                let id = try #require(created.body.dataObject["id"] as? String)
                let secret = try #require(created.body["webhookSecret"] as? String)

                let test = try await client.call(.post, "/v1/alerts/\(id)/test", headers: harness.auth)
                #expect(test.status == 200, "\(test.body)")
                let attempts = test.body.dataObject["attempts"] as? [[String: Any]] ?? []
                #expect(attempts.map { $0["outcome"] as? String } == ["retrying", "delivered"])
                #expect(attempts.map { $0["httpStatus"] as? Int } == [500, 200])

                var eventIds: [String] = []
                for expected in 1...2 {
                    let request = await receiver.next()
                    let signature = try #require(request.headers[HTTPField.Name("BrokerGateway-Signature")!])
                    #expect(WebhookSignature.verify(header: signature, body: request.body, secret: secret, now: Date()), "attempt \(expected)")
                    #expect(!WebhookSignature.verify(header: signature, body: request.body, secret: "whsec_wrong", now: Date()))
                    eventIds.append(try #require(request.headers[HTTPField.Name("BrokerGateway-Event-Id")!]))
                    let notification = try JSONSerialization.jsonObject(with: request.body) as? [String: Any] ?? [:]
                    #expect(notification["alertId"] as? String == id && notification["kind"] as? String == "test")
                    #expect(request.headers[.contentType] == "application/json")
                }
                #expect(eventIds[0] == eventIds[1] && eventIds[0].hasPrefix("evt_"))

                let log = try await client.call(.get, "/v1/alerts/\(id)/deliveries", headers: harness.auth)
                #expect(log.status == 200)
                let entries = log.body.dataList
                #expect(entries.map { $0["attempt"] as? Int } == [2, 1])
                #expect(entries.map { $0["outcome"] as? String } == ["delivered", "retrying"])
                #expect(entries.map { $0["httpStatus"] as? Int } == [200, 500])
                #expect(
                    entries.allSatisfy {
                        $0["eventId"] as? String == eventIds[0] && $0["channel"] as? String == "webhook" && $0["test"] as? Bool == true
                    }
                )
                let page = try await client.call(
                    .get,
                    "/v1/alerts/\(id)/deliveries?limit=1&before=\(entries[0]["id"] as? String ?? "")",
                    headers: harness.auth
                )
                #expect(page.body.dataList.map { $0["attempt"] as? Int } == [1])
                // The secret is nowhere in the log.
                #expect(!"\(log.body)".contains(secret))
                // Each attempt is counted by channel and outcome.
                let metrics = try await client.execute(uri: "/metrics", method: .get) { try PrometheusText(String(buffer: $0.body)) }
                #expect(metrics.sum("brokergateway_alert_deliveries_total", ["channel": "webhook", "outcome": "retrying"]) == 1)
                #expect(metrics.sum("brokergateway_alert_deliveries_total", ["channel": "webhook", "outcome": "delivered"]) == 1)
            }
        }
    }

    @Test("a 4xx other than 408 and 429 is not retried; the default egress policy refuses a loopback webhook")
    func noRetryAndEgress() async throws {
        try await WebhookReceiver.with(statuses: [.badRequest, .ok]) { receiver, url in
            try await APIHarness.with(alerts: Self.loopback) { harness, client in
                let id = try #require(
                    try await client.call(.post, "/v1/alerts", headers: harness.auth, json: Self.priceAlert(webhook: url)).body.dataObject["id"]
                        as? String
                )
                let test = try await client.call(.post, "/v1/alerts/\(id)/test", headers: harness.auth)
                let attempts = test.body.dataObject["attempts"] as? [[String: Any]] ?? []
                #expect(attempts.map { $0["outcome"] as? String } == ["failed"])
                #expect(attempts.first?["httpStatus"] as? Int == 400)
                _ = await receiver.next()
            }
            // The gateway's default: user-supplied URLs reach public addresses only.
            try await APIHarness.with(alerts: AlertSettings(baseDelay: .milliseconds(5))) { harness, client in
                let id = try #require(
                    try await client.call(.post, "/v1/alerts", headers: harness.auth, json: Self.priceAlert(webhook: url)).body.dataObject["id"]
                        as? String
                )
                let test = try await client.call(.post, "/v1/alerts/\(id)/test", headers: harness.auth)
                let attempts = test.body.dataObject["attempts"] as? [[String: Any]] ?? []
                #expect(attempts.count == 1 && attempts.first?["outcome"] as? String == "failed")
                #expect((attempts.first?["error"] as? String ?? "").hasPrefix("egress_refused"), "\(attempts)")
            }
        }
    }

    @Test("the engine fires a price alert from a quote: on the stream at once, by webhook from run(), lastFiredAt stored")
    func engineFiresPriceAlert() async throws {
        try await WebhookReceiver.with(statuses: [.ok]) { receiver, url in
            try await APIHarness.with(alerts: Self.loopback) { harness, client in
                let created = try await client.call(.post, "/v1/alerts", headers: harness.auth, json: Self.priceAlert(webhook: url))
                let id = try #require(created.body.dataObject["id"] as? String)
                let secret = try #require(created.body["webhookSecret"] as? String)
                let streamed = Mutex<[(String, String, AlertNotification)]>([])
                let engine = AlertEngine(gateway: harness.gateway) { tenantId, userId, notification in
                    streamed.withLock { $0.append((tenantId, userId, notification)) }
                }
                let watched = try await engine.instrumentsWatched()
                #expect(
                    watched == [
                        AlertUserKey(tenantId: harness.tenant.id, userId: harness.userId): [InstrumentReference(symbol: "AAPL", assetClass: .equity)]
                    ]
                )
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await engine.run() }
                    let instrument = Instrument(symbol: "AAPL", assetClass: .equity)
                    let at = Date()
                    await engine.observe(quote: Quote(instrument: instrument, last: 199), tenantId: harness.tenant.id, userId: harness.userId, at: at)
                    // Another user's quote never reaches this user's alert.
                    await engine.observe(quote: Quote(instrument: instrument, last: 300), tenantId: harness.tenant.id, userId: "usr_other", at: at)
                    #expect(streamed.withLock { $0.isEmpty })
                    await engine.observe(quote: Quote(instrument: instrument, last: 201), tenantId: harness.tenant.id, userId: harness.userId, at: at)
                    await engine.observe(quote: Quote(instrument: instrument, last: 202), tenantId: harness.tenant.id, userId: harness.userId, at: at)
                    let fired = streamed.withLock { $0 }
                    #expect(fired.count == 1)
                    #expect(fired.first?.0 == harness.tenant.id && fired.first?.1 == harness.userId)
                    #expect(fired.first?.2.alertId == id && fired.first?.2.price == 201 && fired.first?.2.kind == .price)
                    let request = await receiver.next()
                    let signature = try #require(request.headers[HTTPField.Name("BrokerGateway-Signature")!])
                    #expect(WebhookSignature.verify(header: signature, body: request.body, secret: secret, now: Date()))
                    group.cancelAll()
                }
                let stored = try await client.call(.get, "/v1/alerts/\(id)", headers: harness.auth).body.dataObject
                #expect(stored["lastFiredAt"] as? String != nil && stored["armed"] as? Bool == false)
                // With an engine attached, a test send goes on the user's stream too.
                let test = try await client.call(.post, "/v1/alerts/\(id)/test", headers: harness.auth)
                #expect(test.body.dataObject["streamed"] as? Bool == true)
                #expect(streamed.withLock { $0.last?.2.kind } == .test)
                #expect(streamed.withLock { $0.last?.1 } == harness.userId)
            }
        }
    }

    @Test("APNs: an ES256 provider token, the topic, the device path; a 410 drops the device token from the alert")
    func apnsUnregistered() async throws {
        let sent = Mutex<[BrokerRequest]>([])
        let transport = ScriptedTransport { request in
            sent.withLock { $0.append(request) }
            return BrokerResponse(status: 410, body: Data(#"{"reason":"Unregistered"}"#.utf8))
        }
        let key = P256.Signing.PrivateKey()
        let apns = APNsSettings(teamId: "TEAM123456", keyId: "KEY1234567", key: key, topic: "com.example.app", environment: .sandbox)
        let token = String(repeating: "0f", count: 32)
        try await APIHarness.with(alerts: AlertSettings(baseDelay: .milliseconds(5), transport: transport, apns: apns)) { harness, client in
            let created = try await client.call(
                .post,
                "/v1/alerts",
                headers: harness.auth,
                json: #"{"rule": {"type": "order", "on": "filled"}, "channels": {"apns": {"deviceToken": "\#(token)"}}}"#
            )
            let id = try #require(created.body.dataObject["id"] as? String)
            let test = try await client.call(.post, "/v1/alerts/\(id)/test", headers: harness.auth)
            let attempts = test.body.dataObject["attempts"] as? [[String: Any]] ?? []
            #expect(attempts.map { $0["outcome"] as? String } == ["failed"])
            #expect(attempts.first?["channel"] as? String == "apns" && attempts.first?["httpStatus"] as? Int == 410)
            #expect((attempts.first?["error"] as? String ?? "").contains("dropped"))
            let request = try #require(sent.withLock { $0.first })
            #expect(request.url == "https://api.sandbox.push.apple.com/3/device/\(token)")
            #expect(request.header("apns-topic") == "com.example.app" && request.header("apns-push-type") == "alert")
            let bearer = try #require(request.header("authorization"))
            #expect(bearer.hasPrefix("bearer "))
            let parts = bearer.dropFirst("bearer ".count).split(separator: ".")
            #expect(parts.count == 3)
            let header = try JSONSerialization.jsonObject(with: Self.base64URL(String(parts[0]))) as? [String: Any] ?? [:]
            #expect(header["alg"] as? String == "ES256" && header["kid"] as? String == "KEY1234567")
            let claims = try JSONSerialization.jsonObject(with: Self.base64URL(String(parts[1]))) as? [String: Any] ?? [:]
            #expect(claims["iss"] as? String == "TEAM123456" && claims["iat"] != nil)
            let alert = try await client.call(.get, "/v1/alerts/\(id)", headers: harness.auth).body.dataObject
            #expect((alert["channels"] as? [String: Any])?["apns"] == nil)
        }
    }

    static func base64URL(_ text: String) -> Data {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64) ?? Data()
    }
}
