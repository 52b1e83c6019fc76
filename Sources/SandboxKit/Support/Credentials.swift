import Foundation

/// The credentials of an `Authorization: Basic base64(user:password)` header.
package struct BasicCredentials: Sendable, Equatable {
    package var user: String
    package var password: String

    /// Parses a whole `Authorization` header value; nil when it is not Basic or not `user:password` in base64.
    package init?(authorization: String) {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic" else { return nil }
        self.init(base64: parts[1])
    }

    /// Parses the base64 part (after `Basic `).
    package init?(base64: some StringProtocol) {
        guard let data = Data(base64Encoded: String(base64).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        self.user = String(text[..<colon])
        self.password = String(text[text.index(after: colon)...])
    }
}

/// Secret comparison for the simulators' credential checks.
package enum Secret {
    /// Compares secrets without an early exit, so timing does not reveal how much of a guess was right.
    package static func equals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference: UInt8 = x.count == y.count ? 0 : 1
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}
