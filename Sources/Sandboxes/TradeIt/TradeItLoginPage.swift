import Foundation
import Hummingbird
import NIOCore
import SandboxKit
import Synchronization

/// The sandbox's OAuth login popup, the page `oAuthURL` points at.
///
/// | Method + path | Answer |
/// |---|---|
/// | `GET /sandbox/login?oAuthTempToken=…` | an HTML form (username, password) posting to `/sandbox/login` |
/// | `GET /sandbox/login?oAuthTempToken=…&autoLogin=<persona>` | `302` to the callback at once (tests, demos) |
/// | `POST /sandbox/login` (form: `oAuthTempToken`, `username`, `password`) | `302` to the callback; the form again with an error |
/// | `GET /sandbox/login/complete?oAuthVerifier=…` | where a web-app popup (no callback) ends: shows the verifier |
///
/// The callback gets `oAuthVerifier=…` appended to its query (`?` or `&`), as TradeIt's popup did
/// (`tradeItExampleApp://completeOAuth?oAuthVerifier=123-456-789-000`). A verifier is single-use and lives
/// ``TradeItSandboxConfiguration/verifierLifetime``.
struct TradeItLoginPage: Sendable {
    let sandbox: TradeItSandbox

    func register(on router: Router<SandboxRequestContext>) {
        router.get("sandbox/login") { request, _ in
            let query = request.queryParameters
            let tempToken = query["oAuthTempToken"] ?? ""
            guard let popup = self.popup(tempToken) else { return Self.expired() }
            if let auto = query["autoLogin"] {
                guard let persona = TradeItPersona(rawValue: auto) else {
                    return Self.page(tempToken: tempToken, error: "Unknown login \(auto).", status: .badRequest)
                }
                return self.complete(tempToken: tempToken, popup: popup, persona: persona)
            }
            return Self.page(tempToken: tempToken, error: nil, status: .ok)
        }
        router.post("sandbox/login") { request, context in
            let buffer = try await request.body(in: context)
            let form = QueryParameters(String(buffer: buffer))
            let tempToken = form["oAuthTempToken"] ?? ""
            guard let popup = self.popup(tempToken) else { return Self.expired() }
            guard let username = form["username"], let persona = TradeItPersona(rawValue: username),
                form["password"] == TradeItSandboxConfiguration.demoPassword
            else {
                return Self.page(tempToken: tempToken, error: "Invalid username or password.", status: .ok)
            }
            return self.complete(tempToken: tempToken, popup: popup, persona: persona)
        }
        router.get("sandbox/login/complete") { request, _ in
            let verifier = Self.escape(request.queryParameters["oAuthVerifier"] ?? "")
            return Self.html(
                "<h1>Linked</h1><p>Your oAuthVerifier is <code id=\"oAuthVerifier\">\(verifier)</code>.</p>",
                status: .ok
            )
        }
    }

    func popup(_ tempToken: String) -> TradeItSandbox.Popup? {
        let now = sandbox.market.now
        return sandbox.state.withLock { state in
            guard let popup = state.popups[tempToken], popup.expiresAt > now else { return nil }
            return popup
        }
    }

    func complete(tempToken: String, popup: TradeItSandbox.Popup, persona: TradeItPersona) -> Response {
        sandbox.state.withLock { _ = $0.popups.removeValue(forKey: tempToken) }
        let verifier = sandbox.issueVerifier(persona: persona, apiKey: popup.apiKey, relinkUserId: popup.relinkUserId)
        let target: String
        if let callback = popup.callback {
            target = callback + (callback.contains("?") ? "&" : "?") + "oAuthVerifier=" + verifier
        } else {
            target = "/sandbox/login/complete?oAuthVerifier=" + verifier
        }
        var headers = HTTPFields()
        headers[.location] = target
        return Response(status: .found, headers: headers)
    }

    static func expired() -> Response {
        html("<h1>This login link has expired</h1><p>Start linking again from the app.</p>", status: .badRequest)
    }

    static func page(tempToken: String, error: String?, status: HTTPResponse.Status) -> Response {
        let message = error.map { "<p class=\"error\">\(escape($0))</p>" } ?? ""
        return html(
            """
            <h1>Log in to \(TradeItSandboxConfiguration.dummyBrokerLongName)</h1>\(message)
            <form method="post" action="/sandbox/login">
            <input type="hidden" name="oAuthTempToken" value="\(escape(tempToken))">
            <label>Username <input name="username" autocomplete="username"></label>
            <label>Password <input name="password" type="password" autocomplete="current-password"></label>
            <button type="submit">Log in</button>
            </form>
            <p>Sandbox logins (password <code>dummy</code>): <code>dummy</code>, <code>dummySecurity</code> (asks a security
            question; the answer is <code>tradingticket</code>), <code>fail</code>, <code>dummyExpired</code>.</p>
            """,
            status: status
        )
    }

    static func html(_ body: String, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=UTF-8"
        let text = "<!doctype html><html><head><meta charset=\"utf-8\"><title>TradeIt sandbox login</title></head><body>\(body)</body></html>"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

extension TradeItSandbox {
    /// A single-use verifier for `user/getOAuthAccessToken`, like `123-456-789-000`.
    func issueVerifier(persona: TradeItPersona, apiKey: String, relinkUserId: String?) -> String {
        let now = market.now
        let lifetime = configuration.verifierLifetime
        return state.withLock { state in
            let number = state.next()
            let random = UInt32.random(in: 0...999_999)
            let verifier =
                String(format: "%03d-%03d-%03d-%03d", number % 1000, random / 1000, random % 1000, (number / 1000) % 1000)
                + "-\(RandomID.suffix(4))"
            state.verifiers[verifier] = Verifier(
                apiKey: apiKey,
                persona: persona,
                relinkUserId: relinkUserId,
                expiresAt: now.addingTimeInterval(lifetime)
            )
            return verifier
        }
    }
}
