/// Randomness that is the same on every platform and every run.
///
/// Swift's `Hasher` is seeded per process, so it must never feed anything that has to be reproducible;
/// these use FNV-1a for names and SplitMix64 for streams.
public enum StableHash {
    /// FNV-1a, 64 bit.
    public static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// One SplitMix64 output for `x`: a good 64-bit mixer.
    public static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// Mixes two words into one; the same as the variadic form, without its array: the price path calls this 20 times
    /// for every bucket it prices.
    public static func combine(_ first: UInt64, _ second: UInt64) -> UInt64 {
        mix(mix(0x243f_6a88_85a3_08d3 ^ first) ^ second)
    }

    /// Mixes three words into one, as the variadic form does.
    public static func combine(_ first: UInt64, _ second: UInt64, _ third: UInt64) -> UInt64 {
        mix(combine(first, second) ^ third)
    }

    /// Mixes several words into one.
    public static func combine(_ words: UInt64...) -> UInt64 {
        var state: UInt64 = 0x243f_6a88_85a3_08d3
        for word in words {
            state = mix(state ^ word)
        }
        return state
    }
}

/// SplitMix64: a seeded generator for probabilities and jitter that tests can reproduce.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose outputs are a pure function of `seed`: the same seed gives the same sequence on every run.
    public init(seed: UInt64) { self.state = seed }

    /// The next 64 uniformly distributed bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
