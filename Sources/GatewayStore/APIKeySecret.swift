import Crypto
import GatewayCore

/// The shape of an API key: `bgw_<lookup>_<secret>`.
///
/// `lookup` is 12 base32 characters; the row's id is `key_<lookup>`, so finding a key is one primary-key lookup.
/// `secret` is 32 bytes from the system CSPRNG as 64 lowercase hex characters. The store keeps only the SHA-256 of
/// the secret: the secret has 256 bits of entropy, so a slow password hash would add nothing.
package struct APIKeySecret {
    static let prefix = "bgw_"
    static let lookupLength = 12
    static let secretByteCount = 32

    /// The key's row id, `key_<lookup>`.
    package var keyId: String
    /// The key as given to the client, once.
    package var plaintext: String
    /// What the store keeps.
    package var hash: [UInt8]

    /// A new random key.
    package static func generate() -> APIKeySecret {
        let lookup = RandomIdentifier.base32(count: lookupLength)
        let secret = RandomIdentifier.hex(byteCount: secretByteCount)
        return APIKeySecret(
            keyId: StoreIdentifier.apiKey + "_" + lookup,
            plaintext: prefix + lookup + "_" + secret,
            hash: hash(secret: Substring(secret))
        )
    }

    /// The row id and the secret of a presented key, or `nil` when it does not have the shape of one of our keys
    /// (so a malformed header never reaches the database).
    package static func parse(_ presented: String) -> (keyId: String, secret: Substring)? {
        guard presented.hasPrefix(prefix) else { return nil }
        let rest = presented.dropFirst(prefix.count)
        let lookup = rest.prefix(lookupLength)
        let afterLookup = rest.dropFirst(lookupLength)
        guard lookup.count == lookupLength, RandomIdentifier.isBase32(lookup), afterLookup.first == "_" else {
            return nil
        }
        let secret = afterLookup.dropFirst()
        guard secret.utf8.count == secretByteCount * 2, secret.utf8.allSatisfy(isLowercaseHex) else { return nil }
        return (StoreIdentifier.apiKey + "_" + lookup, secret)
    }

    package static func hash(secret: Substring) -> [UInt8] {
        Array(SHA256.hash(data: Array(secret.utf8)))
    }

    private static func isLowercaseHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}

/// What the server may read from a presented API key before the store checks it.
public enum APIKeyText {
    /// How every tenant API key begins (an end user's access token never does).
    public static let prefix = APIKeySecret.prefix
    /// The key id (`key_<lookup>`) a presented key names, or `nil` when it is not shaped like one of our keys. The id
    /// is not secret; it keys per-key limits and logs once the key has been checked.
    public static func keyId(of presented: String) -> String? {
        APIKeySecret.parse(presented)?.keyId
    }
}
