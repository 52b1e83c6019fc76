import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import LogCapture
import Synchronization
import Testing

@testable import SaxoAdapter

/// The token lifecycle, against a scripted transport and a clock moved by hand.
@Suite("Saxo token lifecycle")
struct TokenTests {
    /// A Saxo that issues `access-N` / `refresh-N` pairs in turn and accepts only the newest access token.
    final class FakeSaxo: Sendable {
        struct State {
            var issued = 0
            var currentAccess: String?
            var currentRefresh = "refresh-token-1"
        }
        let state: Mutex<State>
        let tokenDelay: Duration
        let unauthorizedDelay: Duration
        let expiresIn: Int

        init(currentAccess: String? = nil, tokenDelay: Duration = .zero, unauthorizedDelay: Duration = .zero, expiresIn: Int = 1200) {
            state = Mutex(State(currentAccess: currentAccess))
            self.tokenDelay = tokenDelay
            self.unauthorizedDelay = unauthorizedDelay
            self.expiresIn = expiresIn
        }

        func handle(_ request: BrokerRequest) async throws -> BrokerResponse {
            if request.url.hasSuffix("/token") {
                if tokenDelay > .zero { try await Task.sleep(for: tokenDelay) }
                let form = String(decoding: request.body ?? Data(), as: UTF8.self)
                let answer: (String, String)? = state.withLock { state in
                    guard form.contains("refresh_token=\(state.currentRefresh)") else { return nil }
                    state.issued += 1
                    state.currentAccess = "access-\(state.issued + 1)"
                    state.currentRefresh = "refresh-token-\(state.issued + 1)"
                    return (state.currentAccess!, state.currentRefresh)
                }
                guard let (access, refresh) = answer else {
                    return Fixture.json(#"{"error": "invalid_grant"}"#, status: 400)
                }
                return Fixture.json(Fixture.token(access, refresh: refresh, expiresIn: expiresIn), status: 201)
            }
            let valid = state.withLock { $0.currentAccess }
            guard let token = Fixture.bearer(of: request), token == valid else {
                if unauthorizedDelay > .zero { try await Task.sleep(for: unauthorizedDelay) }
                return BrokerResponse(status: 401)
            }
            return Fixture.json(Fixture.usersMe)
        }
    }

    @Test("a token with more than 60 s left is used as is; within 60 s of expiry it is refreshed first")
    func refreshBeforeExpiry() async throws {
        let clock = TestClock()
        let saxo = FakeSaxo(currentAccess: "access-1")
        let transport = ScriptedTransport { try await saxo.handle($0) }
        var credentials = Fixture.appCredentials
        credentials["accessToken"] = "access-1"
        credentials["accessTokenExpiresAt"] = SaxoTimestamp.format(clock.now.addingTimeInterval(1200))
        let adapter = try Fixture.adapter(transport: transport, credentials: credentials, clock: clock)

        try await adapter.validateCredentials()
        clock.advance(1139)  // 61 s left
        try await adapter.validateCredentials()
        #expect(transport.tokenRequests.isEmpty)

        clock.advance(2)  // 59 s left: refresh before use, the old token never sees a 401
        try await adapter.validateCredentials()
        #expect(transport.tokenRequests.count == 1)
        #expect(transport.requests.count == 4)
        #expect(
            transport.requests(path: "/sim/openapi/port/v1/users/me").map { Fixture.bearer(of: $0) }
                == ["access-1", "access-1", "access-2"]
        )
    }

