/// Comparisons of secrets (API key hashes, link state nonces) in time that depends only on the lengths, never on
/// where the two first differ, so the answer's timing tells an attacker nothing about a correct prefix.
public enum ConstantTime {
    /// Whether two byte strings are equal. Unequal lengths are unequal at once (lengths are not secret).
    public static func equals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }

    /// Whether two strings have the same UTF-8 bytes.
    public static func equals(_ lhs: String, _ rhs: String) -> Bool {
        equals(Array(lhs.utf8), Array(rhs.utf8))
    }
}
