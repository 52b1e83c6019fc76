import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import HTTPTypes
import HummingbirdTesting
import Synchronization
import Testing

/// A clock the test moves: link states are timed by it.
final class TestClock: Sendable {
    let date = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    func now() -> Date { date.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
}

/// The OAuth callback and `/link` against link states that are indexed, timed and spent before the broker is called.
@Suite("API: interactive links and their state")
struct LinkStateAPITests {
    /// A harness with a broker that links through its login page, on a clock the test moves.
    func with(
        _ clock: TestClock = TestClock(),
        _ linking: FakeLinkingState = FakeLinkingState(),
        _ body: @escaping @Sendable (APIHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        let brokers = FakeBrokerState()
        try await APIHarness.with(
            brokerState: brokers,
            moreFactories: [FakeLinkingFactory(state: linking, brokers: brokers)],
            linking: LinkSettings(now: { clock.now() }),
            body
        )
    }

    /// Starts a link through the API: the connection id and the callback path with its state (no verifier yet).
    func start(_ harness: APIHarness, _ client: any TestClientProtocol) async throws -> (id: String, callback: String) {
        let started = try await client.call(
            .post,
            "/v1/connections",
            headers: harness.auth,
            json: #"{"broker":"tradeit","credentials":{"apiKey":"k"}}"#
        )
        try #require(started.status == 202, "\(started.body)")
        return try pending(started.body.dataObject)
    }

    func pending(_ data: [String: Any]) throws -> (id: String, callback: String) {
        let id = try #require((data["connection"] as? [String: Any])?["id"] as? String)
        let popupURL = try #require(data["popupURL"] as? String)
        let popup = try #require(URLComponents(string: popupURL))
        let callbackURL = try #require(popup.queryItems?.first { $0.name == "callback" }?.value)
        let callback = try #require(URLComponents(string: callbackURL))
        #expect(callback.path == "/v1/connections/\(id)/oauth/callback")
        return (id, callback.path + "?" + (callback.percentEncodedQuery ?? ""))
    }

    func status(_ harness: APIHarness, _ client: any TestClientProtocol, _ id: String) async throws -> String? {
        try await client.call(.get, "/v1/connections/\(id)", headers: harness.auth).body.dataObject["status"] as? String
    }

    /// The problem the error body names for `state`.
    func stateProblem(_ body: [String: Any]) -> String? {
        (body.error?["details"] as? [[String: Any]])?.first { $0["field"] as? String == "state" }?["problem"] as? String
    }

    @Test func aCallbackCompletesTheLinkOnceAndItsReplayIsRefused() async throws {
        let linking = FakeLinkingState()
        try await with(TestClock(), linking) { harness, client in
            let (id, callback) = try await start(harness, client)
            let landed = try await client.call(.get, callback + "&oAuthVerifier=v1", headers: [:])
            #expect(landed.status == 200)
            #expect(try await status(harness, client, id) == "active")
            let replay = try await client.call(.get, callback + "&oAuthVerifier=v1", headers: [:])
            #expect(replay.status == 409)
            #expect(replay.body.errorCode == "conflict")
            #expect(stateProblem(replay.body) == "has already been used")
            #expect(linking.completionCount == 1, "the replay never reached the broker")
        }
    }

    @Test func ofTwoConcurrentCallbacksWithOneStateExactlyOneProceeds() async throws {
        let linking = FakeLinkingState()
        let gate = LinkGate()
        try await with(TestClock(), linking) { harness, client in
            let (id, callback) = try await start(harness, client)
            linking.gate.withLock { $0 = gate }
            try await withThrowingTaskGroup(of: Int.self) { group in
                group.addTask { try await client.call(.get, callback + "&oAuthVerifier=first", headers: [:]).status }
                // The first callback is at the broker, holding its exchange open: the state is spent already.
                var entered = gate.entered.makeAsyncIterator()
                _ = await entered.next()
                let second = try await client.call(.get, callback + "&oAuthVerifier=second", headers: [:])
                #expect(second.status == 409)
                #expect(stateProblem(second.body) == "has already been used")
                #expect(linking.completionCount == 1, "the second callback never reached the broker")
                gate.release()
                #expect(try await group.next() == 200)
            }
            #expect(try await status(harness, client, id) == "active")
            let stored = try await harness.store.credentials(tenantId: harness.tenant.id, connectionId: id)
            #expect(stored["userToken"] == "t-first")
        }
    }

    @Test func ofManySimultaneousCallbacksWithOneStateOneSucceeds() async throws {
        let linking = FakeLinkingState()
        try await with(TestClock(), linking) { harness, client in
            let (_, callback) = try await start(harness, client)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<8 {
                    group.addTask { try await client.call(.get, callback + "&oAuthVerifier=v\(index)", headers: [:]).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 409 }.count == 7)
            #expect(linking.completionCount == 1)
        }
    }

    @Test func anExpiredStateIsRefusedAndTheConnectionStaysPendingAndRelinkable() async throws {
        let clock = TestClock()
        let linking = FakeLinkingState()
        try await with(clock, linking) { harness, client in
            let (id, callback) = try await start(harness, client)
            clock.advance(601)
            let late = try await client.call(.get, callback + "&oAuthVerifier=v1", headers: [:])
            #expect(late.status == 409)
            #expect(stateProblem(late.body) == "has expired")
            #expect((late.body.error?["message"] as? String)?.contains("/relink") == true)
            #expect(linking.completionCount == 0)
            #expect(try await status(harness, client, id) == "pending_link")
            // So is completing it with the key.
            let keyed = try await client.call(
                .post,
                "/v1/connections/\(id)/link",
                headers: harness.auth,
                json: #"{"oAuthVerifier":"v1"}"#
            )
            #expect(keyed.status == 409)
            #expect(stateProblem(keyed.body) == "has expired")

            // Relinking a link that never completed starts a new login (not a token update), with a new state.
            let relinked = try await client.call(.post, "/v1/connections/\(id)/relink", headers: harness.auth)
            #expect(relinked.status == 200)
            let (_, fresh) = try pending(relinked.body.dataObject)
            #expect(fresh != callback)
            #expect(linking.starts.withLock { $0 } == [false, false])
            // The old state is gone with the new link.
            #expect(try await client.call(.get, callback + "&oAuthVerifier=v1", headers: [:]).status == 403)
            #expect(try await client.call(.get, fresh + "&oAuthVerifier=v2", headers: [:]).status == 200)
            #expect(try await status(harness, client, id) == "active")
        }
    }

    @Test func anUnknownStateOrOneOfAnotherConnectionIsRefusedAndSpendsNothing() async throws {
        let linking = FakeLinkingState()
        try await with(TestClock(), linking) { harness, client in
            let (id, callback) = try await start(harness, client)
            let (otherId, _) = try await start(harness, client)
            let forged = try await client.call(.get, "/v1/connections/\(id)/oauth/callback?state=forged&oAuthVerifier=x", headers: [:])
            #expect(forged.status == 403)
            #expect(forged.body.errorCode == "forbidden")
            // The right state on another connection's path: refused, and the state is still good for its own.
            let query = try #require(callback.split(separator: "?", maxSplits: 1).last)
            let crossed = try await client.call(.get, "/v1/connections/\(otherId)/oauth/callback?\(query)&oAuthVerifier=x", headers: [:])
            #expect(crossed.status == 403)
            #expect(linking.completionCount == 0)
            #expect(try await client.call(.get, callback + "&oAuthVerifier=v1", headers: [:]).status == 200)
        }
    }

    @Test func completingWithTheKeySpendsTheLinkToo() async throws {
        let linking = FakeLinkingState()
        try await with(TestClock(), linking) { harness, client in
            let (id, callback) = try await start(harness, client)
            let linked = try await client.call(
                .post,
                "/v1/connections/\(id)/link",
                headers: harness.auth,
                json: #"{"oAuthVerifier":"v1"}"#
            )
            #expect(linked.status == 200)
            let again = try await client.call(
                .post,
                "/v1/connections/\(id)/link",
                headers: harness.auth,
                json: #"{"oAuthVerifier":"v1"}"#
            )
            #expect(again.status == 409)
            #expect(try await client.call(.get, callback + "&oAuthVerifier=v1", headers: [:]).status == 409)
            #expect(linking.completionCount == 1)
        }
    }

    @Test func aBrokerThatRefusesAfterTheStateIsSpentLeavesTheLinkPendingAndRelinkable() async throws {
        let linking = FakeLinkingState()
        try await with(TestClock(), linking) { harness, client in
            let (id, callback) = try await start(harness, client)
            let refused = try await client.call(.get, callback + "&oAuthVerifier=refuse", headers: [:])
            #expect(refused.status == 422)
            #expect(refused.body.detailFields == ["oAuthVerifier"])
            #expect(try await status(harness, client, id) == "pending_link")
            let relinked = try await client.call(.post, "/v1/connections/\(id)/relink", headers: harness.auth)
            let (_, fresh) = try pending(relinked.body.dataObject)
            #expect(try await client.call(.get, fresh + "&oAuthVerifier=v2", headers: [:]).status == 200)
            #expect(try await status(harness, client, id) == "active")
            #expect(linking.completionCount == 2)
        }
    }
}
