import Foundation
import Sandbox
import Testing

@Suite("Saxo sandbox: OAuth2 logon")
struct SaxoAuthTests {
    static let redirect = SaxoSandboxConfiguration.demoRedirectURI
    static let basic = "Basic " + Data("\(SaxoSandboxConfiguration.demoAppKey):\(SaxoSandboxConfiguration.demoAppSecret)".utf8).base64EncodedString()

    static func authorizePath(
        clientID: String = SaxoSandboxConfiguration.demoAppKey,
        redirect: String = redirect,
        state: String = "st4te x"
    ) -> String {
        "/authorize?response_type=code&client_id=\(saxoQueryEncode(clientID))&state=\(saxoQueryEncode(state))&redirect_uri=\(saxoQueryEncode(redirect))"
    }

    /// Runs `/authorize` and returns the code from the redirect.
    static func code(_ client: TestClient) async throws -> String {
        let reply = try await client.get(authorizePath())
        #expect(reply.status == 302)
        let location = try #require(reply.header("Location"))
        let components = try #require(URLComponents(string: location))
        #expect(location.hasPrefix(redirect + "?"))
        #expect(components.queryItems?.first { $0.name == "state" }?.value == "st4te x")
        return try #require(components.queryItems?.first { $0.name == "code" }?.value)
    }

    static func token(_ client: TestClient, _ form: String, authorization: String? = basic) async throws -> TestClient.Reply {
        var headers = [("Content-Type", "application/x-www-form-urlencoded")]
        if let authorization { headers.append(("Authorization", authorization)) }
        return try await client.send("POST", "/token", body: form, headers: headers)
    }

    @Test("the code flow: /authorize redirects with code and state, /token exchanges it once, the token opens the API")
    func codeFlow() async throws {
        try await withSaxo { _, anonymous, _, _ async throws in
            let code = try await Self.code(anonymous)
            let form = "grant_type=authorization_code&code=\(code)&redirect_uri=\(saxoQueryEncode(Self.redirect))"
            let reply = try await Self.token(anonymous, form)
            #expect(reply.status == 201, "Saxo's logon host answers 201 Created")
            let body = reply.object
            #expect(body["token_type"] as? String == "Bearer")
            #expect(body["expires_in"] as? Int == 1200)
            #expect(body["refresh_token_expires_in"] as? Int == 3600)
            #expect(body.keys.contains("base_uri") && body["base_uri"] is NSNull)
            let access = try #require(body["access_token"] as? String)
            #expect(access.split(separator: ".").count == 3, "Saxo access tokens are JWTs")
            #expect(reply.header("Cache-Control") == "no-store")

            let me = try await anonymous.get("\(sim)/port/v1/users/me", headers: [("Authorization", "Bearer \(access)")])
            #expect(me.status == 200)
            #expect(me.object["UserId"] as? String == "8496691")

            // Codes are single-use.
            let again = try await Self.token(anonymous, form)
            #expect(again.status == 400)
            #expect(again.object["error"] as? String == "invalid_grant")
        }
    }

    @Test("client credentials may travel in the body; a wrong secret or no client authentication is invalid_client")
    func clientAuthentication() async throws {
        try await withSaxo { _, anonymous, _, _ async throws in
            let code = try await Self.code(anonymous)
            let wrong = try await Self.token(
                anonymous,
                "grant_type=authorization_code&code=\(code)",
                authorization: "Basic " + Data("SANDBOX-SAXO-APP:nope".utf8).base64EncodedString()
            )
            #expect(wrong.status == 401)
            #expect(wrong.object["error"] as? String == "invalid_client")

            let code2 = try await Self.code(anonymous)
            let none = try await Self.token(anonymous, "grant_type=authorization_code&code=\(code2)&client_id=SANDBOX-SAXO-APP", authorization: nil)
            #expect(none.status == 401)

            let code3 = try await Self.code(anonymous)
            let inBody = try await Self.token(
                anonymous,
                "grant_type=authorization_code&code=\(code3)&client_id=SANDBOX-SAXO-APP&client_secret=SANDBOX-SAXO-SECRET&redirect_uri=\(saxoQueryEncode(Self.redirect))",
                authorization: nil
            )
            #expect(inBody.status == 201)
        }
    }

