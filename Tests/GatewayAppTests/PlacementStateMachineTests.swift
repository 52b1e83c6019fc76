import Foundation
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import Testing

@testable import GatewayApp

@Suite("App: the placement's decisions, apart from its I/O")
struct PlacementStateMachineTests {
    @Test func claims() {
        #expect(PlacementStateMachine.afterClaim(.claimed(orderId: "ord_1")) == .submit(orderId: "ord_1"))
        #expect(PlacementStateMachine.afterClaim(.existing(orderId: "ord_2")) == .replay(orderId: "ord_2"))
        #expect(PlacementStateMachine.afterClaim(.mismatch(orderId: "ord_3")) == .refuseMismatch)
    }

    @Test(arguments: [
        (GatewayError.Code.upstreamTimeout, PlacementStateMachine.AfterFailure.unknown),
        (.upstreamUnavailable, .unknown), (.malformedResponse, .unknown), (.internalError, .unknown),
        (.rejected, .rejected), (.insufficientFunds, .rejected), (.unprocessable, .rejected), (.forbidden, .rejected),
        // The broker refused before acting, or the egress policy refused its address: the key is released.
        (.rateLimited, .released), (.unauthorized, .released), (.egressRefused, .released),
    ])
    func failuresAfterAWriteWasSent(_ code: GatewayError.Code, _ expected: PlacementStateMachine.AfterFailure) {
        #expect(PlacementStateMachine.afterFailure(GatewayError(code, "x"), nothingWritten: false) == expected)
        // Unknown whether anything was sent (no call went through the pipeline): the same verdicts.
        #expect(PlacementStateMachine.afterFailure(GatewayError(code, "x"), nothingWritten: nil) == expected)
    }

    /// When no write left the gateway (an open breaker, a rate-limit slot past the deadline, time out while waiting),
    /// a failure that would otherwise be unknown certainly did nothing: released. Definite refusals stay refusals.
    @Test(arguments: [
        (GatewayError.Code.upstreamTimeout, PlacementStateMachine.AfterFailure.released),
        (.upstreamUnavailable, .released), (.malformedResponse, .released), (.internalError, .released),
        (.rejected, .rejected), (.unprocessable, .rejected), (.rateLimited, .released), (.unauthorized, .released),
    ])
    func failuresWhenNothingWasWritten(_ code: GatewayError.Code, _ expected: PlacementStateMachine.AfterFailure) {
        #expect(PlacementStateMachine.afterFailure(GatewayError(code, "x"), nothingWritten: true) == expected)
    }

    @Test func replaySteps() {
        typealias Step = PlacementStateMachine.ReplayStep
        let cases: [(JournalState?, Bool, Step)] = [
            (nil, false, .waitForSender), (nil, true, .takeOver),
            (.submitting, false, .waitForSender), (.submitting, true, .reconcile),
            (.unknown, false, .reconcile), (.unknown, true, .reconcile),
            (.rejected, false, .answerRejected), (.accepted, false, .answer), (.accepted, true, .answer),
            (.released, false, .resend), (.released, true, .resend),
        ]
        for (state, passed, expected) in cases {
            #expect(PlacementStateMachine.replayStep(state, senderDeadlinePassed: passed) == expected, "\(String(describing: state)) \(passed)")
        }
        #expect(PlacementStateMachine.outcome(.accepted) == .accepted)
        #expect(PlacementStateMachine.outcome(.unknown) == .unknown)
    }
}

@Suite("App: order digests")
struct OrderDigestTests {
    func request(quantity: Decimal, expiresAt: Date? = nil) -> OrderRequest {
        OrderRequest(
            connectionId: "c",
            accountId: "a",
            instrument: InstrumentReference(symbol: "AAPL"),
            side: .buy,
            type: .market,
            timeInForce: expiresAt == nil ? .day : .gtd,
            quantity: quantity,
            expiresAt: expiresAt
        )
    }

    @Test func sameOrderSameDigestDifferentOrderDifferentDigest() throws {
        #expect(try OrderDigest.hash(request(quantity: 1)) == OrderDigest.hash(request(quantity: 1)))
        #expect(try OrderDigest.hash(request(quantity: 1)) != OrderDigest.hash(request(quantity: 2)))
    }

    @Test func anOrderThatCannotBeEncodedHasNoDigest() throws {
        // A date JSONEncoder cannot write: before, every such order digested as empty data, so two different orders
        // shared one digest and passed the idempotency mismatch check.
        let unencodable = request(quantity: 1, expiresAt: Date(timeIntervalSince1970: .infinity))
        #expect(throws: GatewayError.self) { try OrderDigest.hash(unencodable) }
    }
}
