/// How the broker-call pipeline behaves: circuit breaker thresholds, retry budget, rate-limit reserve, health
/// window. Defaults are what a production gateway would pick; tests shorten the durations.
public struct PipelineSettings: Sendable {
    /// Consecutive failures (transport failures and 5xx) that open a connection's breaker.
    public var breakerConsecutiveFailures: Int
    /// Failure share over `breakerWindow` that opens the breaker, once `breakerMinimumCalls` calls were seen: catches
    /// a broker that fails every other call, which never makes a run of consecutive failures.
    public var breakerFailureRatio: Double
    /// Calls the window must hold before `breakerFailureRatio` may open the breaker (at least 1), so a few early
    /// failures of a quiet connection do not.
    public var breakerMinimumCalls: Int
    /// The rolling window the failure ratio is measured over.
    public var breakerWindow: Duration
    /// How long an open breaker fails calls at once before it lets one probe through.
    public var breakerCoolDown: Duration
    /// Retries of an idempotent read (so at most `maxRetries + 1` attempts); writes are never retried.
    public var maxRetries: Int
    /// The first backoff; each retry doubles it, up to `retryMaxDelay`, with jitter.
    public var retryBaseDelay: Duration
    /// The longest backoff between two attempts, whatever the doubling reached.
    public var retryMaxDelay: Duration
    /// The longest `Retry-After` a retry waits for (a broker asking for more fails the call with its hint).
    public var retryAfterLimit: Duration
    /// Share of each rate-limit budget kept in reserve (for other processes on the same account, clock skew);
    /// rounded down, so a budget of 1 per second keeps none.
    public var rateLimitReserve: Double
    /// Calls that may go back to back while a budget is plentiful (at most a quarter of what is left), before
    /// pacing spaces them; 1 paces every call.
    public var rateLimitBurst: Int
    /// A call does not wait for a rate-limit slot that leaves it less than this before its deadline.
    public var minimumCallTime: Duration
    /// Length of one health slice; the window is `healthSlices` of them (ten seconds × 30 = five minutes).
    public var healthSlice: Duration
    /// How many slices the health window keeps; with `healthSlice` it sets the window `GET /v1/status` reports.
    public var healthSlices: Int
    /// Latency samples kept per slice (bounded memory; p50/p99 come from these).
    public var latencySamplesPerSlice: Int

    /// Settings with production defaults. Counts are raised to their minimum (1; retries 0), the reserve is kept
    /// within 0…0.5, and a health slice that is not positive becomes ten seconds.
    public init(
        breakerConsecutiveFailures: Int = 5,
        breakerFailureRatio: Double = 0.5,
        breakerMinimumCalls: Int = 20,
        breakerWindow: Duration = .seconds(60),
        breakerCoolDown: Duration = .seconds(30),
        maxRetries: Int = 2,
        retryBaseDelay: Duration = .milliseconds(200),
        retryMaxDelay: Duration = .seconds(2),
        retryAfterLimit: Duration = .seconds(10),
        rateLimitReserve: Double = 0.05,
        rateLimitBurst: Int = 5,
        minimumCallTime: Duration = .milliseconds(50),
        healthSlice: Duration = .seconds(10),
        healthSlices: Int = 30,
        latencySamplesPerSlice: Int = 128
    ) {
        self.breakerConsecutiveFailures = max(1, breakerConsecutiveFailures)
        self.breakerFailureRatio = breakerFailureRatio
        self.breakerMinimumCalls = max(1, breakerMinimumCalls)
        self.breakerWindow = breakerWindow
        self.breakerCoolDown = breakerCoolDown
        self.maxRetries = max(0, maxRetries)
        self.retryBaseDelay = retryBaseDelay
        self.retryMaxDelay = retryMaxDelay
        self.retryAfterLimit = retryAfterLimit
        self.rateLimitReserve = min(max(rateLimitReserve, 0), 0.5)
        self.rateLimitBurst = max(1, rateLimitBurst)
        self.minimumCallTime = minimumCallTime
        self.healthSlice = healthSlice > .zero ? healthSlice : .seconds(10)
        self.healthSlices = max(1, healthSlices)
        self.latencySamplesPerSlice = max(1, latencySamplesPerSlice)
    }
}
