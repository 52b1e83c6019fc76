import Crypto
import Foundation

/// JSON Web Signatures in the compact serialization (RFC 7515 §7.1), ES256 only (ECDSA P-256 with SHA-256,
/// RFC 7518 §3.4): what end users' access tokens and the APNs provider token are. Written on swift-crypto directly
/// (rather than a JWT library) because these two small uses are all the gateway signs, and a library brought a
/// certificate stack into every build.
///
/// Verification is strict and fails closed: exactly three base64url segments without padding, a header whose
/// `alg` is `ES256` (never `none`, never an HMAC algorithm keyed with a public key), no `crit` extension (RFC 7515
/// §4.1.11: one a verifier does not understand must be refused, and this one understands none), and a 64-byte raw
/// `r || s` signature checked over the token's own bytes. The claims are the caller's to check afterwards.
enum CompactJWS {
    /// The only algorithm signed and accepted.
    static let algorithm = "ES256"
    /// Tokens longer than this are refused before any decoding: an access token is a few hundred characters, so
    /// this only bounds the work an attacker can ask for.
    static let maximumLength = 8_192

    /// Why a token was refused. Callers answer every one alike (a 401 that does not say which); the cases are for
    /// tests and diagnostics.
    enum Refusal: Error, Equatable, Sendable {
        /// Not three base64url segments, padding, a segment that is not canonical base64url, or a header or
        /// payload that is not the JSON expected.
        case malformed(String)
        /// The header's `alg` is missing or not ES256.
        case algorithm(String?)
        /// The header names critical extensions (`crit`).
        case criticalExtension
        /// The header's `kid` is missing or names no key the verifier has.
        case unknownKey(String?)
        /// The signature is not a valid ES256 signature of the header and payload by the key.
        case signature
    }

    /// The JOSE header fields the gateway writes (`alg`, `kid`, `typ`, as jwt-kit wrote them before, so tokens
    /// issued by earlier versions verify unchanged) and the one it must look at to refuse (`crit`).
    struct Header: Codable, Sendable, Equatable {
        var alg: String?
        var kid: String?
        var typ: String?
        var crit: [String]?
    }

    /// A token split into its parts and its header decoded; nothing about it is trusted yet.
    struct Parsed: Sendable {
        var header: Header
        /// The payload's bytes, base64url-decoded (JSON, still unverified).
        var payload: Data
        /// The bytes the signature covers: the token up to its second period, as it came.
        var signingInput: Data
        var signature: Data
    }

    // MARK: Signing

    /// A compact JWS of `payload` (encoded as JSON, dates as seconds since 1970) signed by `key` with ES256, its
    /// header naming `kid` (the key id a verifier picks the key by: the session key's file name, or Apple's key id).
    static func signES256(payload: some Encodable, kid: String, key: P256.Signing.PrivateKey) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .secondsSince1970
        let header = try encoder.encode(Header(alg: algorithm, kid: kid, typ: "JWT"))
        let signingInput = base64URLEncoded(header) + "." + base64URLEncoded(try encoder.encode(payload))
        // swift-crypto hashes the input with SHA-256; rawRepresentation is the 64-byte r || s RFC 7518 §3.4 requires.
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + base64URLEncoded(signature.rawRepresentation)
    }

    // MARK: Verifying

    /// Splits `token` into its three segments and decodes the header, checking the form only (no key yet).
    static func parse(_ token: String) throws(Refusal) -> Parsed {
        guard token.utf8.count <= maximumLength else { throw .malformed("longer than \(maximumLength) bytes") }
        let segments = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3 else { throw .malformed("\(segments.count) segments, not 3") }
        guard let headerBytes = base64URLDecoded(segments[0]), let payload = base64URLDecoded(segments[1]),
            let signature = base64URLDecoded(segments[2])
        else {
            throw .malformed("a segment is not unpadded base64url")
        }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(headerBytes))
        } catch {
            throw .malformed("the header is not a JSON object of the JOSE fields")
        }
        let signingInputLength = segments[0].count + 1 + segments[1].count
        return Parsed(
            header: header,
            payload: Data(payload),
            signingInput: Data(token.utf8.prefix(signingInputLength)),
            signature: Data(signature)
        )
    }

    /// Checks the header's algorithm and extensions and the signature of `parsed` by `key`. The `kid` is the
    /// caller's (it picked `key` by it).
    static func verifyES256(_ parsed: Parsed, key: P256.Signing.PublicKey) throws(Refusal) {
        guard parsed.header.alg == algorithm else { throw .algorithm(parsed.header.alg) }
        guard parsed.header.crit == nil else { throw .criticalExtension }
        // The raw form is exactly 64 bytes; a DER signature or any other length is refused, not converted.
        guard parsed.signature.count == 64,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: parsed.signature),
            key.isValidSignature(signature, for: parsed.signingInput)
        else {
            throw .signature
        }
    }

    /// The verified payload decoded as `Claims` (dates as seconds since 1970, fractions allowed: RFC 7519's
    /// NumericDate, which is what earlier versions wrote).
    static func claims<Claims: Decodable>(_ type: Claims.Type, of parsed: Parsed) throws(Refusal) -> Claims {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        do {
            return try decoder.decode(type, from: parsed.payload)
        } catch {
            throw .malformed("the claims are not the ones expected")
        }
    }

    // MARK: base64url (RFC 7515 §2: RFC 4648 §5 without padding)

    static func base64URLEncoded(_ bytes: some DataProtocol) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.last == "=" { text.removeLast() }
        return text
    }

    /// The bytes of an unpadded base64url text, or `nil` for anything else: a character outside the URL-safe
    /// alphabet (padding `=` included), a length no encoding has (4n + 1), or unused trailing bits that are not
    /// zero (so every token has exactly one spelling).
    static func base64URLDecoded(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for character in text {
            guard let value = sextet(character) else { return nil }
            buffer = (buffer << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        return buffer == 0 ? bytes : nil
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
