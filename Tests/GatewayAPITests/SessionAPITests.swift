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
import Synchronization
import Testing

/// End users' sessions through HTTP, as a mobile app uses them (seed 003): login on a device, the access token on
/// every request, refresh with rotation, reuse detection, logout of a session, a device or everything, the device
/// limit, and the lockout.
@Suite("API: end-user sessions and devices")
struct SessionAPITests {
    static let password = "correct horse battery"

    static func json(_ key: String? = nil, user: String? = nil, device: String? = nil) -> HTTPFields {
        var fields: HTTPFields = [.contentType: "application/json", HTTPField.Name("Idempotency-Key")!: UUID().uuidString]
        if let key { fields[.authorization] = "Bearer \(key)" }
        if let user { fields[HTTPField.Name("X-User-ID")!] = user }
        if let device { fields[HTTPField.Name("X-Device-ID")!] = device }
        return fields
    }

    /// The harness's user with a password set through the API, and the body of a login from `device`.
    static func prepare(_ harness: APIHarness, _ client: some TestClientProtocol) async throws {
        let named = try await client.call(
            .patch,
            "/v1/users/\(harness.userId)",
            headers: json(harness.apiKey),
            json: #"{"email":"ann@example.com"}"#
        )
        #expect(named.status == 200, "\(named.body)")
        let set = try await client.call(
            .put,
            "/v1/users/\(harness.userId)/password",
            headers: json(harness.apiKey),
            json: #"{"password":"\#(password)"}"#
        )
        #expect(set.status == 204, "\(set.body)")
    }

    static func loginBody(_ harness: APIHarness, password: String = password, email: String = "ann@example.com", device: String = "phone") -> String {
        #"{"tenantId":"\#(harness.tenant.id)","email":"\#(email)","password":"\#(password)","device":{"name":"Ann's \#(device)","type":"ios","model":"iPhone","os":"iOS 26","appVersion":"1.0","fingerprint":"fp-\#(device)"}}"#
    }

    struct Tokens {
        var access: String
        var refresh: String
        var session: String
        var device: String
    }

    static func login(_ harness: APIHarness, _ client: some TestClientProtocol, device: String = "phone") async throws -> Tokens {
        let answer = try await client.call(.post, "/v1/auth/login", headers: json(), json: loginBody(harness, device: device))
        #expect(answer.status == 200, "\(answer.body)")
        return try tokens(answer.body)
    }

    static func tokens(_ body: [String: Any]) throws -> Tokens {
        let data = body.dataObject
        return Tokens(
            access: try #require(data["accessToken"] as? String),
            refresh: try #require(data["refreshToken"] as? String),
            session: try #require((data["session"] as? [String: Any])?["id"] as? String),
            device: try #require((data["device"] as? [String: Any])?["id"] as? String)
        )
    }

