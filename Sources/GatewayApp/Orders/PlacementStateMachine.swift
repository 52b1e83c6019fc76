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
        /// The broker said no: journal `rejected` and pass the error on; the key repeats the refusal.
        case rejected
        /// Certainly nothing happened at the broker, and a retry may well succeed: journal `released` and pass the
        /// error on; the same key sends the order again.
        case released
    }

    /// Failures where the broker refused before acting on the order: it rate-limited the call (a broker's 429, or the
    /// pipeline's own limiter refusing to send) or refused the credentials (401); or the egress policy refused the
    /// broker's address before any connection was made. Nothing happened at the broker, and a later attempt (after
    /// the wait, after a relink, after the operator allows the address) may succeed, so they release the key rather
    /// than burn it.
    static let refusedBeforeActing: Set<GatewayError.Code> = [.rateLimited, .unauthorized, .egressRefused]

    /// Failures after which the broker may have acted: the call was sent and its answer was lost or unreadable.
    static let possiblyActed: Set<GatewayError.Code> = [.upstreamTimeout, .upstreamUnavailable, .malformedResponse, .internalError]

    /// - Parameter nothingWritten: from the placement's `BrokerSendLedger`: `true` when no write reached the
    ///   transport (an open breaker refused it, its rate-limit slot was past the deadline, the time ran out while it
    ///   waited for its turn), `false` when one did, `nil` when unknown. Only `true` turns a possibly-acted failure
    ///   into a release; a definite refusal (`rejected`, `unprocessable`, …) stays one, and so does its answer.
    static func afterFailure(_ error: GatewayError, nothingWritten: Bool?) -> AfterFailure {
        if refusedBeforeActing.contains(error.code) { return .released }
        if possiblyActed.contains(error.code) { return nothingWritten == true ? .released : .unknown }
        return .rejected
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
        /// The earlier attempt reached no broker and released the key: take the row back (compare-and-set) and send
        /// the order again under it.
        case resend
    }

    static func replayStep(_ state: JournalState?, senderDeadlinePassed: Bool) -> ReplayStep {
        switch state {
        case nil: senderDeadlinePassed ? .takeOver : .waitForSender
        case .submitting?: senderDeadlinePassed ? .reconcile : .waitForSender
        case .rejected?: .answerRejected
        case .unknown?: .reconcile
        case .accepted?: .answer
        case .released?: .resend
        }
    }

    /// How a placement's answer describes the journal state it ended in.
    static func outcome(_ state: JournalState) -> PlacementResult.Outcome {
        state == .accepted ? .accepted : .unknown
    }
}
