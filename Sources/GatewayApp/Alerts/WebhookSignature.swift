import Crypto
public import Foundation
import GatewayCore

/// The signature of a webhook delivery: `BrokerGateway-Signature: t=<unix seconds>,v1=<hex>`, where the hex is
/// HMAC-SHA256 keyed with the alert's secret (its UTF-8 bytes, `whsec_` included) over `"<t>.<body>"`, the body
/// being the exact bytes POSTed. A receiver recomputes it, compares in constant time, and refuses a `t` too far
/// from its clock (replays). Pure: the tests and the README's recipe agree on it.
public enum WebhookSignature {
    /// The header carrying `t=<unix seconds>,v1=<hex HMAC>`, which a receiver checks before trusting the body.
    public static let signatureHeader = "BrokerGateway-Signature"
    /// The header carrying the firing's event id, the same on every retry, so a receiver can drop duplicates.
    public static let eventIdHeader = "BrokerGateway-Event-Id"
    /// How far a timestamp may be from the receiver's clock by default.
    public static let defaultTolerance: TimeInterval = 300

    /// A fresh signing secret: `whsec_` and 40 base32 characters (200 random bits).
    public static func makeSecret() -> String {
        "whsec_" + RandomIdentifier.base32(count: 40)
    }

    /// The header's value for `body` sent at `timestamp` (unix seconds).
    public static func header(body: Data, secret: String, timestamp: Int64) -> String {
        "t=\(timestamp),v1=\(hex(body: body, secret: secret, timestamp: timestamp))"
    }

    static func hex(body: Data, secret: String, timestamp: Int64) -> String {
        var signed = Data("\(timestamp).".utf8)
        signed.append(body)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Data(secret.utf8)))
        return RandomIdentifier.hex(Array(mac))
    }

    /// Whether `header` signs `body` with `secret` at a time within `tolerance` of `now`: what a receiver checks.
    public static func verify(
        header: String,
        body: Data,
        secret: String,
        now: Date,
        tolerance: TimeInterval = defaultTolerance
    ) -> Bool {
        var timestamp: Int64?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int64(pair[1]) }
            if pair[0] == "v1" { signatures.append(pair[1]) }
        }
        guard let timestamp, abs(now.timeIntervalSince1970 - Double(timestamp)) <= tolerance else { return false }
        let expected = hex(body: body, secret: secret, timestamp: timestamp)
        return signatures.contains { ConstantTime.equals($0, expected) }
    }
}
