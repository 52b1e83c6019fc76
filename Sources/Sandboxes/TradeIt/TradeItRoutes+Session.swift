import Foundation
import SandboxKit
import Synchronization

/// Sessions: `user/authenticate`, `user/answerSecurityQuestion`, `user/keepSessionAlive`, `user/closeSession`.
extension TradeItRoutes {
    func authenticate(_ body: TradeItFields) throws -> JSON {
        let apiKey = try sandbox.checkAPIKey(body.string("apiKey"))
        guard let userId = body.string("userId"), !userId.isEmpty, let userToken = body.string("userToken"),
            !userToken.isEmpty
        else { throw TradeItAPIError.parameter("userId and userToken are required.") }
        let now = market.now
        let lifetime = configuration.sessionLifetime
        let result: Result<(String, TradeItSandbox.User), TradeItAPIError> = sandbox.state.withLock { state in
            guard let user = state.users[userId], user.userToken == userToken, user.apiKey == apiKey else {
                return .failure(.tokenExpired)
            }
            if user.tokenExpired { return .failure(.tokenExpired) }
            if user.persona == .fail {
                return .failure(.brokerAuthentication("Check your username and password and try again."))
            }
            let token = "SBX-SESSION-\(state.next())-\(RandomID.suffix(8))"
            state.sessions[token] = TradeItSandbox.Session(
                userId: userId,
                expiresAt: now.addingTimeInterval(lifetime),
                pendingQuestion: user.persona == .dummySecurity
            )
            return .success((token, user))
        }
        let (token, user) = try result.get()
        if user.persona == .dummySecurity { return TradeItWire.question(token: token, message: "Security question") }
        return authenticated(token: token, user: user)
    }

    func authenticated(token: String, user: TradeItSandbox.User) -> JSON {
        let name = sandbox.state.withLock { $0.books[user.accountNumber]?.name } ?? user.accountNumber
        return TradeItWire.authenticated(token: token, accountNumber: user.accountNumber, name: name)
    }

    func answer(_ body: TradeItFields) throws -> JSON {
        guard let token = body.string("token"), !token.isEmpty else { throw TradeItAPIError.parameter("token is required.") }
        guard let answer = body.string("securityAnswer") else { throw TradeItAPIError.parameter("securityAnswer is required.") }
        let now = market.now
        let lifetime = configuration.sessionLifetime
        let answered: TradeItSandbox.User? = sandbox.state.withLock { state in
            guard let session = state.sessions[token], session.expiresAt > now, let user = state.users[session.userId] else {
                return nil
            }
            if session.pendingQuestion, answer.caseInsensitiveCompare(TradeItSandboxConfiguration.securityAnswer) == .orderedSame {
                state.sessions[token]?.pendingQuestion = false
                state.sessions[token]?.expiresAt = now.addingTimeInterval(lifetime)
            }
            return user
        }
        guard let answered else { throw TradeItAPIError.sessionExpired }
        let stillPending = sandbox.state.withLock { $0.sessions[token]?.pendingQuestion ?? true }
        if stillPending { return TradeItWire.question(token: token, message: "Incorrect answer, please try again") }
        return authenticated(token: token, user: answered)
    }

    func keepAlive(_ body: TradeItFields) throws -> JSON {
        let token = body.string("token")
        _ = try sandbox.session(token)
        return TradeItWire.success([], token: token, message: "Session extended")
    }

    func closeSession(_ body: TradeItFields) throws -> JSON {
        let token = body.string("token")
        _ = try sandbox.session(token)
        sandbox.state.withLock { _ = $0.sessions.removeValue(forKey: token ?? "") }
        return TradeItWire.success([], message: "Session closed")
    }
}
