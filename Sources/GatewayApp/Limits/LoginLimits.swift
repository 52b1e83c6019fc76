/// What anonymous logins may ask of the gateway, so that a flood of them (from one address, or at one tenant) cannot
/// stop another client's login: request rates per client address and per (tenant, email), checked before any
/// password is hashed; the password-hashing slots, of which one tenant may hold only its share, with a short bounded
/// queue behind them (a full share and queue answer 429 at once, never a long wait); and the lockout after repeated
/// failures, kept per (client address, tenant, email) so that an attacker elsewhere cannot lock the real user out.
public struct LoginLimits: Sendable, Hashable {
    /// Logins one client address may attempt per minute, sustained (whatever tenant or email they name).
    public var perAddressPerMinute: Int
    /// Logins one client address may attempt at once above its sustained rate.
    public var perAddressBurst: Int
    /// Logins naming one (tenant, email) may be attempted per minute, sustained, from all addresses together.
    public var perEmailPerMinute: Int
    /// Logins naming one (tenant, email) may be attempted at once above the sustained rate.
    public var perEmailBurst: Int
    /// Password hashes (scrypt, about 32 MiB each) computed at once by the whole process.
    public var hashingSlots: Int
    /// Of those, how many one tenant may hold at once (logins naming an unknown tenant share one such share).
    public var hashingSlotsPerTenant: Int
    /// Hashes one tenant may have waiting for a slot; one more answers 429 at once.
    public var hashingQueuePerTenant: Int
    /// The longest a queued hash waits for a slot before answering 429.
    public var hashingWait: Duration
    /// Failed logins in a row from one address for one (tenant, email) before it is locked out for a while.
    public var failuresBeforeLockout: Int
    /// The first lockout's length in seconds; each further failure doubles it, up to `lockoutMaximumSeconds`.
    public var lockoutBaseSeconds: Int
    /// The longest lockout in seconds, however many failures came before.
    public var lockoutMaximumSeconds: Int
    /// The most (address, tenant, email) entries the lockout table keeps; past it the stalest are forgotten.
    public var lockoutEntries: Int

    /// Login limits from configuration; each default is the gateway's own.
    public init(
        perAddressPerMinute: Int = 30,
        perAddressBurst: Int = 10,
        perEmailPerMinute: Int = 20,
        perEmailBurst: Int = 10,
        hashingSlots: Int = 2,
        hashingSlotsPerTenant: Int? = nil,
        hashingQueuePerTenant: Int = 8,
        hashingWait: Duration = .seconds(10),
        failuresBeforeLockout: Int = 5,
        lockoutBaseSeconds: Int = 30,
        lockoutMaximumSeconds: Int = 3600,
        lockoutEntries: Int = 100_000
    ) {
        self.perAddressPerMinute = max(1, perAddressPerMinute)
        self.perAddressBurst = max(1, perAddressBurst)
        self.perEmailPerMinute = max(1, perEmailPerMinute)
        self.perEmailBurst = max(1, perEmailBurst)
        self.hashingSlots = max(1, hashingSlots)
        // By default a tenant holds half the slots, so one other tenant always finds one free.
        self.hashingSlotsPerTenant = min(self.hashingSlots, max(1, hashingSlotsPerTenant ?? self.hashingSlots / 2))
        self.hashingQueuePerTenant = max(0, hashingQueuePerTenant)
        self.hashingWait = hashingWait
        self.failuresBeforeLockout = max(1, failuresBeforeLockout)
        self.lockoutBaseSeconds = max(1, lockoutBaseSeconds)
        self.lockoutMaximumSeconds = max(self.lockoutBaseSeconds, lockoutMaximumSeconds)
        self.lockoutEntries = max(100, lockoutEntries)
    }
}
