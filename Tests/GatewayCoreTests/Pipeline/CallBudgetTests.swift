import Foundation
import GatewayModel
import GatewayTesting
import Testing

@testable import GatewayCore

@Suite("CallBudget: one request's calls on one connection are bounded before anything is sent")
struct CallBudgetTests {
    @Test("past its limit a call fails rate_limited and never reaches the broker; outside a budget nothing is bounded")
    func boundedCalls() async throws {
        let broker = ScriptedTransport { _, _ in PipelineFixture.status(200) }
        let pipeline = BrokerPipeline(metrics: RecordingMetrics(), settings: PipelineFixture.settings())
        let transport = pipeline.transport(
            wrapping: broker,
            connection: PipelineFixture.connection(),
            limits: [],
            logger: PipelineFixture.logger
        )
        let refused = try await CallBudget.with(limit: 3) {
            var refused: [GatewayError] = []
            for _ in 0..<5 {
                do {
                    _ = try await transport.send(PipelineFixture.get())
                } catch let error as GatewayError {
                    refused.append(error)
                    #expect(CallBudget.isExhaustion(error))
                }
            }
            return refused
        }
        #expect(broker.count == 3)
        #expect(refused.count == 2 && refused.allSatisfy { $0.code == .rateLimited && !$0.retryable })
        #expect(refused.first?.message.contains("limit of 3 calls") == true)
        for _ in 0..<5 { _ = try await transport.send(PipelineFixture.get()) }
        #expect(broker.count == 8)
    }
}
