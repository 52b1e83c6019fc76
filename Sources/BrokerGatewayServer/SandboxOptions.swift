public import ArgumentParser
import Foundation
import SandboxKit

/// How the sandboxes behave, for `gateway sandbox` and for `gateway serve`'s in-process ones: the brokers'
/// documented rate limits or none, a delay added to every answer, and when equities trade. A benchmark turns the
/// limits off; a client-library test adds latency or closes the market outside its hours. Each sandbox's registration
/// reads the rate limits and market hours into its simulator's own configuration; the gateway adds the latency.
public struct SandboxOptions: Sendable, Hashable {
    /// Whether sandboxes refuse requests past their broker's documented rates.
    public enum RateLimits: String, Sendable, CaseIterable, ExpressibleByArgument {
        /// Each broker's own, as its documentation gives them (Alpaca: 200 requests a minute per account and API).
        case on
        /// No request is refused for its rate: the budgets are set past anything a client reaches (the headers
        /// still say the budget, as the brokers' do).
        case off
    }

    /// When the sandboxes' equities trade.
    public enum MarketHours: String, Sendable, CaseIterable, ExpressibleByArgument {
        /// Equities trade at any time (demos and tests).
        case alwaysOpen = "always-open"
        /// The regular US session, 09:30–16:00 New York time on weekdays; orders sent while closed wait for the open.
        case regular
    }

    /// A budget no client reaches: what `--rate-limits off` gives each window.
    public static let unlimitedBudget = 1_000_000_000
    /// The id of the latency rule `latencyMs` adds to each sandbox's faults (listed by `GET /_sandbox/faults`).
    static let latencyRuleId = "sandbox-latency"

    /// The brokers' documented rate limits, or none.
    public var rateLimits: RateLimits = .on
    /// Added to every answer of every sandbox broker, in milliseconds (0 for none).
    public var latencyMs: Int = 0
    /// When equities trade.
    public var marketHours: MarketHours = .alwaysOpen

    static let latencyRange = 0...60_000

    /// The options; by default the brokers' own rate limits, no added latency, and a market always open.
    public init(rateLimits: RateLimits = .on, latencyMs: Int = 0, marketHours: MarketHours = .alwaysOpen) {
        self.rateLimits = rateLimits
        self.latencyMs = latencyMs
        self.marketHours = marketHours
    }

    /// The latency rule for a sandbox's fault injector, if any.
    var latencyRule: FaultRule? {
        latencyMs > 0 ? FaultRule(.latency(milliseconds: latencyMs), id: Self.latencyRuleId) : nil
    }
}

/// `gateway sandbox`'s flags for the options.
struct SandboxOptionFlags: ParsableArguments {
    @Option(name: .customLong("rate-limits"), help: "`on`: each broker's documented rate limits; `off`: none (for benchmarks).")
    var rateLimits: SandboxOptions.RateLimits = .on

    @Option(name: .customLong("latency-ms"), help: "Milliseconds added to every answer of every sandbox (0 to 60000).")
    var latencyMs: Int = 0

    @Option(
        name: .customLong("market-hours"),
        help: "`always-open`: equities trade at any time; `regular`: the regular US session (09:30-16:00 New York, weekdays)."
    )
    var marketHours: SandboxOptions.MarketHours = .alwaysOpen

    func validate() throws {
        guard SandboxOptions.latencyRange.contains(latencyMs) else {
            throw ValidationError("--latency-ms must be from 0 to 60000")
        }
    }

    var options: SandboxOptions {
        SandboxOptions(rateLimits: rateLimits, latencyMs: latencyMs, marketHours: marketHours)
    }
}
