import Crypto
import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import HTTPTypes
import HummingbirdTesting
import Synchronization
import Testing

/// The current device's push token (seed 003: `POST`/`DELETE /v1/devices/current/push-token`), and alerts whose APNs
/// channel targets the user's devices: each active token is pushed to, a token APNs reports invalid is kept inactive,
/// and the other devices still get theirs.
@Suite("API: devices' push tokens")
struct PushTokenTests {
    static let tokenA = String(repeating: "0a", count: 32)
    static let tokenB = String(repeating: "0b", count: 32)
    static let tokenC = String(repeating: "0c", count: 32)

    static func body(_ token: String, platform: String = "ios") -> String {
        #"{"token":"\#(token)","platform":"\#(platform)"}"#
    }

    static func pushToken(_ device: [String: Any]) -> [String: Any]? { device["pushToken"] as? [String: Any] }

    @Test("a session registers its device's token (idempotent), it moves with the token to another device, and is removed")
    func sessionRegistersMovesAndRemoves() async throws {
        try await APIHarness.with { harness, client in
            try await SessionAPITests.prepare(harness, client)
            let phone = try await SessionAPITests.login(harness, client, device: "phone")
            let tablet = try await SessionAPITests.login(harness, client, device: "tablet")
            let path = "/v1/devices/current/push-token"

            // Upper-case hex is the same token, kept in lower case.
            let registered = try await client.call(
                .post,
                path,
                headers: SessionAPITests.json(phone.access),
                json: Self.body(Self.tokenA.uppercased())
            )
            #expect(registered.status == 200, "\(registered.body)")
            #expect(registered.body.dataObject["id"] as? String == phone.device)
            let push = try #require(Self.pushToken(registered.body.dataObject))
            #expect(push["token"] as? String == Self.tokenA && push["platform"] as? String == "ios" && push["active"] as? Bool == true)
            #expect(push["registeredAt"] is String && push["deactivatedAt"] == nil)

            // Again: nothing changes, not even when it was registered.
            let again = try await client.call(.post, path, headers: SessionAPITests.json(phone.access), json: Self.body(Self.tokenA))
            #expect(again.status == 200 && Self.pushToken(again.body.dataObject)?["registeredAt"] as? String == push["registeredAt"] as? String)

            // The device list shows it, to its owner.
            let listed = try await client.call(.get, "/v1/devices", headers: SessionAPITests.json(phone.access))
            #expect(listed.body.dataList.compactMap { Self.pushToken($0)?["token"] as? String } == [Self.tokenA])

            // The same token from the tablet moves: one device per token per user.
            let moved = try await client.call(
                .post,
                path,
                headers: SessionAPITests.json(tablet.access, device: tablet.device),
                json: Self.body(Self.tokenA)
            )
            #expect(moved.status == 200 && moved.body.dataObject["id"] as? String == tablet.device, "\(moved.body)")
            let devices = try await client.call(.get, "/v1/devices", headers: SessionAPITests.json(tablet.access)).body.dataList
            #expect(devices.filter { Self.pushToken($0) != nil }.compactMap { $0["id"] as? String } == [tablet.device])

            // The phone has no token to remove; the tablet's is removed once.
            let none = try await client.call(.delete, path, headers: SessionAPITests.json(phone.access))
            #expect(none.status == 404, "\(none.body)")
            #expect(try await client.call(.delete, path, headers: SessionAPITests.json(tablet.access)).status == 204)
            #expect(try await client.call(.delete, path, headers: SessionAPITests.json(tablet.access)).status == 404)
            let gone = try await client.call(.get, "/v1/devices/\(tablet.device)", headers: SessionAPITests.json(tablet.access))
            #expect(gone.status == 200 && Self.pushToken(gone.body.dataObject) == nil)

            // A session naming another device than its own is refused before anything changes.
            let other = try await client.call(
                .post,
                path,
                headers: SessionAPITests.json(phone.access, device: tablet.device),
                json: Self.body(Self.tokenB)
            )
            #expect(other.status == 403 && other.body.detailFields == ["X-Device-ID"])
            let audit = try await harness.store.auditEvents(tenantId: harness.tenant.id, before: nil, limit: 50).map(\.action)
            #expect(audit.filter { $0 == "device.push_token_registered" }.count == 2)
            #expect(audit.contains("device.push_token_removed"))
        }
    }

