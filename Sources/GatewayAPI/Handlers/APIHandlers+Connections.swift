import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewayStore
import OpenAPIRuntime

extension APIHandlers {
    func listConnections(_ input: Operations.ListConnections.Input) async throws -> Operations.ListConnections.Output {
        let owner = try RequestIdentity.requireOwner()
        return .ok(.init(body: .json(.init(data: try await connections.connections(owner: owner)))))
    }

    func linkConnection(_ input: Operations.LinkConnection.Input) async throws -> Operations.LinkConnection.Output {
        let owner = try RequestIdentity.requireOwner()
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        let request = LinkRequest(
            broker: body.broker,
            displayName: body.displayName,
            baseURL: body.baseURL,
            settings: body.settings?.additionalProperties,
            credentials: body.credentials?.additionalProperties
        )
        switch try await connections.link(owner: owner, request, callbackBase: callbackBase) {
        case .linked(let connection): return .created(.init(body: .json(.init(data: connection))))
        case .pending(let pending): return .accepted(.init(body: .json(.init(data: pending))))
        }
    }

    func authenticateAll(_ input: Operations.AuthenticateAll.Input) async throws -> Operations.AuthenticateAll.Output {
        let owner = try RequestIdentity.requireOwner()
        return .ok(.init(body: .json(.init(data: try await connections.authenticateAll(owner: owner)))))
    }

    func completeLink(_ input: Operations.CompleteLink.Input) async throws -> Operations.CompleteLink.Output {
        let owner = try RequestIdentity.requireOwner()
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        if body.oAuthVerifier.isEmpty || body.oAuthVerifier.count > 2048 {
            throw GatewayError.unprocessable([FieldProblem(field: "oAuthVerifier", problem: "must be 1 to 2048 characters")])
        }
        let connection = try await connections.completeLink(owner: owner, id: input.path.id, verifier: body.oAuthVerifier)
        return .ok(.init(body: .json(.init(data: connection))))
    }

    func relink(_ input: Operations.Relink.Input) async throws -> Operations.Relink.Output {
        let owner = try RequestIdentity.requireOwner()
        switch try await connections.startRelink(owner: owner, id: input.path.id, callbackBase: callbackBase) {
        case .pending(let pending): return .ok(.init(body: .json(.init(data: pending))))
        case .linked(let connection): return .created(.init(body: .json(.init(data: connection))))
        }
    }

    func authenticateConnection(_ input: Operations.AuthenticateConnection.Input) async throws -> Operations.AuthenticateConnection.Output {
        let owner = try RequestIdentity.requireOwner()
        return .ok(.init(body: .json(.init(data: try await connections.authenticate(owner: owner, id: input.path.id)))))
    }

    func answerChallenge(_ input: Operations.AnswerChallenge.Input) async throws -> Operations.AnswerChallenge.Output {
        let owner = try RequestIdentity.requireOwner()
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        if body.answer.isEmpty || body.answer.count > 256 {
            throw GatewayError.unprocessable([FieldProblem(field: "answer", problem: "must be 1 to 256 characters")])
        }
        let report = try await connections.answerChallenge(owner: owner, id: input.path.id, answer: body.answer)
        return .ok(.init(body: .json(.init(data: report))))
    }

    /// The broker's login page sends the user's browser here: no API key, the link's state nonce instead, spent
    /// before the broker is called. The page is static, escaped text that runs and loads nothing.
    func linkCallback(_ input: Operations.LinkCallback.Input) async throws -> Operations.LinkCallback.Output {
        guard let state = try QueryValue.string(input.query.state, "state"),
            let verifier = try QueryValue.string(input.query.oAuthVerifier, "oAuthVerifier", maxLength: 2048)
        else {
            throw GatewayError.invalid("oAuthVerifier", "and state are required")
        }
        let connection = try await connections.completeLinkFromCallback(connectionId: input.path.id, state: state, verifier: verifier)
        let html = Self.linkCallbackPage(connection)
        // Its Content-Security-Policy and nosniff headers come from SecurityHeadersMiddleware, as on every answer.
        return .ok(.init(body: .html(HTTPBody(html))))
    }

    /// What the browser shows after a link: the connection's status as the broker's first answer left it (a login
    /// the broker refused is said to have failed, never "linked").
    static func linkCallbackPage(_ connection: ConnectionDescriptor) -> String {
        let name = HTMLText.escape(connection.displayName)
        let status = connection.status.rawValue
        let (title, text): (String, String) =
            switch connection.status {
            case .active:
                ("Linked", "\(name) is linked (status: \(status)). You can close this window.")
            case .challengeRequired:
                (
                    "Linked",
                    "\(name) is linked; the broker asks a security question before it opens a session "
                        + "(status: \(status)). Answer it in the app. You can close this window."
                )
            case .relinkRequired, .pendingLink:
                (
                    "Not linked",
                    "\(name) could not be linked: the broker refused the login"
                        + (connection.statusDetail?["reason"].map { " (\(HTMLText.escape($0)))" } ?? "")
                        + " (status: \(status)). Start the link again from the app. You can close this window."
                )
            }
        return "<!doctype html><title>\(title)</title><p>\(text)</p>"
    }

    func getConnection(_ input: Operations.GetConnection.Input) async throws -> Operations.GetConnection.Output {
        let owner = try RequestIdentity.requireOwner()
        return .ok(.init(body: .json(.init(data: try await connections.connection(owner: owner, id: input.path.id)))))
    }

    func deleteConnection(_ input: Operations.DeleteConnection.Input) async throws -> Operations.DeleteConnection.Output {
        let owner = try RequestIdentity.requireOwner()
        try await connections.unlink(owner: owner, id: input.path.id)
        return .noContent(.init())
    }

    /// Where the broker's login page sends the browser back: this gateway's configured public URL, never one
    /// taken from the request's `Host` or `X-Forwarded-*` headers (which a caller chooses).
    var callbackBase: String { publicURL }
}
