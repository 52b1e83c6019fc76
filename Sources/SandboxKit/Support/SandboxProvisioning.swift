import Foundation

/// Why a simulator cannot open another account at run time.
public struct SandboxProvisioningError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why, in words the admin API answers with.
    public var message: String

    /// An error answering `message` (a sentence, no secrets: the admin API shows it as is).
    public init(_ message: String) {
        self.message = message
    }

    /// The `broker` sandbox already holds `limit` accounts opened at run time, the most it opens.
    public static func full(_ broker: String, limit: Int) -> SandboxProvisioningError {
        SandboxProvisioningError("the \(broker) sandbox holds \(limit) accounts opened at run time, its most")
    }

    /// The message.
    public var description: String { message }
}

/// Random credentials in the shapes the real brokers hand out, from the system's CSPRNG.
public enum SandboxSecret {
    static let upper = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    static let mixed = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// `count` characters of `A–Z0–9`.
    public static func upper(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in upper[Int(generator.next(upperBound: UInt(upper.count)))] })
    }

    /// `count` characters of `A–Za–z0–9`.
    public static func mixed(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in mixed[Int(generator.next(upperBound: UInt(mixed.count)))] })
    }

    /// `count` random decimal digits.
    public static func digits(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in Character(String(generator.next(upperBound: UInt(10)))) })
    }
}
