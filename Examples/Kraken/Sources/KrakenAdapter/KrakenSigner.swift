import Crypto
public import Foundation

/// Kraken's request signature (Spot REST Authentication guide, https://docs.kraken.com/api/docs/guides/spot-rest-auth):
///
/// ```
/// API-Sign = base64( HMAC-SHA512( key: base64decode(secret), message: path + SHA256(nonce + body) ) )
/// ```
///
/// `path` is the URI path from `/0/private` on (`/0/private/AddOrder`), `body` the exact bytes sent (form or JSON,
/// the nonce included) and `SHA256(...)` the raw 32-byte digest. The guide's worked example is a test vector of this
/// type's tests.
public enum KrakenSigner {
    /// The secret as Kraken issues it (base64 of 64 random bytes) decoded; nil when it is not base64.
    public static func key(secret: String) -> Data? {
        guard let data = Data(base64Encoded: secret), !data.isEmpty else { return nil }
        return data
    }

    /// The `API-Sign` header for one call.
    public static func signature(path: String, nonce: String, body: Data, key: Data) -> String {
        var message = Data(path.utf8)
        message.append(contentsOf: SHA256.hash(data: Data(nonce.utf8) + body))
        let mac = HMAC<SHA512>.authenticationCode(for: message, using: SymmetricKey(data: key))
        return Data(mac).base64EncodedString()
    }
}
