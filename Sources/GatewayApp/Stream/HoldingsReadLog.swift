import Logging

/// What a stream says when its re-reads of positions or balances fail as a whole (the store unreadable, the
/// tenant's fan-outs all taken; a broker that fails is only a failed source of an answer). The stream then sends no
/// changes of those holdings until a read succeeds, and carries on: silent, that would look like a stream with
/// nothing to say. So the first failure of each kind is logged, and its recovery, once per run of failures, so that a
/// long outage is not a line per stream per interval.
struct HoldingsReadLog {
    private var failing: Set<String> = []

    /// The answer of `read`, or `nil` when it failed (logged as above). A read cut short because the stream ended
    /// is no failure and is not logged.
    mutating func reading<Answer>(_ holdings: String, _ logger: Logger, _ read: () async throws -> Answer) async -> Answer? {
        do {
            let answer = try await read()
            if failing.remove(holdings) != nil {
                logger.info("a stream reads the user's holdings again", metadata: ["holdings": .string(holdings)])
            }
            return answer
        } catch {
            if !(error is CancellationError), !Task.isCancelled, failing.insert(holdings).inserted {
                logger.warning(
                    "a stream cannot read the user's holdings; it sends no changes of them until a read succeeds",
                    metadata: ["holdings": .string(holdings), "error": .string("\(error)")]
                )
            }
            return nil
        }
    }
}