    @Test("an unknown client_id or an unregistered redirect_uri gets a 400 page, not a redirect")
    func authorizeErrors() async throws {
        try await withSaxo { _, anonymous, _, _ async throws in
            let unknown = try await anonymous.get(Self.authorizePath(clientID: "someone-else"))
            #expect(unknown.status == 400)
            #expect(unknown.header("Location") == nil)
            let mismatch = try await anonymous.get(Self.authorizePath(redirect: "https://evil.example/callback"))
            #expect(mismatch.status == 400)
            #expect(mismatch.header("Location") == nil)
            // A bad response_type is reported to the (trusted) redirect URI.
            let badType = try await anonymous.get(Self.authorizePath().replacingOccurrences(of: "response_type=code", with: "response_type=id_token"))
            #expect(badType.status == 302)
            #expect(badType.header("Location")?.contains("error=unsupported_response_type") == true)
            // The code must be exchanged with the redirect URI it was issued for.
            let code = try await Self.code(anonymous)
            let other = try await Self.token(anonymous, "grant_type=authorization_code&code=\(code)&redirect_uri=http%3A%2F%2Fother")
            #expect(other.status == 400)
        }
    }

    @Test("PKCE: a public client exchanges the code with its code_verifier instead of a secret")
    func pkce() async throws {
        try await withSaxo { _, anonymous, _, _ async throws in
            // RFC 7636 appendix B.
            let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
            let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
            let reply = try await anonymous.get(Self.authorizePath() + "&code_challenge=\(challenge)&code_challenge_method=S256")
            let code = try #require(URLComponents(string: reply.header("Location") ?? "")?.queryItems?.first { $0.name == "code" }?.value)
            let bad = try await Self.token(
                anonymous,
                "grant_type=authorization_code&code=\(code)&client_id=SANDBOX-SAXO-APP&code_verifier=wrong",
                authorization: nil
            )
            #expect(bad.status == 400)
            let reply2 = try await anonymous.get(Self.authorizePath() + "&code_challenge=\(challenge)&code_challenge_method=S256")
            let code2 = try #require(URLComponents(string: reply2.header("Location") ?? "")?.queryItems?.first { $0.name == "code" }?.value)
            let good = try await Self.token(
                anonymous,
                "grant_type=authorization_code&code=\(code2)&client_id=SANDBOX-SAXO-APP&code_verifier=\(verifier)",
                authorization: nil
            )
            #expect(good.status == 201)
        }
    }

    @Test("refresh tokens rotate: a used one is spent, the new pair works, the session's rate budget carries over")
    func refreshRotation() async throws {
        try await withSaxo { _, anonymous, _, _ async throws in
            let code = try await Self.code(anonymous)
            let first = try await Self.token(anonymous, "grant_type=authorization_code&code=\(code)").object
            let refresh1 = try #require(first["refresh_token"] as? String)
            let access1 = try #require(first["access_token"] as? String)
            let used = try await anonymous.get("\(sim)/port/v1/clients/me", headers: [("Authorization", "Bearer \(access1)")])
            let remainingBefore = try #require(used.header("X-RateLimit-Session-Remaining").flatMap(Int.init))

            let second = try await Self.token(anonymous, "grant_type=refresh_token&refresh_token=\(refresh1)")
            #expect(second.status == 201)
            let refresh2 = try #require(second.object["refresh_token"] as? String)
            let access2 = try #require(second.object["access_token"] as? String)
            #expect(refresh2 != refresh1)
            #expect(access2 != access1)

            let spent = try await Self.token(anonymous, "grant_type=refresh_token&refresh_token=\(refresh1)")
            #expect(spent.status == 400)
            #expect(spent.object["error"] as? String == "invalid_grant")

            let after = try await anonymous.get("\(sim)/port/v1/clients/me", headers: [("Authorization", "Bearer \(access2)")])
            #expect(after.status == 200)
            #expect(after.header("X-RateLimit-Session-Remaining").flatMap(Int.init) == remainingBefore - 1)
            // Refreshing needs the client's credentials.
            let unauthenticated = try await Self.token(anonymous, "grant_type=refresh_token&refresh_token=\(refresh2)", authorization: nil)
            #expect(unauthenticated.status == 401)
        }
    }

