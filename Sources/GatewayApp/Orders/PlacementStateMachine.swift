import GatewayCore
import GatewayStore

/// The decisions of one placement, kept apart from its I/O (as AsyncHTTPClient keeps `HTTPRequestStateMachine` apart
/// from the channel): each function takes what the I/O learned (the idempotency claim, the broker's answer, the
/// journal's row) and says what happens next. `Gateway+Placement` carries the decisions out; these are tested alone.
enum PlacementStateMachine {
    /// After claiming the idempotency key.
    enum AfterClaim: Equatable, Sendable {
        /// The key is new: journal the intent and call the broker once.
        case submit(orderId: String)
        /// The key was used for the same order: answer with that order's outcome.
        case replay(orderId: String)
        /// The key was used for a different order.
        case refuseMismatch
    }

    static func afterClaim(_ claim: IdempotencyClaim) -> AfterClaim {
        switch claim {
        case .claimed(let orderId): .submit(orderId: orderId)
        case .existing(let orderId): .replay(orderId: orderId)
        case .mismatch: .refuseMismatch
        }
    }

    /// What a broker's failure to answer "placed" means for the order.
    enum AfterFailure: Equatable, Sendable {
        /// The broker may have acted before the answer was lost: journal `unknown`, reconcile, never resend.
        case unknown
        /// The broker said no: journal `rejected` and pass the error on.
        case rejected
    }

    static func afterFailure(_ error: GatewayError) -> AfterFailure {
        [.upstreamTimeout, .upstreamUnavailable, .malformedResponse, .internalError].contains(error.code) ? .unknown : .rejected
    }

    /// What a repeated request does with the journal row of the order its key names.
    enum ReplayStep: Equatable, Sendable {
        /// Another request (perhaps another instance) is still sending it: read the row again shortly.
        case waitForSender
        /// Nothing was journaled before the claimer stopped, so nothing reached the broker: carry it out now.
        case takeOver
        /// The broker rejected it: repeat the rejection.
        case answerRejected
        /// The outcome is not known: reconcile, then answer.
        case reconcile
        /// The broker's answer is known: repeat it.
        case answer
    }

    static func replayStep(_ state: JournalState?, senderDeadlinePassed: Bool) -> ReplayStep {
        switch state {
        case nil: senderDeadlinePassed ? .takeOver : .waitForSender
        case .submitting?: senderDeadlinePassed ? .reconcile : .waitForSender
        case .rejected?: .answerRejected
        case .unknown?: .reconcile
        case .accepted?: .answer
        }
    }

    /// How a placement's answer describes the journal state it ended in.
    static func outcome(_ state: JournalState) -> PlacementResult.Outcome {
        state == .accepted ? .accepted : .unknown
    }
}