    @Test("a 401 refreshes once and retries the request with the new token")
    func refreshOnceOn401() async throws {
        // Saxo has revoked access-1 although its expiry says otherwise.
        let saxo = FakeSaxo(currentAccess: "revoked-elsewhere")
        let transport = ScriptedTransport { try await saxo.handle($0) }
        var credentials = Fixture.appCredentials
        credentials["accessToken"] = "access-1"
        credentials["accessTokenExpiresAt"] = "2099-01-01T00:00:00Z"
        let adapter = try Fixture.adapter(transport: transport, credentials: credentials)

        try await adapter.validateCredentials()
        let sent = transport.requests.map { ScriptedTransport.path(of: $0) + " " + (Fixture.bearer(of: $0) ?? "basic") }
        #expect(
            sent == [
                "/sim/openapi/port/v1/users/me access-1", "/token basic", "/sim/openapi/port/v1/users/me access-2",
            ]
        )
    }

    @Test("a 401 after a fresh token is unauthorized, with no second refresh")
    func secondUnauthorizedIsFinal() async throws {
        let transport = ScriptedTransport { request in
            if request.url.hasSuffix("/token") {
                return Fixture.json(Fixture.token("access-2", refresh: "refresh-token-2"), status: 201)
            }
            return BrokerResponse(status: 401)
        }
        var credentials = Fixture.appCredentials
        credentials["accessToken"] = "access-1"
        let adapter = try Fixture.adapter(transport: transport, credentials: credentials)
        let error = await #expect(throws: GatewayError.self) { try await adapter.validateCredentials() }
        #expect(error?.code == .unauthorized)
        #expect(transport.tokenRequests.count == 1)
        #expect(transport.requests.count == 3)
    }

    @Test("20 concurrent callers without a token cause exactly one /token call")
    func singleFlight() async throws {
        let saxo = FakeSaxo(tokenDelay: .milliseconds(200))
        let transport = ScriptedTransport { try await saxo.handle($0) }
        let adapter = try Fixture.adapter(transport: transport, credentials: Fixture.appCredentials)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 { group.addTask { try await adapter.validateCredentials() } }
            try await group.waitForAll()
        }
        #expect(transport.tokenRequests.count == 1)
        let users = transport.requests(path: "/sim/openapi/port/v1/users/me")
        #expect(users.count == 20)
        #expect(users.allSatisfy { Fixture.bearer(of: $0) == "access-2" })
    }

    @Test("20 concurrent callers hit by a 401 on the same stale token cause exactly one /token call")
    func singleFlightAfter401() async throws {
        // Every caller sends the stale token before the first 401 comes back.
        let saxo = FakeSaxo(currentAccess: "revoked-elsewhere", tokenDelay: .milliseconds(100), unauthorizedDelay: .milliseconds(300))
        let transport = ScriptedTransport { try await saxo.handle($0) }
        var credentials = Fixture.appCredentials
        credentials["accessToken"] = "access-1"
        let adapter = try Fixture.adapter(transport: transport, credentials: credentials)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 { group.addTask { try await adapter.validateCredentials() } }
            try await group.waitForAll()
        }
        #expect(transport.tokenRequests.count == 1)
        #expect(transport.requests(path: "/sim/openapi/port/v1/users/me").count == 40)
    }

    @Test("the rotated refresh token, the access token and its expiry are persisted; other keys are kept")
    func rotationPersisted() async throws {
        let clock = TestClock()
        let saved = SavedState()
        let saxo = FakeSaxo()
        let transport = ScriptedTransport { try await saxo.handle($0) }
        let adapter = try Fixture.adapter(
            transport: transport,
            credentials: Fixture.appCredentials,
            clock: clock,
            saved: saved
        )
        try await adapter.validateCredentials()

        let token = try #require(transport.tokenRequests.first)
        #expect(token.header("Authorization") == "Basic " + Data("app-key:app-secret".utf8).base64EncodedString())
        #expect(token.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(
            String(decoding: token.body ?? Data(), as: UTF8.self)
                == "grant_type=refresh_token&refresh_token=refresh-token-1"
        )

        let stored = try #require(saved.savedCredentials.last)
        #expect(stored["refreshToken"] == "refresh-token-2")
        #expect(stored["accessToken"] == "access-2")
        #expect(stored["accessTokenExpiresAt"].flatMap(SaxoTimestamp.parse) == clock.now.addingTimeInterval(1200))
        #expect(stored["appKey"] == "app-key")
        #expect(stored["appSecret"] == "app-secret")

        // The next refresh spends the rotated token, not the original one.
        clock.advance(1200)
        try await adapter.validateCredentials()
        #expect(transport.tokenRequests.count == 2)
        #expect(saved.savedCredentials.last?["refreshToken"] == "refresh-token-3")
    }

    @Test("a dead refresh token marks the connection relink_required and answers unauthorized, once")
    func deadRefreshToken() async throws {
        let saved = SavedState()
        let transport = ScriptedTransport { request in
            if request.url.hasSuffix("/token") { return Fixture.json(#"{"error": "invalid_grant"}"#, status: 400) }
            Issue.record("no API call should be made with a dead token")
            return BrokerResponse(status: 500)
        }
        let adapter = try Fixture.adapter(transport: transport, credentials: Fixture.appCredentials, saved: saved)
        for _ in 0..<3 {
            let error = await #expect(throws: GatewayError.self) { try await adapter.accounts() }
            #expect(error?.code == .unauthorized)
            #expect(error?.message.contains("re-authorize") == true)
            #expect(error?.retryable == false)
        }
        #expect(transport.tokenRequests.count == 1)
        #expect(saved.savedStatuses.count == 1)
        #expect(saved.savedStatuses.first?.0 == .relinkRequired)
        #expect(saved.savedStatuses.first?.1?["reason"]?.contains("refresh token") == true)
        #expect(saved.savedCredentials.isEmpty)
    }

    @Test("an access token alone (no refresh token) works until it expires, then asks for relinking")
    func accessTokenOnly() async throws {
        let clock = TestClock()
        let saved = SavedState()
        let transport = ScriptedTransport { _ in Fixture.json(Fixture.usersMe) }
        let adapter = try Fixture.adapter(
            transport: transport,
            credentials: [
                "accessToken": "portal-token",
                "accessTokenExpiresAt": SaxoTimestamp.format(clock.now.addingTimeInterval(30)),
            ],
            clock: clock,
            saved: saved
        )
        try await adapter.validateCredentials()  // 30 s left: used to the end, no refresh possible
        // Proving it says when it stops working.
        #expect(saved.savedStatuses.first?.0 == .active)
        let expiresAt = saved.savedStatuses.first?.1?["expiresAt"].flatMap(RFC3339Timestamp.parse)
        #expect(expiresAt.map { abs($0.timeIntervalSince(clock.now.addingTimeInterval(30))) < 0.01 } == true)
        clock.advance(31)
        let error = await #expect(throws: GatewayError.self) { try await adapter.validateCredentials() }
        #expect(error?.code == .unauthorized)
        #expect(saved.savedStatuses.last?.0 == .relinkRequired)
        #expect(transport.tokenRequests.isEmpty)
    }

    @Test("a failing token endpoint (5xx) is upstream_unavailable, not a relink")
    func tokenEndpointDown() async throws {
        let saved = SavedState()
        let transport = ScriptedTransport { _ in BrokerResponse(status: 503) }
        let adapter = try Fixture.adapter(transport: transport, credentials: Fixture.appCredentials, saved: saved)
        let error = await #expect(throws: GatewayError.self) { try await adapter.validateCredentials() }
        #expect(error?.code == .upstreamUnavailable)
        #expect(saved.savedStatuses.isEmpty)
    }

    @Test("when the caller leading a refresh is cancelled, a waiting caller takes over")
    func leaderCancelled() async throws {
        let calls = Mutex(0)
        let (leaderExchanging, exchangeStarted) = AsyncStream.makeStream(of: Void.self)
        let transport = ScriptedTransport { request in
            if request.url.hasSuffix("/token") {
                let call = calls.withLock {
                    $0 += 1
                    return $0
                }
                if call == 1 {
                    exchangeStarted.yield()
                    try await Task.sleep(for: .seconds(30))  // the leader's exchange hangs until cancelled
                }
                return Fixture.json(Fixture.token("access-2", refresh: "refresh-token-2"), status: 201)
            }
            return Fixture.json(Fixture.usersMe)
        }
        let adapter = try Fixture.adapter(transport: transport, credentials: Fixture.appCredentials)
        let leader = Task { try await adapter.validateCredentials() }
        var started = leaderExchanging.makeAsyncIterator()
        await started.next()
        let follower = Task { try await adapter.validateCredentials() }
        try await Task.sleep(for: .milliseconds(50))
        leader.cancel()
        await #expect(throws: (any Error).self) { try await leader.value }
        try await follower.value
        #expect(transport.tokenRequests.count == 2)
    }

    @Test("secrets never appear in logs or error messages")
    func noSecretsLeak() async throws {
        let logs = LogCapture()
        let saxo = FakeSaxo(currentAccess: "revoked-elsewhere")
        let transport = ScriptedTransport { try await saxo.handle($0) }
        var credentials = Fixture.appCredentials
        credentials["accessToken"] = "access-1"
        let adapter = try Fixture.adapter(transport: transport, credentials: credentials, logs: logs)
        try await adapter.validateCredentials()

        let dead = try Fixture.adapter(
            transport: ScriptedTransport { _ in Fixture.json(#"{"error": "invalid_grant"}"#, status: 400) },
            credentials: Fixture.appCredentials,
            logs: logs
        )
        let error = await #expect(throws: GatewayError.self) { try await dead.validateCredentials() }

        let secrets = [
            "app-secret", "refresh-token-1", "refresh-token-2", "access-1", "access-2",
            Data("app-key:app-secret".utf8).base64EncodedString(),
        ]
        let texts = logs.lines + [error.map { "\($0) \($0.message) \($0.brokerCode ?? "")" } ?? ""]
        #expect(!logs.lines.isEmpty)
        for text in texts {
            for secret in secrets { #expect(!text.contains(secret), "\(text)") }
        }
        let configuration = try SaxoConfiguration(
            baseURL: Fixture.baseURL,
            settings: [:],
            credentials: BrokerCredentials(credentials)
        )
        #expect(!"\(configuration.credentials)".contains("access-1"))
    }
}