    @Test("access tokens expire on the sandbox clock (401, empty body); refresh tokens later (invalid_grant)")
    func expiry() async throws {
        try await withSaxo(configuration: saxoTestConfiguration(accessTokenLifetime: 60, refreshTokenLifetime: 300)) {
            _,
            anonymous,
            _,
            clock async throws in
            let code = try await Self.code(anonymous)
            let pair = try await Self.token(anonymous, "grant_type=authorization_code&code=\(code)").object
            #expect(pair["expires_in"] as? Int == 60)
            let access = try #require(pair["access_token"] as? String)
            let bearer = [("Authorization", "Bearer \(access)")]
            #expect(try await anonymous.get("\(sim)/port/v1/balances/me", headers: bearer).status == 200)

            clock.advance(by: 59)
            #expect(try await anonymous.get("\(sim)/port/v1/balances/me", headers: bearer).status == 200)
            clock.advance(by: 1)
            let expired = try await anonymous.get("\(sim)/port/v1/balances/me", headers: bearer)
            #expect(expired.status == 401)
            #expect(expired.text.isEmpty)
            #expect(expired.header("X-Correlation") != nil)

            // The refresh token still works until its own expiry...
            let refreshed = try await Self.token(anonymous, "grant_type=refresh_token&refresh_token=\(pair["refresh_token"] as? String ?? "")")
            #expect(refreshed.status == 201)
            let refresh2 = try #require(refreshed.object["refresh_token"] as? String)
            #expect(
                try await anonymous.get(
                    "\(sim)/port/v1/balances/me",
                    headers: [("Authorization", "Bearer \(refreshed.object["access_token"] as? String ?? "")")]
                ).status == 200
            )
            // ...which is counted from when it was issued.
            clock.advance(by: 300)
            let late = try await Self.token(anonymous, "grant_type=refresh_token&refresh_token=\(refresh2)")
            #expect(late.status == 400)
            #expect(late.object["error"] as? String == "invalid_grant")
        }
    }

    @Test("missing or unknown bearer tokens get 401; the bootstrap refresh token and the static token always work")
    func demoCredentials() async throws {
        try await withSaxo { _, anonymous, _, clock async throws in
            #expect(try await anonymous.get("\(sim)/port/v1/clients/me").status == 401)
            #expect(try await anonymous.get("\(sim)/port/v1/clients/me", headers: [("Authorization", "Bearer nope")]).status == 401)
            #expect(try await anonymous.get("\(sim)/port/v1/clients/me", headers: [("Authorization", Self.basic)]).status == 401)

            clock.advance(by: 10 * 86_400)
            let staticToken = [("Authorization", "Bearer \(SaxoSandboxConfiguration.demoStaticAccessToken)")]
            #expect(try await anonymous.get("\(sim)/port/v1/clients/me", headers: staticToken).status == 200)
            for _ in 0..<2 {
                let pair = try await Self.token(
                    anonymous,
                    "grant_type=refresh_token&refresh_token=\(SaxoSandboxConfiguration.demoBootstrapRefreshToken)"
                )
                #expect(pair.status == 201)
                let access = try #require(pair.object["access_token"] as? String)
                #expect(try await anonymous.get("\(sim)/port/v1/clients/me", headers: [("Authorization", "Bearer \(access)")]).status == 200)
            }
        }
    }

    @Test("a code exchanged late yields a shorter (even negative) expires_in: the lifetime counts from the sign-in")
    func lateExchange() async throws {
        try await withSaxo(configuration: saxoTestConfiguration(accessTokenLifetime: 60)) { _, anonymous, _, clock async throws in
            let code = try await Self.code(anonymous)
            clock.advance(by: 90)
            let reply = try await Self.token(anonymous, "grant_type=authorization_code&code=\(code)")
            #expect(reply.status == 201)
            #expect(reply.object["expires_in"] as? Int == -30)
            let access = try #require(reply.object["access_token"] as? String)
            #expect(try await anonymous.get("\(sim)/port/v1/users/me", headers: [("Authorization", "Bearer \(access)")]).status == 401)
        }
    }

    @Test("/token also reads multipart/form-data (what PHP's cURL sends for Saxo's own sample), and the JWT names the user")
    func multipartForm() async throws {
        try await withSaxo { _, anonymous, _, _ async throws in
            let code = try await Self.code(anonymous)
            let boundary = "------------------------a1b2c3"
            let fields = [
                ("grant_type", "authorization_code"), ("client_id", SaxoSandboxConfiguration.demoAppKey),
                ("client_secret", SaxoSandboxConfiguration.demoAppSecret), ("code", code),
            ]
            let body =
                fields.map { "--\(boundary)\r\nContent-Disposition: form-data; name=\"\($0.0)\"\r\n\r\n\($0.1)\r\n" }.joined() + "--\(boundary)--\r\n"
            let reply = try await saxoPost(anonymous.base, "/token", body: body, contentType: "multipart/form-data; boundary=\(boundary)")
            #expect(reply.status == 201, "\(reply.text)")
            let access = try #require(reply.object["access_token"] as? String)
            // The payload's `uid` is the UserKey that port/v1/users/{UserKey} takes.
            var payload = String(access.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while payload.count % 4 != 0 { payload += "=" }
            let payloadData = try #require(Data(base64Encoded: payload))
            let claims = try #require(try JSONSerialization.jsonObject(with: payloadData) as? [String: Any])
            let userKey = try #require(claims["uid"] as? String)
            #expect(claims["exp"] is NSNumber)
            let user = try await anonymous.get("\(sim)/port/v1/users/\(saxoQueryEncode(userKey))", headers: [("Authorization", "Bearer \(access)")])
            #expect(user.status == 200)
            #expect(user.object["UserKey"] as? String == userKey)
        }
    }
}
