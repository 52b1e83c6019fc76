import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import Testing

/// The ledger tells a placement the pipeline refused before sending (nothing a broker could act on left the
/// gateway) from one whose write went out, so only the first releases its idempotency key.
@Suite("Broker pipeline: what a piece of work sent")
struct BrokerSendLedgerTests {
    func pipelined(_ transport: ScriptedTransport, consecutive: Int = 2) -> any BrokerTransport {
        BrokerPipeline(settings: PipelineFixture.settings(consecutive: consecutive, coolDown: .seconds(30), maxRetries: 0))
            .transport(wrapping: transport, connection: PipelineFixture.connection(), limits: [], logger: PipelineFixture.logger)
    }

    @Test func aWriteHandedToTheTransportCountsAsSentEvenWhenItFails() async throws {
        let broker = ScriptedTransport { _, _ in throw GatewayError(.upstreamUnavailable, "connection reset") }
        let transport = pipelined(broker)
        let ledger = BrokerSendLedger()
        await BrokerSendLedger.$current.withValue(ledger) {
            _ = try? await transport.send(PipelineFixture.get())
            #expect(ledger.nothingWritten == true)
            _ = try? await transport.send(PipelineFixture.post())
        }
        #expect(broker.count == 2)
        #expect(ledger.nothingWritten == false)
    }

    @Test func aWriteAnOpenBreakerRefusedWasNotSent() async throws {
        let broker = ScriptedTransport { _, _ in PipelineFixture.status(503) }
        let transport = pipelined(broker, consecutive: 2)
        for _ in 0..<2 { _ = try await transport.send(PipelineFixture.get()) }
        let ledger = BrokerSendLedger()
        let refused = await BrokerSendLedger.$current.withValue(ledger) {
            await #expect(throws: GatewayError.self) { try await transport.send(PipelineFixture.post()) }
        }
        #expect(refused?.code == .upstreamUnavailable)
        #expect(broker.count == 2)
        #expect(ledger.nothingWritten == true)
    }

    @Test func workThatCalledNothingKnowsNothing() async {
        let ledger = BrokerSendLedger()
        #expect(ledger.nothingWritten == nil)
        // Calls outside the ledger's scope are not its own.
        let broker = ScriptedTransport { _, _ in PipelineFixture.status(200) }
        _ = try? await pipelined(broker).send(PipelineFixture.post())
        #expect(ledger.nothingWritten == nil)
    }
}
