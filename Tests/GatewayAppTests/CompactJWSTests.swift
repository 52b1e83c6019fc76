import Crypto
import Foundation
import GatewayCore
import Testing

@testable import GatewayApp

/// The gateway's own JWS (``CompactJWS``): published vectors, the strict form, and end users' access tokens
/// (``SessionKeyRing``) refusing every token that is not exactly one of theirs, with the API's 401s.
@Suite("Compact JWS: ES256 access tokens and the APNs provider token")
struct CompactJWSTests {
    // MARK: Published vectors

    /// RFC 7515 Appendix A.3 ("Example JWS Using ECDSA P-256 SHA-256", rfc-editor.org/rfc/rfc7515#appendix-A.3):
    /// the public key's x and y and the complete token, as published.
    static let rfcA3X = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
    static let rfcA3Y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
    static let rfcA3Token =
        "eyJhbGciOiJFUzI1NiJ9"
        + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        + ".DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
    /// RFC 7515 Appendix A.1 ("Example JWS Using HMAC SHA-256", rfc-editor.org/rfc/rfc7515#appendix-A.1): the
    /// HMAC key (the JWK's `k`) and the complete token, as published.
    static let rfcA1Key = "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"
    static let rfcA1Token =
        "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9"
        + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        + ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

    static func rfcA3PublicKey() throws -> P256.Signing.PublicKey {
        let x = try #require(CompactJWS.base64URLDecoded(Array(rfcA3X.utf8)))
        let y = try #require(CompactJWS.base64URLDecoded(Array(rfcA3Y.utf8)))
        return try P256.Signing.PublicKey(rawRepresentation: x + y)
    }

    /// The token with the byte at `index` changed to another character of the base64url alphabet.
    static func flipped(_ token: String, at index: Int) -> String {
        var bytes = Array(token.utf8)
        bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("RFC 7515 A.3's ES256 token verifies with its public key; one changed character anywhere fails")
    func rfcA3() throws {
        let key = try Self.rfcA3PublicKey()
        let parsed = try CompactJWS.parse(Self.rfcA3Token)
        #expect(parsed.header == CompactJWS.Header(alg: "ES256"))
        #expect(parsed.signature.count == 64)
        try CompactJWS.verifyES256(parsed, key: key)
        struct Claims: Decodable {
            var iss: String
            var exp: Date
        }
        let claims = try CompactJWS.claims(Claims.self, of: parsed)
        #expect(claims.iss == "joe" && claims.exp == Date(timeIntervalSince1970: 1_300_819_380))
        // A character in the header, the payload and the signature.
        for index in [5, 30, Self.rfcA3Token.utf8.count - 10] {
            #expect(throws: CompactJWS.Refusal.self, "index \(index)") {
                try CompactJWS.verifyES256(CompactJWS.parse(Self.flipped(Self.rfcA3Token, at: index)), key: key)
            }
        }
    }

    @Test("RFC 7515 A.1's HS256 token parses to the bytes its HMAC covers, and the ES256 verifier refuses it")
    func rfcA1() throws {
        let parsed = try CompactJWS.parse(Self.rfcA1Token)
        // The published header, CR LF and all, decoded from the token's own segment.
        #expect(parsed.header == CompactJWS.Header(alg: "HS256", typ: "JWT"))
        let secret = SymmetricKey(data: try #require(CompactJWS.base64URLDecoded(Array(Self.rfcA1Key.utf8))))
        #expect(HMAC<SHA256>.isValidAuthenticationCode(parsed.signature, authenticating: parsed.signingInput, using: secret))
        // One character of the payload changed.
        let tampered = try CompactJWS.parse(Self.flipped(Self.rfcA1Token, at: 50))
        #expect(!HMAC<SHA256>.isValidAuthenticationCode(tampered.signature, authenticating: tampered.signingInput, using: secret))
        // An HMAC token is never an ES256 one, whatever key it names (the algorithm-confusion attack).
        #expect(throws: CompactJWS.Refusal.algorithm("HS256")) {
            try CompactJWS.verifyES256(parsed, key: try Self.rfcA3PublicKey())
        }
    }

