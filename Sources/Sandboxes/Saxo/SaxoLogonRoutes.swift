import Foundation
import Hummingbird
import NIOCore
import SandboxKit

/// The logon host (`sim.logonvalidation.net`): `GET /authorize` and `POST /token`.
///
/// `/authorize` signs the app's user in (the demo user for the demo app, an app's own client for one registered at
/// run time) and approves the app at once, so a client can read the code from the `Location` header of the 302
/// without a browser. Problems that make the redirect URI untrustworthy (unknown
/// `client_id`, unregistered `redirect_uri`) get a 400 page instead of a redirect, as OAuth2 requires.
struct SaxoLogonRoutes: Sendable {
    let sandbox: SaxoSandbox

    func register(on router: Router<SandboxRequestContext>) {
        router.get("authorize") { request, _ in authorize(request) }
        router.post("token") { request, context in try await token(request, context) }
    }

    // MARK: /authorize

    func authorize(_ request: Request) -> Response {
        let query = request.queryParameters
        let configuration = sandbox.configuration
        guard let clientID = query["client_id"], let owner = sandbox.appOwner(appKey: clientID, secret: nil) else {
            return errorPage("Unknown client_id. The app key is not registered.")
        }
        guard let redirectURI = query["redirect_uri"], configuration.redirectURIs.contains(redirectURI) else {
            return errorPage("The redirect_uri does not match any redirect URL registered for this app.")
        }
        let state = query["state"]
        let responseType = query["response_type"] ?? ""
        let challenge = query["code_challenge"].flatMap { $0.isEmpty ? nil : $0 }
        let method = query["code_challenge_method"].flatMap { $0.isEmpty ? nil : $0 } ?? (challenge == nil ? nil : "plain")
        if let method, method != "S256", method != "plain" {
            return redirect(redirectURI, ["error": "invalid_request", "error_description": "Unsupported code_challenge_method.", "state": state])
        }
        let now = sandbox.market.now
        switch responseType {
        case "code":
            let code = sandbox.withTokens { tokens in
                tokens.issueCode(
                    redirectURI: redirectURI,
                    challenge: challenge,
                    method: method,
                    owner: owner,
                    now: now,
                    lifetime: configuration.authorizationCodeLifetime
                )
            }
            return redirect(redirectURI, ["code": code, "state": state])
        case "token":
            // The implicit flow (Saxo's samples use it): the token travels in the fragment, and there is no refresh token.
            let pair = sandbox.withTokens { $0.startSession(owner: owner, now: now, configuration: configuration) }
            sandbox.noteLogin(now, clientKey: owner.clientKey)
            return redirect(
                redirectURI,
                ["access_token": pair.accessToken, "token_type": "Bearer", "expires_in": String(pair.expiresIn), "state": state],
                fragment: true
            )
        default:
            return redirect(redirectURI, ["error": "unsupported_response_type", "state": state])
        }
    }

    private func redirect(_ uri: String, _ parameters: KeyValuePairs<String, String?>, fragment: Bool = false) -> Response {
        let encoded = parameters.compactMap { key, value in value.map { "\(key)=\(Self.formEncode($0))" } }.joined(separator: "&")
        let separator = fragment ? "#" : (uri.contains("?") ? "&" : "?")
        var headers = HTTPFields()
        headers[.location] = uri + separator + encoded
        headers[.cacheControl] = "no-store"
        return Response(status: .found, headers: headers)
    }

