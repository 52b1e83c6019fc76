import Foundation
import GatewayCore

/// An open TradeIt session: the token every account call carries, and the accounts `user/authenticate` listed.
struct TradeItOpenSession: Sendable {
    var token: String
    var accounts: [TradeItBrokerAccount]
    var openedAt: Date
}

/// What opening a session came to.
enum TradeItSessionOutcome: Sendable {
    case open(TradeItOpenSession)
    /// The broker asks a question first; `token` answers it.
    case challenge(token: String, Challenge)
}

/// The connection's session: one token shared by every caller, opened once for many (single flight), reopened when it
/// is older than its lifetime or the broker says it expired. An actor because the state really is a conversation.
actor TradeItSessionStore {
    private var open: TradeItOpenSession?
    private var pending: (token: String, challenge: Challenge)?
    private var authenticating = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    /// Completed authentication attempts, and how the last one ended: waiters share its failure instead of
    /// repeating a call that just failed.
    private var attempts = 0
    private var lastFailure: (any Error)?

    /// The session to use. `stale` is a token the broker just refused (code 600): it is not handed out again.
    /// `force` reopens whatever the state (an explicit `authenticate()`).
    func obtain(
        stale: String? = nil,
        force: Bool = false,
        maxAge: TimeInterval,
        now: @Sendable () -> Date,
        authenticate: @Sendable () async throws -> TradeItSessionOutcome
    ) async throws -> TradeItSessionOutcome {
        var forced = force
        while true {
            if !forced {
                if let open, open.token != stale, now().timeIntervalSince(open.openedAt) < maxAge { return .open(open) }
                if let pending, stale == nil { return .challenge(token: pending.token, pending.challenge) }
            }
            if authenticating {
                let seen = attempts
                await withCheckedContinuation { waiters.append($0) }
                if attempts > seen, let lastFailure, !(lastFailure is CancellationError) { throw lastFailure }
                forced = false
                continue
            }
            authenticating = true
            open = nil
            pending = nil
            let outcome: TradeItSessionOutcome
            do {
                outcome = try await authenticate()
            } catch {
                finish(failure: error)
                throw error
            }
            switch outcome {
            case .open(let session): open = session
            case .challenge(let token, let challenge): pending = (token, challenge)
            }
            finish(failure: nil)
            return outcome
        }
    }

    private func finish(failure: (any Error)?) {
        attempts += 1
        lastFailure = failure
        authenticating = false
        let waiting = waiters
        waiters.removeAll()
        for waiter in waiting { waiter.resume() }
    }

    /// The token of the pending question, if any.
    func pendingToken() -> String? { pending?.token }

    /// Records the outcome of answering a question.
    func settle(_ outcome: TradeItSessionOutcome) {
        switch outcome {
        case .open(let session):
            open = session
            pending = nil
        case .challenge(let token, let challenge):
            open = nil
            pending = (token, challenge)
        }
    }

    func current() -> TradeItOpenSession? { open }
}
