public import GatewayModel

/// The start of an interactive link: where to send the user's browser.
public struct LinkStart: Codable, Sendable, Hashable {
    /// The broker's login page (a popup or a browser tab).
    public var popupURL: String

    /// A link start pointing the browser at `popupURL`.
    public init(popupURL: String) {
        self.popupURL = popupURL
    }
}

/// A question the broker asks before it opens a session (TradeIt's security question).
public struct Challenge: Codable, Sendable, Hashable {
    /// The broker's question, to show the user.
    public var question: String
    /// The answers to choose from, for a multiple-choice question; empty when the answer is free text.
    public var options: [String]

    /// A challenge; `options` defaults to none, a free-text answer.
    public init(question: String, options: [String] = []) {
        self.question = question
        self.options = options
    }
}

/// What authenticating a connection came to.
public enum AuthenticationOutcome: Sendable, Hashable {
    /// A session is open; calls may proceed.
    case authenticated
    /// The broker asks a question first; the connection becomes `challenge_required` until it is answered.
    case challengeRequired(Challenge)
}

/// Brokers whose users link by an interactive login (OAuth popup) rather than by pasting API keys, and whose
/// sessions may ask questions. The gateway drives these flows through `/v1/connections`.
public protocol LinkingAdapter: BrokerAdapter {
    /// Starts a link (or, with `relink`, a token update of an existing link): the popup URL, which redirects to
    /// `callbackURL` with the broker's verifier when the user has logged in.
    func startLink(callbackURL: String, relink: Bool) async throws -> LinkStart
    /// Exchanges the verifier for the long-lived credentials to store (encrypted) for the connection.
    func completeLink(verifier: String) async throws -> BrokerCredentials
    /// Opens (or re-opens) a session now. A security question is an outcome, not an error.
    func authenticate() async throws -> AuthenticationOutcome
    /// Answers the pending question; may lead to another question.
    func answerChallenge(_ answer: String) async throws -> AuthenticationOutcome
}
