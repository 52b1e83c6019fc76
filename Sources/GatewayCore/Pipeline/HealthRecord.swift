import Foundation
import GatewayModel

/// One connection's upstream calls over a rolling window of fixed slices (ten seconds × 30 by default), in bounded
/// memory: per slice a count of calls and errors and at most `latencySamplesPerSlice` latency samples (reservoir
/// sampling keeps them representative of a busy slice).
struct HealthRecord: Sendable {
    struct SliceData: Sendable {
        var index: Int64
        var calls = 0
        var errors = 0
        var seen = 0
        var latenciesMs: [Double] = []
    }

    let sliceSeconds: Double
    let sliceCount: Int
    let samplesPerSlice: Int
    /// Ring of slices, indexed by `index % sliceCount`.
    private var slices: [SliceData?]
    private(set) var lastSuccessAt: Date?
    private(set) var lastError: ConnectionHealth.Failure?
    private(set) var recentErrors: [ConnectionHealth.Failure] = []
    static let recentErrorLimit = 10

    init(settings: PipelineSettings) {
        sliceSeconds = max(0.001, settings.healthSlice.seconds)
        sliceCount = settings.healthSlices
        samplesPerSlice = settings.latencySamplesPerSlice
        slices = Array(repeating: nil, count: settings.healthSlices)
    }

    func sliceIndex(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 / sliceSeconds).rounded(.down)
        return Int64(exactly: value) ?? 0
    }

    /// One upstream call: its latency, and its failure if it failed (`nil` for a success).
    mutating func record(at date: Date, latencyMs: Double, failure: ConnectionHealth.Failure?) {
        let index = sliceIndex(date)
        let position = Int(((index % Int64(sliceCount)) + Int64(sliceCount)) % Int64(sliceCount))
        var slice = slices[position].flatMap { $0.index == index ? $0 : nil } ?? SliceData(index: index)
        slice.calls += 1
        slice.seen += 1
        if slice.latenciesMs.count < samplesPerSlice {
            slice.latenciesMs.append(latencyMs)
        } else {
            let pick = Int.random(in: 0..<slice.seen)
            if pick < samplesPerSlice { slice.latenciesMs[pick] = latencyMs }
        }
        if let failure {
            slice.errors += 1
            lastError = failure
            recentErrors.insert(failure, at: 0)
            if recentErrors.count > Self.recentErrorLimit { recentErrors.removeLast(recentErrors.count - Self.recentErrorLimit) }
        } else {
            lastSuccessAt = date
        }
        slices[position] = slice
    }

    /// A call that went through at the HTTP level but was a refusal in the broker's own terms (TradeIt answers a
    /// refused login 200 with an `ERROR` envelope): the latest success of the slice becomes a failure, or, with none
    /// left to turn, the refusal is counted as a failed call of its own.
    mutating func refuse(at date: Date, failure: ConnectionHealth.Failure) {
        let index = sliceIndex(date)
        let position = Int(((index % Int64(sliceCount)) + Int64(sliceCount)) % Int64(sliceCount))
        guard var slice = slices[position].flatMap({ $0.index == index ? $0 : nil }), slice.calls > slice.errors else {
            record(at: date, latencyMs: 0, failure: failure)
            return
        }
        slice.errors += 1
        slices[position] = slice
        lastError = failure
        recentErrors.insert(failure, at: 0)
        if recentErrors.count > Self.recentErrorLimit { recentErrors.removeLast(recentErrors.count - Self.recentErrorLimit) }
    }

    /// The window as of `now`, oldest slice first (slices without calls included, so the sparkline has no gaps).
    func snapshot(
        connectionId: String,
        broker: BrokerKind,
        now: Date,
        breaker: BreakerState,
        breakerSince: Date?,
        headroom: Double?
    ) -> ConnectionHealth {
        let current = sliceIndex(now)
        var out: [ConnectionHealth.Slice] = []
        var all: [Double] = []
        var calls = 0
        var errors = 0
        for index in (current - Int64(sliceCount) + 1)...current {
            let position = Int(((index % Int64(sliceCount)) + Int64(sliceCount)) % Int64(sliceCount))
            let slice = slices[position].flatMap { $0.index == index ? $0 : nil }
            let latencies = (slice?.latenciesMs ?? []).sorted()
            all += latencies
            calls += slice?.calls ?? 0
            errors += slice?.errors ?? 0
            out.append(
                ConnectionHealth.Slice(
                    start: Date(timeIntervalSince1970: Double(index) * sliceSeconds),
                    calls: slice?.calls ?? 0,
                    errors: slice?.errors ?? 0,
                    p50Ms: Self.percentile(latencies, 0.5)
                )
            )
        }
        all.sort()
        return ConnectionHealth(
            connectionId: connectionId,
            broker: broker,
            breaker: breaker,
            breakerSince: breakerSince,
            lastSuccessAt: lastSuccessAt,
            lastError: lastError,
            calls: calls,
            errors: errors,
            errorRate: calls == 0 ? 0 : Double(errors) / Double(calls),
            p50Ms: Self.percentile(all, 0.5),
            p99Ms: Self.percentile(all, 0.99),
            rateLimitHeadroom: headroom,
            slices: out,
            recentErrors: recentErrors
        )
    }

    /// Nearest-rank percentile of sorted samples, in whole milliseconds (rounded, clamped: never trapping).
    static func percentile(_ sorted: [Double], _ p: Double) -> Int? {
        guard !sorted.isEmpty else { return nil }
        let rank = min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))
        let value = sorted[rank]
        guard value.isFinite else { return nil }
        return Int(exactly: min(max(value, 0), 1e9).rounded())
    }
}