    @Test("an API key names the device with X-Device-ID: required, and it must be one of the user's")
    func apiKeyNamesTheDevice() async throws {
        try await APIHarness.with { harness, client in
            try await SessionAPITests.prepare(harness, client)
            let phone = try await SessionAPITests.login(harness, client)
            let path = "/v1/devices/current/push-token"

            let missing = try await client.call(.post, path, headers: harness.auth, json: Self.body(Self.tokenA))
            #expect(missing.status == 422 && missing.body.detailFields == ["X-Device-ID"], "\(missing.body)")
            let unknown = try await client.call(
                .post,
                path,
                headers: SessionAPITests.json(harness.apiKey, device: "dev_nosuch"),
                json: Self.body(Self.tokenA)
            )
            #expect(unknown.status == 404 && unknown.body.detailFields == ["X-Device-ID"], "\(unknown.body)")

            // Another user's device, of the same tenant, answers as one that does not exist; it keeps no token.
            let bob = try await harness.store.createUser(tenantId: harness.tenant.id, NewUser(), audit: nil)
            let bobsPhone = try await harness.store.registerDevice(
                tenantId: harness.tenant.id,
                userId: bob.id,
                NewDevice(name: "Bob's phone", type: "ios", fingerprint: "fp-bob"),
                limit: 10
            )
            let refused = try await client.call(
                .post,
                path,
                headers: SessionAPITests.json(harness.apiKey, device: bobsPhone.id),
                json: Self.body(Self.tokenA)
            )
            #expect(refused.status == 404 && refused.body.detailFields == ["X-Device-ID"], "\(refused.body)")
            let removal = try await client.call(.delete, path, headers: SessionAPITests.json(harness.apiKey, device: bobsPhone.id))
            #expect(removal.status == 404)
            #expect(try await harness.store.device(tenantId: harness.tenant.id, userId: bob.id, id: bobsPhone.id)?.pushToken == nil)

            let registered = try await client.call(
                .post,
                path,
                headers: SessionAPITests.json(harness.apiKey, device: phone.device),
                json: Self.body(Self.tokenA)
            )
            #expect(registered.status == 200 && registered.body.dataObject["id"] as? String == phone.device, "\(registered.body)")
            #expect(Self.pushToken(registered.body.dataObject)?["active"] as? Bool == true)
            #expect(try await client.call(.delete, path, headers: SessionAPITests.json(harness.apiKey, device: phone.device)).status == 204)
        }
    }

