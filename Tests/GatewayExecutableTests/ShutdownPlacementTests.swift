import AsyncHTTPClient
import ChildProcess
import Foundation
import GatewayPostgresStore
import GatewayStore
import NIOCore
import Testing

#if canImport(Glibc)
import Glibc
import TestWorlds

/// `SIGTERM` during 50 concurrent placements loses and doubles nothing (issue 31): two `gateway serve` processes on
/// one PostgreSQL database, the broker (the Alpaca sandbox, a process of its own) taking 1.5 s over every placement,
/// and one instance stopped while its placements are under way. With a grace longer than a placement they finish and
/// are answered; with a grace shorter than one they are cancelled mid-call. Either way every order the broker has is
/// the journal's `accepted` one, once, every answered order is in the journal, and nothing is left `submitting` or
/// `unknown` once the other instance has reconciled. Needs `BROKERGATEWAY_TEST_POSTGRES_URL`.
@Suite("Shutdown: SIGTERM during placements loses and doubles nothing", .heavyWorld)
struct ShutdownPlacementTests {
    /// How one placement ended for its client.
    enum Outcome: Sendable {
        /// An answer: its status and, for a placed order, its id.
        case answered(Int, orderId: String?, body: String)
        /// No answer: the connection was refused or cut as the instance stopped.
        case noAnswer(String)
    }

    @Test(
        "SIGTERM during 50 placements: each answered or journaled, then reconciled; none left submitting",
        .enabled(if: MultiInstanceProcessTests.postgresURL != nil, "BROKERGATEWAY_TEST_POSTGRES_URL is not set"),
        .timeLimit(.minutes(10)),
        arguments: [15_000, 300]
    )
    func sigtermDuringPlacements(graceMs: Int) async throws {
        try await Cluster.with(instances: 2, serving: ["--shutdown-grace-ms", String(graceMs)]) { cluster in
            let victim = cluster.instances[0]
            try await cluster.setFaults([["kind": "latency", "latencyMs": 1500, "method": "POST", "pathPrefix": "/v2/orders"]])
            let body = try JSONSerialization.data(withJSONObject: cluster.orderBody(limitPrice: "50"))
            let (firstAnswer, firstAnswerGiven) = AsyncStream.makeStream(of: Void.self)
            // A connection per placement, so that all 50 are at the gateway at once (the shared client holds 8).
            let client = HTTPClient(
                eventLoopGroupProvider: .singleton,
                configuration: .init(connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64))
            )
            let outcomes = await withTaskGroup(of: Outcome.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        defer { firstAnswerGiven.yield() }
                        do {
                            let (status, object) = try await cluster.send(
                                "POST",
                                victim.url + "/v1/orders",
                                json: body,
                                headers: ["Idempotency-Key": "shutdown-\(graceMs)-\(index)-\(UUID().uuidString)"],
                                client: client
                            )
                            let id = (object["data"] as? [String: Any])?["id"] as? String
                            return .answered(status, orderId: id, body: "\(object)")
                        } catch {
                            return .noAnswer("\(error)")
                        }
                    }
                }
                // The first placement to end (it took the broker's 1.5 s) is the moment: the others are under way, at
                // the broker or waiting for a rate-limit slot.
                for await _ in firstAnswer { break }
                victim.process.send(SIGTERM)
                var outcomes: [Outcome] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            try await client.shutdown()
            // The grace, then at most 10 s for the cancelled services; room for a loaded machine.
            let ended = await victim.process.termination(within: .milliseconds(graceMs) + .seconds(40))
            #expect(ended == .exited(0), "the stopped instance: \(ended.map(\.description) ?? "still running")")
            try await cluster.setFaults([])

            var answeredIds: Set<String> = []
            for outcome in outcomes {
                guard case .answered(let status, let orderId, let text) = outcome else { continue }
                // A placed order (201, or 202 when the broker's answer did not come), or a clear refusal: never a 500.
                #expect([201, 202, 429, 503].contains(status), "status \(status): \(text)")
                if let orderId, [201, 202].contains(status) { answeredIds.insert(orderId) }
            }
            if graceMs > 2000 {
                // Every placement under way when the signal came was allowed to finish and was answered.
                #expect(!answeredIds.isEmpty)
            }

            // The surviving instance reconciles what the stopped one left `submitting` or `unknown`.
            let journal = try await cluster.journalWhenSettled()
            let byId = Dictionary(uniqueKeysWithValues: journal.map { ($0.id, $0) })
            for id in answeredIds {
                #expect(byId[id] != nil, "answered order \(id) is not in the journal")
            }
            let unsettled = journal.filter { [.submitting, .unknown].contains($0.state) }
            #expect(unsettled.isEmpty, "left unsettled: \(unsettled.map { "\($0.id) \($0.state)" })")

            // The broker's truth: exactly the journal's accepted orders, each once.
            let atBroker = try await cluster.brokerOrders().compactMap { $0["client_order_id"] as? String }
            let accepted = journal.filter { $0.state == .accepted }.map(\.clientOrderId)
            #expect(atBroker.count == Set(atBroker).count, "an order was placed twice at the broker")
            #expect(Set(atBroker) == Set(accepted), "broker \(atBroker.count) orders, journal \(accepted.count) accepted")
        }
    }
}

extension Cluster {
    /// The tenant's journal, read from the database once nothing in it is `submitting` or `unknown` (another process
    /// resolves those in its background reconciler: there is no event here to await, so the journal is polled).
    func journalWhenSettled() async throws -> [JournaledOrder] {
        let cipher = try CredentialCipher.load(environment: secrets, dataDirectory: URL(fileURLWithPath: data))
        return try await PostgresStore.withStore(settings: try PostgresStoreSettings(url: databaseURL), cipher: cipher) { store in
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(180)
            while true {
                let unsettled = try await store.journaledOrders(tenantId: tenantId, in: [.submitting, .unknown], limit: 500)
                if unsettled.isEmpty || clock.now >= deadline {
                    return try await store.journaledOrders(
                        tenantId: tenantId,
                        in: [.submitting, .accepted, .rejected, .unknown, .released],
                        limit: 500
                    )
                }
                try await Task.sleep(for: .milliseconds(250))
            }
        }
    }
}
#endif
