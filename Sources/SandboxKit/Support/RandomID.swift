import Foundation

/// The random identifiers the simulators hand out (tokens, codes, request and correlation ids), one spelling each.
public enum RandomID {
    /// A lowercase UUID with dashes: `0b5c9a4e-3f0d-4a8e-9a51-6f1c2d3e4f50`.
    public static func uuid() -> String { UUID().uuidString.lowercased() }

    /// 32 lowercase hex digits (a UUID without dashes), as request and correlation ids are written.
    public static func hex() -> String { uuid().replacingOccurrences(of: "-", with: "") }

    /// The first `length` characters of ``uuid()``: a short random suffix that keeps counters unguessable.
    public static func suffix(_ length: Int) -> String { String(uuid().prefix(length)) }
}
