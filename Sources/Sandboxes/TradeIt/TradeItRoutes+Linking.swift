import Foundation
import Hummingbird
import SandboxKit
import Synchronization

/// Brokers and linking: `preference/getBrokerList`, the login popup URLs, `user/getOAuthAccessToken`, `user/oAuthDelete`.
extension TradeItRoutes {
    func brokerList(_ body: TradeItFields) throws -> JSON {
        _ = try sandbox.checkAPIKey(body.string("apiKey"))
        return TradeItWire.brokerList()
    }

    enum PopupKind { case mobile, webApp, tokenUpdate }

    func popup(_ body: TradeItFields, _ request: Request, kind: PopupKind) throws -> JSON {
        let apiKey = try sandbox.checkAPIKey(body.string("apiKey"))
        try checkBroker(body.string("broker"))
        var callback: String?
        if kind != .webApp {
            callback = body.string("interAppAddressCallback")
            if kind == .mobile, callback?.isEmpty ?? true { throw TradeItAPIError.parameter("interAppAddressCallback is required.") }
            if callback?.isEmpty ?? false { callback = nil }
        }
        var relinkUserId: String?
        if kind == .tokenUpdate {
            guard let userId = body.string("userId"), let userToken = body.string("userToken") else {
                throw TradeItAPIError.parameter("userId and userToken are required.")
            }
            let known = sandbox.state.withLock { $0.users[userId]?.userToken == userToken }
            guard known else { throw TradeItAPIError.tokenExpired }
            relinkUserId = userId
        }
        let tempToken = RandomID.uuid()
        let expiresAt = market.now.addingTimeInterval(configuration.verifierLifetime)
        sandbox.state.withLock {
            $0.popups[tempToken] = TradeItSandbox.Popup(
                apiKey: apiKey,
                callback: callback,
                relinkUserId: relinkUserId,
                expiresAt: expiresAt
            )
        }
        let host = request.head.authority ?? "127.0.0.1"
        let url = "http://\(host)/sandbox/login?oAuthTempToken=\(tempToken)"
        return TradeItWire.success([.init(key: "oAuthURL", value: .string(url))], message: "Success")
    }

    func checkBroker(_ broker: String?) throws(TradeItAPIError) {
        guard let broker, !broker.isEmpty else { throw TradeItAPIError.parameter("broker is required.") }
        guard broker.caseInsensitiveCompare(TradeItSandboxConfiguration.dummyBroker) == .orderedSame else {
            throw TradeItAPIError.parameter("The broker \(broker) is not available for this API key.")
        }
    }

    func accessToken(_ body: TradeItFields) throws -> JSON {
        let apiKey = try sandbox.checkAPIKey(body.string("apiKey"))
        guard let verifierText = body.string("oAuthVerifier"), !verifierText.isEmpty else {
            throw TradeItAPIError.parameter("oAuthVerifier is required.")
        }
        let now = market.now
        let result: Result<(String, String), TradeItAPIError> = sandbox.state.withLock { state in
            guard let verifier = state.verifiers.removeValue(forKey: verifierText), verifier.expiresAt > now,
                verifier.apiKey == apiKey
            else {
                return .failure(.brokerAuthentication("The oAuthVerifier is invalid or has expired; please log in again."))
            }
            let user = TradeItSandbox.createUser(
                verifier.persona,
                apiKey: apiKey,
                relinkUserId: verifier.relinkUserId,
                configuration: configuration,
                market: market,
                state: &state
            )
            return .success(user)
        }
        let (userId, userToken) = try result.get()
        return TradeItWire.accessToken(userId: userId, userToken: userToken)
    }

    func oAuthDelete(_ body: TradeItFields) throws -> JSON {
        _ = try sandbox.checkAPIKey(body.string("apiKey"))
        guard let userId = body.string("userId"), let userToken = body.string("userToken") else {
            throw TradeItAPIError.parameter("userId and userToken are required.")
        }
        let removed = sandbox.state.withLock { state -> Bool in
            guard state.users[userId]?.userToken == userToken else { return false }
            state.users[userId] = nil
            state.sessions = state.sessions.filter { $0.value.userId != userId }
            return true
        }
        guard removed else { throw TradeItAPIError.tokenExpired }
        return TradeItWire.success([], message: "Success")
    }
}
