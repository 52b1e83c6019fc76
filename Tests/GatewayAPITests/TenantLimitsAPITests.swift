import Foundation
import GatewayAPI
import GatewayApp
import GatewayCore
import GatewaySQLiteStore
import GatewayStore
import HTTPTypes
import Testing

@Suite("API: limits per tenant and per key")
struct TenantLimitsAPITests {
    @Test("a tenant over its request rate gets 429 with Retry-After; another tenant is answered meanwhile")
    func tenantRate() async throws {
        let limits = TenantLimits(tenantRequestsPerSecond: 1, tenantBurst: 3, keyRequestsPerSecond: 1000, keyBurst: 1000)
        try await APIHarness.with(limits: limits) { harness, client in
            let other = try await harness.store.createTenant(name: "Tenant B")
            let otherKey = try await harness.store.issueDefaultUserKey(tenantId: other.id, label: "b")
            // Twenty requests at once against a burst of three refilled once a second: most find the bucket empty,
            // however slow the machine.
            struct Answer: Sendable {
                var status: Int
                var code: String?
                var retryable: Bool?
                var retryAfter: String?
            }
            let auth = harness.auth
            let answers = try await withThrowingTaskGroup(of: Answer.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        let response = try await client.call(.get, "/v1/tenant", headers: auth)
                        return Answer(
                            status: response.status,
                            code: response.body.errorCode,
                            retryable: response.body.error?["retryable"] as? Bool,
                            retryAfter: response.headers[.retryAfter]
                        )
                    }
                }
                var all: [Answer] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            #expect(answers.allSatisfy { [200, 429].contains($0.status) })
            #expect(answers.filter { $0.status == 200 }.count >= 3)
            let answer = try #require(answers.first { $0.status == 429 }, "the tenant was never refused")
            #expect(answer.code == "rate_limited")
            #expect(answer.retryable == true)
            let retryAfter = try #require(answer.retryAfter.flatMap { Int($0) })
            #expect(retryAfter >= 1)
            let otherAnswer = try await client.call(
                .get,
                "/v1/tenant",
                headers: [.authorization: "Bearer \(otherKey.plaintext)"]
            )
            #expect(otherAnswer.status == 200, "tenant B is not limited by tenant A's rate")
        }
    }

    @Test("a key over its own rate is refused while another key of the same tenant is answered")
    func keyRate() async throws {
        let limits = TenantLimits(tenantRequestsPerSecond: 1000, tenantBurst: 1000, keyRequestsPerSecond: 1, keyBurst: 2)
        try await APIHarness.with(limits: limits) { harness, client in
            let second = try await harness.store.issueDefaultUserKey(tenantId: harness.tenant.id, label: "second")
            let auth = harness.auth
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await client.call(.get, "/v1/tenant", headers: auth).status }
                }
                var all: [Int] = []
                for try await status in group { all.append(status) }
                return all
            }
            #expect(statuses.contains(429))
            let other = try await client.call(.get, "/v1/tenant", headers: [.authorization: "Bearer \(second.plaintext)"])
            #expect(other.status == 200)
        }
    }

    @Test("unknown keys are refused before any limit is charged (no bucket per guessed key)")
    func unknownKeysDoNotReachTheLimiter() async throws {
        let limits = TenantLimits(tenantRequestsPerSecond: 1, tenantBurst: 1, keyRequestsPerSecond: 1, keyBurst: 1)
        try await APIHarness.with(limits: limits) { harness, client in
            for _ in 0..<5 {
                let response = try await client.call(
                    .get,
                    "/v1/tenant",
                    headers: [.authorization: "Bearer bgw_aaaaaaaaaaaa_\(String(repeating: "0", count: 64))"]
                )
                #expect(response.status == 401)
            }
            #expect(try await client.call(.get, "/v1/tenant", headers: harness.auth).status == 200)
        }
    }
}