    @Test("base64url: unpadded URL-safe text only, one spelling per byte string")
    func base64URL() {
        for length in 0...7 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 251) }
            let text = CompactJWS.base64URLEncoded(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(CompactJWS.base64URLDecoded(Array(text.utf8)) == bytes)
        }
        #expect(CompactJWS.base64URLDecoded(Array("-_8".utf8)) == [0xFB, 0xFF])
        // Padding, the standard alphabet's + and /, a length no encoding has, unused bits set.
        for bad in ["QQ==", "QQ=", "+/8", "QUJDR", "QR", "QUK"] {
            #expect(CompactJWS.base64URLDecoded(Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    // MARK: Access tokens

    static let now = Date(timeIntervalSince1970: 1_764_320_000)

    static func claims(expiring exp: Date = now.addingTimeInterval(900), issuer: String = "brokergateway") -> AccessTokenClaims {
        AccessTokenClaims(
            iss: issuer,
            sub: "usr_1",
            tid: "ten_1",
            sid: "ses_1",
            did: "dev_1",
            scope: "read trade",
            iat: now,
            exp: exp
        )
    }

    static func segment(_ json: String) -> String { CompactJWS.base64URLEncoded(Array(json.utf8)) }

    /// A token with the given header over the given claims, signed (ES256) by `key`.
    static func forged(header: String, claims: AccessTokenClaims = claims(), key: P256.Signing.PrivateKey) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let input = segment(header) + "." + CompactJWS.base64URLEncoded(try encoder.encode(claims))
        return input + "." + CompactJWS.base64URLEncoded(try key.signature(for: Data(input.utf8)).rawRepresentation)
    }

    /// Whether the ring refuses `token` as the API does a bad one: 401 "the access token is not valid".
    static func refusedAsInvalid(_ ring: SessionKeyRing, _ token: String) -> Bool {
        do {
            _ = try ring.verify(token, now: now, issuer: "brokergateway")
            return false
        } catch {
            return error.code == .unauthorized && error.message == "the access token is not valid"
        }
    }

    @Test("an access token carries alg ES256, its key's kid and typ JWT, and verifies by every key of the ring")
    func accessTokenRoundTrip() throws {
        let old = P256.Signing.PrivateKey()
        let new = P256.Signing.PrivateKey()
        let before = SessionKeyRing([("k1", old)])
        let rotated = SessionKeyRing([("k1", old), ("k2", new)])
        let issuedBefore = try before.sign(Self.claims())
        let issuedAfter = try rotated.sign(Self.claims())
        #expect(try CompactJWS.parse(issuedBefore).header == CompactJWS.Header(alg: "ES256", kid: "k1", typ: "JWT"))
        #expect(try CompactJWS.parse(issuedAfter).header == CompactJWS.Header(alg: "ES256", kid: "k2", typ: "JWT"))
        // A rotation keeps the old key's tokens working; the new key signs.
        #expect(try rotated.verify(issuedBefore, now: Self.now, issuer: "brokergateway") == Self.claims())
        #expect(try rotated.verify(issuedAfter, now: Self.now, issuer: "brokergateway") == Self.claims())
        // Retiring the old key retires its tokens.
        #expect(Self.refusedAsInvalid(SessionKeyRing([("k2", new)]), issuedBefore))
        let payload = try JSONSerialization.jsonObject(with: CompactJWS.parse(issuedAfter).payload) as? [String: Any] ?? [:]
        #expect(Set(payload.keys) == ["iss", "sub", "tid", "sid", "did", "scope", "iat", "exp"])
        #expect(payload["exp"] as? Double == Self.now.timeIntervalSince1970 + 900)
    }

    @Test("a ring without keys cannot sign, and says so")
    func noKeys() {
        #expect(throws: GatewayError.self) { try SessionKeyRing([]).sign(Self.claims()) }
        #expect(Self.refusedAsInvalid(SessionKeyRing([]), "a.b.c"))
    }

    @Test("refused: alg none, HS256 or HS512, crit, a missing or unknown kid, another key's signature")
    func refusedHeaders() throws {
        let key = P256.Signing.PrivateKey()
        let ring = SessionKeyRing([("k1", key)])
        let good = try ring.sign(Self.claims())
        let parts = good.split(separator: ".").map(String.init)
        let claimsSegment = parts[1]
        // alg none, both as usually sent (no signature) and with the real signature kept.
        #expect(Self.refusedAsInvalid(ring, Self.segment(#"{"alg":"none","kid":"k1","typ":"JWT"}"#) + "." + claimsSegment + "."))
        #expect(Self.refusedAsInvalid(ring, Self.segment(#"{"alg":"none","kid":"k1"}"#) + "." + claimsSegment + "." + parts[2]))
        // HMAC algorithms keyed with what an attacker knows: the public key.
        let publicKey = SymmetricKey(data: key.publicKey.x963Representation)
        let hs256 = Self.segment(#"{"alg":"HS256","kid":"k1","typ":"JWT"}"#) + "." + claimsSegment
        let hs256MAC = HMAC<SHA256>.authenticationCode(for: Data(hs256.utf8), using: publicKey)
        #expect(Self.refusedAsInvalid(ring, hs256 + "." + CompactJWS.base64URLEncoded(Data(hs256MAC))))
        let hs512 = Self.segment(#"{"alg":"HS512","kid":"k1","typ":"JWT"}"#) + "." + claimsSegment
        let hs512MAC = HMAC<SHA512>.authenticationCode(for: Data(hs512.utf8), using: publicKey)
        #expect(Self.refusedAsInvalid(ring, hs512 + "." + CompactJWS.base64URLEncoded(Data(hs512MAC))))
        // Properly signed by the ring's key, but the header is wrong.
        for header in [
            #"{"alg":"ES256","typ":"JWT"}"#,
            #"{"alg":"ES256","kid":"k9","typ":"JWT"}"#,
            #"{"alg":"ES256","kid":"k1","crit":["exp"]}"#,
            #"{"alg":"ES384","kid":"k1"}"#,
            #"{"kid":"k1"}"#,
            #"["ES256"]"#,
        ] {
            #expect(Self.refusedAsInvalid(ring, try Self.forged(header: header, key: key)), "\(header)")
        }
        // The control: the same forging with the header the ring writes is accepted, so the refusals above are the
        // headers' doing.
        let control = try Self.forged(header: #"{"alg":"ES256","kid":"k1","typ":"JWT"}"#, key: key)
        #expect(try ring.verify(control, now: Self.now, issuer: "brokergateway") == Self.claims())
        // Another key's signature under this kid.
        #expect(Self.refusedAsInvalid(ring, try Self.forged(header: #"{"alg":"ES256","kid":"k1"}"#, key: P256.Signing.PrivateKey())))
    }

    @Test("refused: padding, two or four segments, characters outside base64url, a DER signature, a changed byte")
    func refusedForms() throws {
        let key = P256.Signing.PrivateKey()
        let ring = SessionKeyRing([("k1", key)])
        let good = try ring.sign(Self.claims())
        let parts = good.split(separator: ".").map(String.init)
        #expect(try ring.verify(good, now: Self.now, issuer: "brokergateway") == Self.claims())
        let padded = parts.map { $0 + String(repeating: "=", count: (4 - $0.count % 4) % 4) }
        #expect(padded != parts, "at least one segment needs padding, so the case is tested")
        #expect(Self.refusedAsInvalid(ring, padded.joined(separator: ".")))
        #expect(Self.refusedAsInvalid(ring, good + "."))
        #expect(Self.refusedAsInvalid(ring, good + "." + parts[2]))
        #expect(Self.refusedAsInvalid(ring, parts[0] + "." + parts[1]))
        #expect(Self.refusedAsInvalid(ring, ""))
        #expect(Self.refusedAsInvalid(ring, parts[0] + "." + parts[1] + ".+" + parts[2].dropFirst()))
        #expect(Self.refusedAsInvalid(ring, " " + good))
        let signature = try key.signature(for: Data((parts[0] + "." + parts[1]).utf8))
        #expect(Self.refusedAsInvalid(ring, parts[0] + "." + parts[1] + "." + CompactJWS.base64URLEncoded(signature.derRepresentation)))
        #expect(Self.refusedAsInvalid(ring, String(repeating: "A", count: CompactJWS.maximumLength) + "." + good))
        for index in [3, parts[0].count + 5, good.utf8.count - 3] {
            #expect(Self.refusedAsInvalid(ring, Self.flipped(good, at: index)), "index \(index)")
        }
    }

    @Test("an expired token, or another issuer's, is refused with the API's 'expired: refresh it' 401")
    func expired() throws {
        let ring = SessionKeyRing([("k1", P256.Signing.PrivateKey())])
        for claims in [
            Self.claims(expiring: Self.now),
            Self.claims(expiring: Self.now.addingTimeInterval(-1)),
            Self.claims(issuer: "someone-else"),
        ] {
            let token = try ring.sign(claims)
            #expect(throws: GatewayError(.unauthorized, "the access token has expired: refresh it", retryable: false)) {
                try ring.verify(token, now: Self.now, issuer: "brokergateway")
            }
        }
        let live = try ring.sign(Self.claims(expiring: Self.now.addingTimeInterval(0.5)))
        #expect(try ring.verify(live, now: Self.now, issuer: "brokergateway").sid == "ses_1")
    }

    // MARK: Tokens of the jwt-kit version

    /// The raw private key the fixtures below were signed with (32 bytes of 7).
    static let fixtureKey = Data(repeating: 7, count: 32)
    /// An access token issued by the gateway before this version (jwt-kit 5.8.0 signing ``AccessTokenClaims``
    /// with key id `sk1764300000-abcdef`): iat 1764320000.25, exp 1764320900.25.
    static let jwtKitAccessToken =
        "eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzI1NiIsImtpZCI6InNrMTc2NDMwMDAwMC1hYmNkZWYifQ"
        + ".eyJzaWQiOiJzZXNfZml4dHVyZSIsInRpZCI6InRlbl9maXh0dXJlIiwic3ViIjoidXNyX2ZpeHR1cmUiLCJkaWQiOiJkZXZfZml4dHVyZSIsImlzcyI6ImJyb2tlcmdhdGV3YXkiLCJleHAiOjE3NjQzMjA5MDAuMjUsImlhdCI6MTc2NDMyMDAwMC4yNSwic2NvcGUiOiJyZWFkIHRyYWRlIn0"
        + ".on0kck9RVrVeD5phck_CVKBtMHavcjj6ZPt6r-14kkf6MyoxZ5U702zvLL7wX4CvswbFAsBfkwZvCehdZnvV1w"
    /// An APNs provider token made by jwt-kit 5.8.0 before this version (team TEAM123456, key KEY1234567, iat
    /// 1764320000.5).
    static let jwtKitAPNsToken =
        "eyJ0eXAiOiJKV1QiLCJraWQiOiJLRVkxMjM0NTY3IiwiYWxnIjoiRVMyNTYifQ"
        + ".eyJpYXQiOjE3NjQzMjAwMDAuNSwiaXNzIjoiVEVBTTEyMzQ1NiJ9"
        + "._GGpvITWSYSgrO9kWmSYFDiNUHsFkRABtBGdWDjYbY_wEQF4Xdupo299vMfG4QB_Dy2pXZ07Ncs3iK0x8uhbmQ"

    @Test("an access token issued by the jwt-kit version verifies, with every claim, after the upgrade")
    func jwtKitToken() throws {
        let key = try P256.Signing.PrivateKey(rawRepresentation: Self.fixtureKey)
        let ring = SessionKeyRing([("sk1700000000-old", P256.Signing.PrivateKey()), ("sk1764300000-abcdef", key)])
        let claims = try ring.verify(Self.jwtKitAccessToken, now: Date(timeIntervalSince1970: 1_764_320_100), issuer: "brokergateway")
        #expect(
            claims
                == AccessTokenClaims(
                    iss: "brokergateway",
                    sub: "usr_fixture",
                    tid: "ten_fixture",
                    sid: "ses_fixture",
                    did: "dev_fixture",
                    scope: "read trade",
                    iat: Date(timeIntervalSince1970: 1_764_320_000.25),
                    exp: Date(timeIntervalSince1970: 1_764_320_900.25)
                )
        )
        // And ours carries the same header fields and claims as jwt-kit's did.
        let ours = try ring.sign(claims)
        #expect(try CompactJWS.parse(ours).header == CompactJWS.parse(Self.jwtKitAccessToken).header)
        #expect(try Self.jsonObject(CompactJWS.parse(ours).payload) == Self.jsonObject(CompactJWS.parse(Self.jwtKitAccessToken).payload))
    }

    @Test("the APNs provider token: ES256 with Apple's key id, iss the team, iat now, as the jwt-kit version made it")
    func apnsToken() async throws {
        let key = try P256.Signing.PrivateKey(rawRepresentation: Self.fixtureKey)
        let provider = APNsProvider(
            settings: APNsSettings(teamId: "TEAM123456", keyId: "KEY1234567", key: key, topic: "com.example.app", environment: .sandbox)
        )
        let token = try await provider.token(now: Date(timeIntervalSince1970: 1_764_320_000.5))
        let parsed = try CompactJWS.parse(token)
        try CompactJWS.verifyES256(parsed, key: key.publicKey)
        #expect(parsed.signature.count == 64)
        let before = try CompactJWS.parse(Self.jwtKitAPNsToken)
        try CompactJWS.verifyES256(before, key: key.publicKey)
        #expect(parsed.header == before.header && parsed.header == CompactJWS.Header(alg: "ES256", kid: "KEY1234567", typ: "JWT"))
        #expect(try Self.jsonObject(parsed.payload) == Self.jsonObject(before.payload))
    }

    /// A JSON object's text with sorted keys, so two encodings of one object compare equal.
    static func jsonObject(_ data: Data) throws -> String {
        let object = try JSONSerialization.jsonObject(with: data)
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: .sortedKeys), as: UTF8.self)
    }
}
