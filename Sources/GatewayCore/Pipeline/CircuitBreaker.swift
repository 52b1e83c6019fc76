import Foundation

/// One connection's circuit breaker, as a state machine apart from its I/O: `admit` before a call, `record` after.
///
/// Closed: calls go through; it opens after `breakerConsecutiveFailures` failures in a row, or when failures are
/// at least `breakerFailureRatio` of the calls in the rolling `breakerWindow` (once there were
/// `breakerMinimumCalls`). Open: calls fail at once until the cool-down ends. Half-open: exactly one probe goes
/// through; its success closes the breaker, its failure opens it again. Failures are transport failures and 5xx
/// answers; 4xx and 429 say the broker is up.
struct CircuitBreaker: Sendable {
    enum Phase: Sendable, Equatable {
        case closed
        case open(until: ContinuousClock.Instant)
        case halfOpen(probing: Bool)
    }

    enum Admission: Sendable, Equatable {
        case allowed(probe: Bool)
        case rejected(retryAfter: Duration)
    }

    enum Outcome: Sendable {
        case success
        case failure
        /// Says nothing about the broker's health (cancelled, refused before leaving, 429).
        case neutral
    }

    let settings: PipelineSettings
    private(set) var phase: Phase = .closed
    /// When the phase last changed; `nil` while it never has.
    private(set) var since: Date?
    private var consecutiveFailures = 0
    /// Outcomes in the rolling window, counted per slice of `breakerWindow / sliceCount`, oldest first, with running
    /// totals: recording is O(1) however many calls a busy connection makes (a list of every outcome, trimmed and
    /// counted on each call, was a tenth of the gateway's CPU per read at a few hundred calls a second). The window is
    /// therefore exact to one slice.
    private var slices: [Slice] = []
    private var windowCalls = 0
    private var windowFailures = 0
    static let sliceCount = 60

    struct Slice: Sendable {
        var start: ContinuousClock.Instant
        var calls: Int
        var failures: Int
    }

    init(settings: PipelineSettings) {
        self.settings = settings
    }

    var state: BreakerState {
        switch phase {
        case .closed: .closed
        case .open: .open
        case .halfOpen: .halfOpen
        }
    }

    /// The state as it stands now, for the dashboard: an open breaker whose cool-down has ended is half open (its
    /// next call is the probe), not open.
    func shownState(now: ContinuousClock.Instant) -> BreakerState {
        if case .open(let until) = phase, now >= until { return .halfOpen }
        return state
    }

    /// Whether a probe call would be admitted now: the cool-down has ended and no probe is out.
    func awaitsProbe(now: ContinuousClock.Instant) -> Bool {
        switch phase {
        case .closed: false
        case .open(let until): now >= until
        case .halfOpen(let probing): !probing
        }
    }

    /// How long calls are still refused, without admitting one: an open breaker before its cool-down ends, or a
    /// half-open one whose probe is out. `nil` when a call would be let through.
    func refusal(now: ContinuousClock.Instant) -> Duration? {
        switch phase {
        case .closed: nil
        case .open(let until): now < until ? now.duration(to: until) : nil
        case .halfOpen(let probing): probing ? settings.retryBaseDelay : nil
        }
    }

    mutating func admit(now: ContinuousClock.Instant, wallClock: Date) -> Admission {
        switch phase {
        case .closed:
            return .allowed(probe: false)
        case .open(let until):
            guard now >= until else { return .rejected(retryAfter: now.duration(to: until)) }
            move(to: .halfOpen(probing: true), at: wallClock)
            return .allowed(probe: true)
        case .halfOpen(let probing):
            if probing { return .rejected(retryAfter: settings.retryBaseDelay) }
            phase = .halfOpen(probing: true)
            return .allowed(probe: true)
        }
    }

    mutating func record(_ outcome: Outcome, probe: Bool, now: ContinuousClock.Instant, wallClock: Date) {
        if probe {
            switch outcome {
            case .success:
                consecutiveFailures = 0
                clearWindow()
                move(to: .closed, at: wallClock)
            case .failure:
                move(to: .open(until: now + settings.breakerCoolDown), at: wallClock)
            case .neutral:
                // The probe told nothing: let the next call probe.
                if case .halfOpen = phase { phase = .halfOpen(probing: false) }
            }
            return
        }
        guard case .closed = phase else { return }
        switch outcome {
        case .neutral: return
        case .success: consecutiveFailures = 0
        case .failure: consecutiveFailures += 1
        }
        count(failed: outcome == .failure, at: now)
        let ratioTripped =
            windowCalls >= settings.breakerMinimumCalls
            && Double(windowFailures) >= settings.breakerFailureRatio * Double(windowCalls)
        if consecutiveFailures >= settings.breakerConsecutiveFailures || ratioTripped {
            move(to: .open(until: now + settings.breakerCoolDown), at: wallClock)
        }
    }

    /// Adds one outcome to the current slice (a new one when the last began a slice length ago or more), and drops
    /// the slices that ended before the window.
    private mutating func count(failed: Bool, at now: ContinuousClock.Instant) {
        let sliceLength = settings.breakerWindow / Self.sliceCount
        if let last = slices.last, now - last.start < sliceLength {
            slices[slices.count - 1].calls += 1
            if failed { slices[slices.count - 1].failures += 1 }
        } else {
            slices.append(Slice(start: now, calls: 1, failures: failed ? 1 : 0))
        }
        windowCalls += 1
        if failed { windowFailures += 1 }
        let horizon = now - settings.breakerWindow
        var expired = 0
        while expired < slices.count, slices[expired].start + sliceLength <= horizon {
            windowCalls -= slices[expired].calls
            windowFailures -= slices[expired].failures
            expired += 1
        }
        if expired > 0 { slices.removeFirst(expired) }
    }

    private mutating func clearWindow() {
        slices.removeAll()
        windowCalls = 0
        windowFailures = 0
    }

    private mutating func move(to phase: Phase, at wallClock: Date) {
        self.phase = phase
        since = wallClock
        if case .open = phase {
            consecutiveFailures = 0
            clearWindow()
        }
    }
}

extension CircuitBreaker.Outcome: Equatable {}