    @Test("a user logs in on a device, reads their own data with the access token, and each refresh rotates the token")
    func loginReadAndRefresh() async throws {
        try await APIHarness.with { harness, client in
            try await Self.prepare(harness, client)
            let connection = try await harness.link(.alpaca, baseURL: "https://alpaca.example")
            let tokens = try await Self.login(harness, client)
            #expect(tokens.refresh.hasPrefix("bgr_") && tokens.access.split(separator: ".").count == 3)

            let mine = try await client.call(.get, "/v1/connections", headers: Self.json(tokens.access))
            #expect(mine.status == 200 && mine.body.dataList.compactMap { $0["id"] as? String } == [connection.id], "\(mine.body)")
            // The session's own device may be named; another is refused, as is another user or an admin operation.
            #expect(try await client.call(.get, "/v1/connections", headers: Self.json(tokens.access, device: tokens.device)).status == 200)
            let otherDevice = try await client.call(.get, "/v1/connections", headers: Self.json(tokens.access, device: "dev_other"))
            #expect(otherDevice.status == 403 && otherDevice.body.detailFields == ["X-Device-ID"])
            let otherUser = try await client.call(.get, "/v1/connections", headers: Self.json(tokens.access, user: "usr_someoneelse"))
            #expect(otherUser.status == 403 && otherUser.body.detailFields == ["X-User-ID"])
            let admin = try await client.call(.get, "/v1/users", headers: Self.json(tokens.access))
            #expect(admin.status == 403, "\(admin.body)")

            // A refresh hands new tokens; the old refresh token is spent.
            let refreshed = try await client.call(.post, "/v1/auth/refresh", headers: Self.json(), json: #"{"refreshToken":"\#(tokens.refresh)"}"#)
            #expect(refreshed.status == 200, "\(refreshed.body)")
            let next = try Self.tokens(refreshed.body)
            #expect(next.refresh != tokens.refresh && next.session == tokens.session)
            #expect(try await client.call(.get, "/v1/positions", headers: Self.json(next.access)).status == 200)
            let session = try await client.call(.get, "/v1/auth/session", headers: Self.json(next.access))
            #expect((session.body.dataObject["current"] as? [String: Any])?["id"] as? String == tokens.session)
        }
    }

    @Test("presenting a spent refresh token past the grace window revokes the whole session, and the audit log says so")
    func refreshReuseRevokesTheFamily() async throws {
        let clock = TestClock()
        try await APIHarness.with(sessions: SessionSettings(passwordCost: 10, now: { clock.now() })) { harness, client in
            try await Self.prepare(harness, client)
            let tokens = try await Self.login(harness, client)
            let first = try await client.call(.post, "/v1/auth/refresh", headers: Self.json(), json: #"{"refreshToken":"\#(tokens.refresh)"}"#)
            let rotated = try Self.tokens(first.body)
            // The old token again, past the grace window (10 s): someone holds a copy.
            clock.advance(11)
            let reuse = try await client.call(.post, "/v1/auth/refresh", headers: Self.json(), json: #"{"refreshToken":"\#(tokens.refresh)"}"#)
            #expect(reuse.status == 401, "\(reuse.body)")
            // The whole family is revoked: the newest refresh token and the access tokens too.
            let newest = try await client.call(.post, "/v1/auth/refresh", headers: Self.json(), json: #"{"refreshToken":"\#(rotated.refresh)"}"#)
            #expect(newest.status == 401)
            #expect(try await client.call(.get, "/v1/connections", headers: Self.json(rotated.access)).status == 401)
            #expect(try await client.call(.get, "/v1/connections", headers: Self.json(tokens.access)).status == 401)
            let audit = try await client.call(.get, "/v1/audit", headers: Self.json(harness.apiKey))
            let reused = audit.body.dataList.first { $0["action"] as? String == "session.refresh_reuse" }
            #expect(reused?["target"] as? String == tokens.session)
            let text = String(decoding: try JSONSerialization.data(withJSONObject: audit.body), as: UTF8.self)
            #expect(!text.contains(tokens.refresh) && !text.contains(rotated.refresh) && !text.contains(Self.password))
        }
    }

    @Test("concurrent refreshes with one token all get the session's one new refresh token, and the session stays alive")
    func concurrentRefreshes() async throws {
        try await APIHarness.with { harness, client in
            try await Self.prepare(harness, client)
            let tokens = try await Self.login(harness, client)
            let answers = try await withThrowingTaskGroup(of: (status: Int, tokens: Tokens?).self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        let answer = try await client.call(
                            .post,
                            "/v1/auth/refresh",
                            headers: Self.json(),
                            json: #"{"refreshToken":"\#(tokens.refresh)"}"#
                        )
                        return (answer.status, try? Self.tokens(answer.body))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // Within the grace window the racing refreshes are one device's, not a thief's: each gets the token
            // the first rotated to (there is one live refresh token), each with its own working access token.
            #expect(answers.map(\.status) == Array(repeating: 200, count: 6), "\(answers.map(\.status))")
            let issued = answers.compactMap(\.tokens)
            try #require(issued.count == 6)
            #expect(Set(issued.map(\.refresh)).count == 1 && issued[0].refresh != tokens.refresh)
            #expect(Set(issued.map(\.session)) == [tokens.session])
            for access in Set(issued.map(\.access)) {
                #expect(try await client.call(.get, "/v1/connections", headers: Self.json(access)).status == 200)
            }
            // The session lives on: its one live token rotates again.
            let next = try await client.call(.post, "/v1/auth/refresh", headers: Self.json(), json: #"{"refreshToken":"\#(issued[0].refresh)"}"#)
            #expect(next.status == 200, "\(next.body)")
            let session = try #require(try await harness.store.session(id: tokens.session))
            #expect(session.revokedAt == nil)
            // The first token once more, now that its successor was spent too: reuse, and the session is revoked.
            let late = try await client.call(.post, "/v1/auth/refresh", headers: Self.json(), json: #"{"refreshToken":"\#(tokens.refresh)"}"#)
            #expect(late.status == 401)
            #expect(try await harness.store.session(id: tokens.session)?.revokedReason == "refresh_reuse")
        }
    }

    @Test("logout ends this session; logging out a device ends its sessions; logging out everywhere ends all")
    func logoutScopes() async throws {
        try await APIHarness.with { harness, client in
            try await Self.prepare(harness, client)
            let phone = try await Self.login(harness, client, device: "phone")
            let phoneAgain = try await Self.login(harness, client, device: "phone")
            let tablet = try await Self.login(harness, client, device: "tablet")
            let laptop = try await Self.login(harness, client, device: "laptop")
            #expect(phone.device == phoneAgain.device, "the same fingerprint is the same device")

            // This session only.
            #expect(try await client.call(.post, "/v1/auth/logout", headers: Self.json(phone.access)).status == 204)
            #expect(try await client.call(.get, "/v1/connections", headers: Self.json(phone.access)).status == 401)
            #expect(try await client.call(.get, "/v1/connections", headers: Self.json(phoneAgain.access)).status == 200)
            let spentRefresh = try await client.call(.post, "/v1/auth/refresh", headers: Self.json(), json: #"{"refreshToken":"\#(phone.refresh)"}"#)
            #expect(spentRefresh.status == 401)

            // One device (the tablet, from the laptop): its sessions end, the laptop's stay.
            let device = try await client.call(
                .post,
                "/v1/auth/logout/device",
                headers: Self.json(laptop.access),
                json: #"{"deviceId":"\#(tablet.device)"}"#
            )
            #expect(device.status == 200 && device.body.dataObject["revoked"] as? Int == 1, "\(device.body)")
            #expect(try await client.call(.get, "/v1/connections", headers: Self.json(tablet.access)).status == 401)
            #expect(try await client.call(.get, "/v1/connections", headers: Self.json(laptop.access)).status == 200)

            // Everywhere: the phone's second session and the laptop's.
            let all = try await client.call(.post, "/v1/auth/logout/all-devices", headers: Self.json(laptop.access))
            #expect(all.status == 200 && all.body.dataObject["revoked"] as? Int == 2, "\(all.body)")
            for token in [phoneAgain.access, laptop.access] {
                #expect(try await client.call(.get, "/v1/connections", headers: Self.json(token)).status == 401)
            }
            // The devices stay registered, with no live session.
            let devices = try await client.call(.get, "/v1/devices", headers: Self.json(harness.apiKey))
            #expect(devices.body.dataList.count == 3)
            let audit = try await client.call(.get, "/v1/audit?limit=50", headers: Self.json(harness.apiKey))
            let revocations = audit.body.dataList.filter { $0["action"] as? String == "session.revoked" }
            #expect(
                revocations.compactMap { ($0["detail"] as? [String: Any])?["reason"] as? String }.sorted()
                    == ["all_devices_logout", "device_logout", "logout"]
            )
        }
    }

    @Test("a user has at most the configured number of devices; removing one ends its sessions and makes room")
    func deviceLimit() async throws {
        try await APIHarness.with(sessions: SessionSettings(maxDevicesPerUser: 2, passwordCost: 10)) { harness, client in
            try await Self.prepare(harness, client)
            let phone = try await Self.login(harness, client, device: "phone")
            _ = try await Self.login(harness, client, device: "tablet")
            let third = try await client.call(.post, "/v1/auth/login", headers: Self.json(), json: Self.loginBody(harness, device: "laptop"))
            #expect(third.status == 409 && third.body.detailFields == ["device"], "\(third.body)")
            // Trusting and renaming a device, then removing it through the API key acting for the user.
            let trusted = try await client.call(
                .patch,
                "/v1/devices/\(phone.device)",
                headers: Self.json(phone.access),
                json: #"{"trusted":true,"name":"Work phone"}"#
            )
            #expect(trusted.status == 200 && trusted.body.dataObject["trusted"] as? Bool == true, "\(trusted.body)")
            let sessions = try await client.call(.get, "/v1/devices/\(phone.device)/sessions", headers: Self.json(harness.apiKey))
            #expect(sessions.body.dataList.compactMap { $0["id"] as? String } == [phone.session])
            #expect(try await client.call(.delete, "/v1/devices/\(phone.device)", headers: Self.json(harness.apiKey)).status == 204)
            #expect(try await client.call(.get, "/v1/connections", headers: Self.json(phone.access)).status == 401)
            let now = try await client.call(.post, "/v1/auth/login", headers: Self.json(), json: Self.loginBody(harness, device: "laptop"))
            #expect(now.status == 200)
            let audit = try await client.call(.get, "/v1/audit", headers: Self.json(harness.apiKey))
            #expect(audit.body.dataList.contains { $0["action"] as? String == "device.removed" && $0["target"] as? String == phone.device })
        }
    }

    @Test("five wrong passwords in a row lock the user out with Retry-After; a wrong password and an unknown email answer alike, locked or not")
    func lockout() async throws {
        let clock = TestClock()
        try await APIHarness.with(sessions: SessionSettings(passwordCost: 10, now: { clock.now() })) { harness, client in
            try await Self.prepare(harness, client)
            let unknown = try await client.call(
                .post,
                "/v1/auth/login",
                headers: Self.json(),
                json: Self.loginBody(harness, email: "nobody@example.com")
            )
            let wrong = try await client.call(
                .post,
                "/v1/auth/login",
                headers: Self.json(),
                json: Self.loginBody(harness, password: "wrong password!")
            )
            #expect(unknown.status == 401 && wrong.status == 401)
            #expect(unknown.body.errorCode == wrong.body.errorCode)
            #expect(unknown.body.error?["message"] as? String == wrong.body.error?["message"] as? String)
            for _ in 0..<4 {
                #expect(
                    try await client.call(.post, "/v1/auth/login", headers: Self.json(), json: Self.loginBody(harness, password: "wrong password!"))
                        .status == 401
                )
            }
            // Locked: even the right password waits.
            let locked = try await client.call(.post, "/v1/auth/login", headers: Self.json(), json: Self.loginBody(harness))
            #expect(locked.status == 429 && locked.body.errorCode == "rate_limited", "\(locked.body)")
            let retryAfter = try #require(locked.headers[.retryAfter].flatMap(Int.init))
            #expect((1...30).contains(retryAfter))
            // An unknown email locks out exactly alike: nobody learns from a lockout which emails exist.
            for _ in 0..<4 {
                #expect(
                    try await client.call(.post, "/v1/auth/login", headers: Self.json(), json: Self.loginBody(harness, email: "nobody@example.com"))
                        .status == 401
                )
            }
            let lockedUnknown = try await client.call(
                .post,
                "/v1/auth/login",
                headers: Self.json(),
                json: Self.loginBody(harness, email: "nobody@example.com")
            )
            #expect(lockedUnknown.status == 429 && lockedUnknown.body.errorCode == "rate_limited", "\(lockedUnknown.body)")
            #expect(lockedUnknown.body.error?["message"] as? String == locked.body.error?["message"] as? String)
            #expect(lockedUnknown.headers[.retryAfter] == locked.headers[.retryAfter])
            clock.advance(31)
            #expect(try await client.call(.post, "/v1/auth/login", headers: Self.json(), json: Self.loginBody(harness)).status == 200)
            let audit = try await client.call(.get, "/v1/audit?limit=50", headers: Self.json(harness.apiKey))
            #expect(audit.body.dataList.filter { $0["action"] as? String == "login" && $0["outcome"] as? String == "failed" }.count == 10)
            #expect(audit.body.dataList.contains { $0["action"] as? String == "login" && $0["outcome"] as? String == "ok" })
        }
    }

    @Test("a tenant's backend mints a one-time login code for its user; it logs in once, and an access token expires")
    func loginCodeAndExpiry() async throws {
        let clock = TestClock()
        try await APIHarness.with(sessions: SessionSettings(passwordCost: 10, now: { clock.now() })) { harness, client in
            let minted = try await client.call(.post, "/v1/users/\(harness.userId)/login-codes", headers: Self.json(harness.apiKey))
            #expect(minted.status == 201, "\(minted.body)")
            let code = try #require(minted.body.dataObject["code"] as? String)
            let body = #"{"tenantId":"\#(harness.tenant.id)","code":"\#(code)","device":{"name":"Phone","type":"android"}}"#
            let first = try await client.call(.post, "/v1/auth/login", headers: Self.json(), json: body)
            #expect(first.status == 200, "\(first.body)")
            #expect(try await client.call(.post, "/v1/auth/login", headers: Self.json(), json: body).status == 401)
            let tokens = try Self.tokens(first.body)
            #expect(try await client.call(.get, "/v1/connections", headers: Self.json(tokens.access)).status == 200)
            clock.advance(15 * 60 + 1)
            let expired = try await client.call(.get, "/v1/connections", headers: Self.json(tokens.access))
            #expect(expired.status == 401 && (expired.body.error?["message"] as? String)?.contains("expired") == true)
            // The refresh token still works within the session's life.
            #expect(
                try await client.call(.post, "/v1/auth/refresh", headers: Self.json(), json: #"{"refreshToken":"\#(tokens.refresh)"}"#).status == 200
            )
        }
    }
}
