public import Foundation
import Synchronization

/// The time source of a sandbox. Prices, order timestamps, expiries and rate-limit windows all read it,
/// so a test that swaps in a ``ManualClock`` controls every time-dependent answer without sleeping.
public protocol SandboxClock: Sendable {
    func now() -> Date
}

/// The machine's wall clock.
public struct WallClock: SandboxClock {
    /// The wall clock has no state.
    public init() {}
    /// The machine's current time.
    public func now() -> Date { Date() }
}

/// A clock that only moves when told to. Used by tests and by `POST /_sandbox/clock/advance`.
public final class ManualClock: SandboxClock {
    private let current: Mutex<Date>

    /// - Parameter start: the initial time; defaults to Monday 2025-01-06 15:00 UTC (10:00 New York, market open).
    public init(start: Date = ManualClock.defaultStart) {
        self.current = Mutex(start)
    }

    /// 2025-01-06T15:00:00Z.
    public static let defaultStart = Date(timeIntervalSince1970: 1_736_175_600)

    /// The clock's current time; it changes only through ``advance(by:)`` and ``set(_:)``.
    public func now() -> Date { current.withLock { $0 } }

    /// Moves the clock forward (a negative interval is ignored: time never runs backwards).
    public func advance(by seconds: TimeInterval) {
        guard seconds > 0, seconds.isFinite else { return }
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// Moves the clock forward by `duration` (a negative one is ignored: time never runs backwards).
    public func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        advance(by: Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// Sets the clock to `date` if that is not in its past.
    public func set(_ date: Date) {
        current.withLock { if date > $0 { $0 = date } }
    }
}