    @Test(
        "bad registrations are 422 naming the field",
        arguments: [
            (#"{"token":"\#(String(repeating: "0a", count: 32))","platform":"android"}"#, ["platform"]),
            (#"{"token":"not-hex","platform":"ios"}"#, ["token"]),
            (#"{"token":"abc","platform":"ios"}"#, ["token"]),
            (#"{"token":"","platform":"web"}"#, ["platform", "token"]),
        ]
    )
    func badInputs(body: String, fields: [String]) async throws {
        try await APIHarness.with { harness, client in
            try await SessionAPITests.prepare(harness, client)
            let phone = try await SessionAPITests.login(harness, client)
            let answer = try await client.call(.post, "/v1/devices/current/push-token", headers: SessionAPITests.json(phone.access), json: body)
            #expect(answer.status == 422, "\(answer.body)")
            #expect(answer.body.errorCode == "unprocessable" && answer.body.detailFields == fields, "\(answer.body)")
            let device = try await client.call(.get, "/v1/devices/\(phone.device)", headers: SessionAPITests.json(phone.access))
            #expect(Self.pushToken(device.body.dataObject) == nil)
        }
    }

    @Test("an APNs channel is either one token or the user's devices, not both nor neither")
    func alertChannelShape() async throws {
        try await APIHarness.with { harness, client in
            for apns in [#"{}"#, #"{"deviceToken":"\#(Self.tokenA)","devices":"all"}"#] {
                let answer = try await client.call(
                    .post,
                    "/v1/alerts",
                    headers: harness.auth,
                    json: #"{"rule": {"type": "order", "on": "filled"}, "channels": {"apns": \#(apns)}}"#
                )
                #expect(answer.status == 422 && answer.body.detailFields == ["channels.apns"], "\(apns): \(answer.body)")
            }
            let unknown = try await client.call(
                .post,
                "/v1/alerts",
                headers: harness.auth,
                json: #"{"rule": {"type": "order", "on": "filled"}, "channels": {"apns": {"devices": "some"}}}"#
            )
            #expect((400...422).contains(unknown.status), "\(unknown.body)")
            let made = try await client.call(
                .post,
                "/v1/alerts",
                headers: harness.auth,
                json: #"{"rule": {"type": "order", "on": "filled"}, "channels": {"apns": {"devices": "all"}}}"#
            )
            #expect(made.status == 201, "\(made.body)")
            #expect((made.body.dataObject["channels"] as? [String: Any])?["apns"] as? [String: String] == ["devices": "all"])
        }
    }

    @Test("an alert for the user's devices pushes to each active token; 410 and BadDeviceToken mark theirs inactive, the next firing skips them")
    func alertPushesToDevices() async throws {
        // The fake APNs answers by device token, as APNs does for a token it no longer knows (410 Unregistered) or
        // never issued for this topic and environment (400 BadDeviceToken); Apple's "Handling notification responses
        // from APNs" (developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns).
        let sent = Mutex<[String]>([])
        let transport = ScriptedTransport { request in
            let token = String(request.url.split(separator: "/").last ?? "")
            sent.withLock { $0.append(token) }
            switch token {
            case Self.tokenB: return BrokerResponse(status: 410, body: Data(#"{"reason":"Unregistered","timestamp":1800000000000}"#.utf8))
            case Self.tokenC: return BrokerResponse(status: 400, body: Data(#"{"reason":"BadDeviceToken"}"#.utf8))
            default: return BrokerResponse(status: 200)
            }
        }
        let apns = APNsSettings(
            teamId: "TEAM123456",
            keyId: "KEY1234567",
            key: P256.Signing.PrivateKey(),
            topic: "com.example.app",
            environment: .sandbox
        )
        try await APIHarness.with(alerts: AlertSettings(baseDelay: .milliseconds(5), transport: transport, apns: apns)) { harness, client in
            try await SessionAPITests.prepare(harness, client)
            var devices: [String: String] = [:]
            for (name, token) in [("phone", Self.tokenA), ("tablet", Self.tokenB), ("watch", Self.tokenC)] {
                let session = try await SessionAPITests.login(harness, client, device: name)
                let registered = try await client.call(
                    .post,
                    "/v1/devices/current/push-token",
                    headers: SessionAPITests.json(session.access),
                    json: Self.body(token)
                )
                #expect(registered.status == 200, "\(registered.body)")
                devices[token] = session.device
            }
            // A fourth device without a token is not pushed to.
            _ = try await SessionAPITests.login(harness, client, device: "laptop")
            let created = try await client.call(
                .post,
                "/v1/alerts",
                headers: harness.auth,
                json: #"{"rule": {"type": "order", "on": "filled"}, "channels": {"apns": {"devices": "all"}}}"#
            )
            let id = try #require(created.body.dataObject["id"] as? String, "\(created.body)")

            let first = try await client.call(.post, "/v1/alerts/\(id)/test", headers: harness.auth)
            let attempts = first.body.dataObject["attempts"] as? [[String: Any]] ?? []
            #expect(attempts.map { $0["outcome"] as? String } == ["delivered", "failed", "failed"], "\(first.body)")
            #expect(attempts.map { $0["httpStatus"] as? Int } == [200, 410, 400])
            #expect(attempts.map { $0["deviceId"] as? String } == [devices[Self.tokenA], devices[Self.tokenB], devices[Self.tokenC]])
            let log = try await client.call(.get, "/v1/alerts/\(id)/deliveries", headers: harness.auth).body.dataList
            #expect(Set(log.compactMap { $0["deviceId"] as? String }) == Set(devices.values), "\(log)")
            #expect((attempts[safe: 1]?["error"] as? String ?? "").contains(devices[Self.tokenB] ?? "?"))
            #expect(Set(sent.withLock { $0 }) == [Self.tokenA, Self.tokenB, Self.tokenC] && sent.withLock { $0.count } == 3)

            for (token, reason) in [(Self.tokenB, "Unregistered"), (Self.tokenC, "BadDeviceToken")] {
                let device = try await client.call(.get, "/v1/devices/\(devices[token] ?? "")", headers: harness.auth)
                let push = try #require(Self.pushToken(device.body.dataObject), "\(device.body)")
                #expect(push["token"] as? String == token && push["active"] as? Bool == false)
                #expect(push["deactivatedReason"] as? String == reason && push["deactivatedAt"] is String)
            }
            let phone = try await client.call(.get, "/v1/devices/\(devices[Self.tokenA] ?? "")", headers: harness.auth)
            #expect(Self.pushToken(phone.body.dataObject)?["active"] as? Bool == true)
            // The alert keeps its channel: it targets devices, not the tokens that failed.
            let alert = try await client.call(.get, "/v1/alerts/\(id)", headers: harness.auth).body.dataObject
            #expect((alert["channels"] as? [String: Any])?["apns"] as? [String: String] == ["devices": "all"])

            // The next firing reaches the active token only.
            sent.withLock { $0.removeAll() }
            let second = try await client.call(.post, "/v1/alerts/\(id)/test", headers: harness.auth)
            #expect((second.body.dataObject["attempts"] as? [[String: Any]] ?? []).map { $0["outcome"] as? String } == ["delivered"])
            #expect(sent.withLock { $0 } == [Self.tokenA])
        }
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
