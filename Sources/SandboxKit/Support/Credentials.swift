import Foundation

/// The credentials of an `Authorization: Basic base64(user:password)` header.
public struct BasicCredentials: Sendable, Equatable {
    /// The part before the first `:` (for Alpaca, the API key id).
    public var user: String
    /// Everything after the first `:`, colons included (for Alpaca, the secret key); compare it with ``Secret/equals(_:_:)``.
    public var password: String

    /// Parses a whole `Authorization` header value; nil when it is not Basic or not `user:password` in base64.
    public init?(authorization: String) {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic" else { return nil }
        self.init(base64: parts[1])
    }

    /// Parses the base64 part (after `Basic `).
    public init?(base64: some StringProtocol) {
        guard let data = Data(base64Encoded: String(base64).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        self.user = String(text[..<colon])
        self.password = String(text[text.index(after: colon)...])
    }
}

/// Secret comparison for the simulators' credential checks.
public enum Secret {
    /// Compares secrets without an early exit, so timing does not reveal how much of a guess was right.
    public static func equals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference: UInt8 = x.count == y.count ? 0 : 1
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}
