import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import SaxoAdapter

/// The expiry the gateway reads from a Saxo access token (a JWT's `exp`), and what it makes of anything else.
@Suite("Saxo access token expiry")
struct AccessTokenTests {
    static func jwt(payload: String) -> String {
        func encode(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return encode(#"{"alg":"ES256","x5t":"27E9B903ECF21109ADE5E5B9EC0816B6B49DA0FF"}"#) + "." + encode(payload) + ".c2lnbmF0dXJl"
    }

    @Test(arguments: [
        (#"{"oaa":"77770","exp":1735689600}"#, 1_735_689_600.0),
        (#"{"oaa":"77770","exp":"1735689600"}"#, 1_735_689_600.0),
    ])
    func theExpClaimIsTheExpiry(payload: String, seconds: Double) {
        #expect(SaxoAccessToken.expiry(of: Self.jwt(payload: payload)) == Date(timeIntervalSince1970: seconds))
    }

    @Test(arguments: [
        "not-a-jwt", "a.b", "a.%%%.c", Self.jwt(payload: #"{"oaa":"77770"}"#), Self.jwt(payload: #"{"exp":1e400}"#),
        Self.jwt(payload: #"{"exp":-5}"#), Self.jwt(payload: #"{"exp":99999999999999}"#), Self.jwt(payload: #"{"exp":"soon"}"#),
        Self.jwt(payload: "[1,2]"),
    ])
    func anythingElseHasNoExpiry(token: String) {
        #expect(SaxoAccessToken.expiry(of: token) == nil)
    }

    @Test func aConnectionWithAnAccessTokenAloneKnowsItsExpiry() throws {
        let token = Self.jwt(payload: #"{"exp":1735689600}"#)
        let configuration = try SaxoConfiguration(
            baseURL: "https://gateway.saxobank.com/sim/openapi",
            settings: [:],
            credentials: BrokerCredentials(["accessToken": token])
        )
        #expect(configuration.credentials.accessTokenExpiresAt == Date(timeIntervalSince1970: 1_735_689_600))
        #expect(configuration.credentials.refreshToken == nil)
        // An explicit expiry wins over the token's own.
        let explicit = try SaxoConfiguration(
            baseURL: "https://gateway.saxobank.com/sim/openapi",
            settings: [:],
            credentials: BrokerCredentials(["accessToken": token, "accessTokenExpiresAt": "2025-01-02T00:00:00Z"])
        )
        #expect(explicit.credentials.accessTokenExpiresAt == Date(timeIntervalSince1970: 1_735_776_000))
    }

    @Test func theFactoryAcceptsAnAppWithARefreshTokenOrAnAccessTokenAlone() {
        let factory = SaxoAdapterFactory()
        #expect(factory.credentialProblems(BrokerCredentials(["accessToken": "t"])).isEmpty)
        #expect(factory.credentialProblems(BrokerCredentials(["appKey": "a", "appSecret": "s", "refreshToken": "r"])).isEmpty)
        #expect(
            factory.credentialProblems(BrokerCredentials(["refreshToken": "r", "appKey": " "])).map(\.field)
                == ["credentials.appKey", "credentials.appSecret"]
        )
        #expect(factory.credentialProblems(BrokerCredentials([:])).map(\.field) == ["credentials.refreshToken"])
    }
}