    private func errorPage(_ message: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        let html = "<!DOCTYPE html><html><head><title>Error</title></head><body><h1>Bad Request</h1><p>\(message)</p></body></html>"
        return Response(status: .badRequest, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// `application/x-www-form-urlencoded` value encoding (RFC 3986 unreserved characters stay).
    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    // MARK: /token

    func token(_ request: Request, _ context: SandboxRequestContext) async throws -> Response {
        let buffer = try await request.body(in: context)
        let form = Self.form(String(buffer: buffer), contentType: request.headers[.contentType])
        let configuration = sandbox.configuration
        let now = sandbox.market.now

        // Client authentication: HTTP Basic, or client_id/client_secret in the body; PKCE clients send client_id only.
        var clientID = form["client_id"]
        var clientSecret = form["client_secret"]
        if let authorization = request.headers[.authorization] {
            guard let credentials = BasicCredentials(authorization: authorization) else {
                return oauthError(.init(status: 401, error: "invalid_client", description: "Malformed Authorization header."))
            }
            // RFC 6749 §2.3.1: both halves are form-encoded before they are joined.
            clientID = credentials.user.removingPercentEncoding ?? credentials.user
            clientSecret = credentials.password.removingPercentEncoding ?? credentials.password
        }
        guard let clientID, let owner = sandbox.appOwner(appKey: clientID, secret: nil) else {
            return oauthError(.init(status: 401, error: "invalid_client", description: "Unknown client."))
        }
        if let clientSecret, sandbox.appOwner(appKey: clientID, secret: clientSecret) == nil {
            return oauthError(.init(status: 401, error: "invalid_client", description: "Client authentication failed."))
        }
        let authenticated = clientSecret != nil

        let pair: SaxoTokenStore.TokenPair
        do {
            switch form["grant_type"] ?? "" {
            case "authorization_code":
                guard let code = form["code"], !code.isEmpty else {
                    return oauthError(.init(status: 400, error: "invalid_request", description: "code is required."))
                }
                pair = try sandbox.withTokens { (tokens) throws(SaxoTokenStore.OAuthError) in
                    try tokens.exchange(
                        code: code,
                        appKey: clientID,
                        redirectURI: form["redirect_uri"],
                        verifier: form["code_verifier"],
                        clientAuthenticated: authenticated,
                        now: now,
                        configuration: configuration
                    )
                }
                sandbox.noteLogin(now, clientKey: owner.clientKey)
            case "refresh_token":
                guard authenticated else {
                    return oauthError(.init(status: 401, error: "invalid_client", description: "Client authentication failed."))
                }
                guard let refreshToken = form["refresh_token"], !refreshToken.isEmpty else {
                    return oauthError(.init(status: 400, error: "invalid_request", description: "refresh_token is required."))
                }
                pair = try sandbox.withTokens { (tokens) throws(SaxoTokenStore.OAuthError) in
                    try tokens.refresh(token: refreshToken, appKey: clientID, now: now, configuration: configuration)
                }
            case "":
                return oauthError(.init(status: 400, error: "invalid_request", description: "grant_type is required."))
            default:
                return oauthError(.init(status: 400, error: "unsupported_grant_type", description: "Unsupported grant_type."))
            }
        } catch {
            return oauthError(error)
        }
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        headers[HTTPFields.Element.Name("Pragma")!] = "no-cache"
        // Saxo's logon host answers 201 Created (SaxoBank/openapi-samples-php treats any other status as a failure).
        return .json(
            [
                "access_token": .string(pair.accessToken),
                "token_type": "Bearer",
                "expires_in": .int(pair.expiresIn),
                "refresh_token": .string(pair.refreshToken),
                "refresh_token_expires_in": .int(pair.refreshTokenExpiresIn),
                "base_uri": .null,
            ],
            status: .created,
            headers: headers
        )
    }

    /// The token request's fields: `application/x-www-form-urlencoded` (the usual) or `multipart/form-data`
    /// (what PHP's cURL sends when given an array, as Saxo's PHP sample does).
    static func form(_ body: String, contentType: String?) -> [String: String] {
        var fields: [String: String] = [:]
        if let contentType, contentType.lowercased().hasPrefix("multipart/form-data"),
            let range = contentType.range(of: "boundary=", options: .caseInsensitive)
        {
            let boundary = (contentType[range.upperBound...].split(separator: ";").first.map(String.init) ?? "")
                .trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
            guard !boundary.isEmpty else { return fields }
            for part in body.components(separatedBy: "--" + boundary) {
                let sections = part.components(separatedBy: "\r\n\r\n")
                guard sections.count >= 2, let nameRange = sections[0].range(of: "name=\"") else { continue }
                let afterName = sections[0][nameRange.upperBound...]
                guard let quote = afterName.firstIndex(of: "\"") else { continue }
                var value = sections[1...].joined(separator: "\r\n\r\n")
                // "\r\n" is one Character in Swift.
                if value.hasSuffix("\r\n") { value.removeLast() }
                if fields[String(afterName[..<quote])] == nil { fields[String(afterName[..<quote])] = value }
            }
            return fields
        }
        let query = QueryParameters(body)
        for item in query.items where fields[item.name] == nil { fields[item.name] = item.value }
        return fields
    }

    private func oauthError(_ error: SaxoTokenStore.OAuthError) -> Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        if error.status == 401 { headers[.wwwAuthenticate] = "Basic realm=\"token\"" }
        return .json(
            ["error": .string(error.error), "error_description": .string(error.description)],
            status: .init(code: error.status),
            headers: headers
        )
    }
}
