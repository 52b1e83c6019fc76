import Foundation

/// The answer of `POST {authBaseURL}/token`: `access_token` (a JWT), `token_type` `Bearer`, `expires_in` (seconds,
/// about 1200, negative when a code was exchanged late), `refresh_token`, `refresh_token_expires_in` (about 3600),
/// `base_uri` (null). Snake case: this is the OAuth server, not OpenAPI.
struct SaxoToken: Decodable, Sendable {
    var accessToken: String
    var tokenType: String?
    var expiresIn: Double?
    var refreshToken: String?
    var refreshTokenExpiresIn: Double?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case refreshTokenExpiresIn = "refresh_token_expires_in"
    }

    /// Never shows the tokens.
    var redacted: String { "SaxoToken(expiresIn: \(expiresIn.map { String($0) } ?? "none"), rotated: \(refreshToken != nil))" }
}
