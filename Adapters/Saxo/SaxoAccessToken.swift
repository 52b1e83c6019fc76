import Foundation

/// What the gateway reads from a Saxo access token without verifying it: Saxo's access tokens are JWTs, and their
/// `exp` claim says when they stop working. Only used to know a token's expiry (a developer token linked alone, an
/// access token given without `accessTokenExpiresAt`); Saxo itself decides whether a token is good.
enum SaxoAccessToken {
    /// The `exp` claim (seconds since 1970, a JSON number or a numeric string), or `nil` for a token that is not a
    /// JWT or has none.
    static func expiry(of token: String) -> Date? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].count <= 8192, let payload = base64URLDecoded(parts[1]),
            let object = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any]
        else { return nil }
        let seconds: Int64?
        switch object["exp"] {
        case let number as NSNumber: seconds = Int64(exactly: number.doubleValue.rounded(.down))
        case let text as String: seconds = Int64(text)
        default: seconds = nil
        }
        // Between 2000 and 2200: anything else is not a time this token can mean.
        guard let seconds, (946_684_800...7_258_118_400).contains(seconds) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    static func base64URLDecoded(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
