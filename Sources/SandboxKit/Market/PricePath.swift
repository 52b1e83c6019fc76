public import Foundation

/// The deterministic price path of one instrument.
///
/// The path is a sum of "octaves" of value noise: octave k has a random value every 4^k buckets,
/// interpolated linearly between them, with an amplitude that grows like 2^k (= sqrt(4^k)), which is how
/// a random walk's range grows with time. The result looks like a random walk over minutes to days,
/// but every bucket's price is a pure function of (seed, symbol, bucket): nothing is stored, any moment
/// can be computed directly, and two runs with the same seed agree exactly. All arithmetic is integer
/// (millionths of the reference price), then one Decimal multiplication: no Double touches a price.
public struct PricePath: Sendable {
    static let octaves = 10
    /// The scale of ``offset(bucket:)``: offsets are millionths of the reference price, so `unit` doubles it and 0 is the
    /// reference price itself (offsets never go below −0.9 `unit`).
    public static let unit: Int64 = 1_000_000

    let key: UInt64
    /// Amplitude of octave 0 in millionths of the reference price.
    public let baseAmplitude: Int64
    let referencePrice: Decimal
    let tickSize: Decimal

    /// The path of `instrument` (its reference price, tick size and volatility) under the market's `seed`: the same seed
    /// and symbol give the same prices on every run and platform.
    public init(instrument: MarketInstrument, seed: UInt64) {
        self.key = StableHash.combine(seed, StableHash.fnv1a(instrument.symbol))
        let micros = NSDecimalNumber(decimal: DecimalText.round(instrument.volatility * 1_000_000, scale: 0)).int64Value
        self.baseAmplitude = max(0, micros)
        self.referencePrice = instrument.referencePrice
        self.tickSize = instrument.tickSize
    }

    /// Uniform in [-unit, unit].
    private func noise(octave: Int, index: Int64) -> Int64 {
        let word = StableHash.combine(key, UInt64(octave), UInt64(bitPattern: index))
        return Int64(word % UInt64(2 * Self.unit + 1)) - Self.unit
    }

    /// Offset from the reference price in millionths, for a bucket.
    public func offset(bucket: Int64) -> Int64 {
        var total: Int64 = 0
        var span: Int64 = 1
        var amplitude = baseAmplitude
        for octave in 0..<Self.octaves {
            let index = Timestamp.floorDiv(bucket, span)
            let into = bucket - index * span
            let a = noise(octave: octave, index: index)
            let b = noise(octave: octave, index: index + 1)
            let value = (a * (span - into) + b * into) / span
            total += amplitude * value / Self.unit
            span *= 4
            amplitude *= 2
        }
        // Keep the price positive whatever the configuration.
        return max(total, -Self.unit * 9 / 10)
    }

    /// The mid price for a path offset, rounded to a tick.
    public func price(offset: Int64) -> Decimal {
        // Foundation's `referencePrice * Decimal(unit + offset) / Decimal(unit)`, exactly, without its cost (issue 29).
        let math = DecimalMath.fast
        let raw = math.quotient(math.product(referencePrice, Decimal(Self.unit + offset)), Decimal(Self.unit))
        return max(DecimalText.round(raw, toMultipleOf: tickSize), tickSize)
    }

    /// The mid price in price bucket `bucket` (unix seconds floor-divided by the market's bucket width), on the tick and
    /// at least one tick.
    public func price(bucket: Int64) -> Decimal { price(offset: offset(bucket: bucket)) }

    /// A deterministic small integer in 1...range for sizes.
    public func sizeFactor(bucket: Int64, salt: UInt64, range: UInt64) -> Int64 {
        Int64(StableHash.combine(key, salt, UInt64(bitPattern: bucket)) % range) + 1
    }
}
