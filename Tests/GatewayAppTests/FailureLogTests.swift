import Foundation
import GatewayCore
import GatewayModel
import GatewayStore
import LogCapture
import Logging
import Synchronization
import Testing

@testable import GatewayApp

/// The log lines that replaced silent `try?`s: a failure a user or operator would want to know of is said once when
/// it starts (and its end once), never swallowed and never a line per retry.
@Suite("Failures that used to be silent are logged")
struct FailureLogTests {
    struct Unreachable: Error {}

    @Test("A stream's failed holdings reads: one warning per run of failures, one line at recovery, none for a cancel")
    func holdingsReadFailures() async {
        let (logger, log) = LogCapture.logger()
        var readLog = HoldingsReadLog()
        let failing: () async throws -> Int = { throw Unreachable() }
        #expect(await readLog.reading("positions", logger, failing) == nil)
        #expect(await readLog.reading("positions", logger, failing) == nil)
        #expect(await readLog.reading("balances", logger, failing) == nil)
        #expect(log.entries.map(\.level) == [.warning, .warning])
        #expect(log.entries.map { $0.metadata["holdings"] } == [.string("positions"), .string("balances")])

        #expect(await readLog.reading("positions", logger, { 7 }) == 7)
        #expect(log.entries.count == 3)
        #expect(log.entries.last?.level == .info)
        #expect(await readLog.reading("positions", logger, { 8 }) == 8)
        #expect(log.entries.count == 3, "a read that keeps working is not logged")

        // A read cut short because the stream ended is no failure.
        #expect(await readLog.reading("positions", logger, { throw CancellationError() }) == nil)
        #expect(log.entries.count == 3)
        // A new run of failures is said again.
        #expect(await readLog.reading("positions", logger, failing) == nil)
        #expect(log.entries.map(\.level) == [.warning, .warning, .info, .warning])
    }

    /// A change stamp that cannot be read for its first `failures` reads, then reads 1.
    final class FlakyStamp: StoreChangeStamp {
        let failures: Int
        let reads = Mutex(0)
        init(failures: Int) { self.failures = failures }
        func changeStamp() async throws -> UInt64 {
            let read = reads.withLock { reads -> Int in
                reads += 1
                return reads
            }
            if read <= failures { throw Unreachable() }
            return 1
        }
    }

    @Test("An unreadable change stamp is logged once while it lasts, and its recovery once")
    func unreadableChangeStamp() async throws {
        let (logger, log) = LogCapture.logger()
        let watch = StampWatch(interval: .milliseconds(1), logger: logger)
        let stamp = FlakyStamp(failures: 4)
        let (id, changes) = watch.watch(stamp, since: nil)
        // The first readable stamp differs from the watcher's unknown one: its signal means four failures came first.
        var iterator = changes.makeAsyncIterator()
        _ = await iterator.next()
        watch.stop(id)
        #expect(stamp.reads.withLock { $0 } >= 5)
        let warnings = log.entries(at: .warning)
        #expect(warnings.count == 1)
        #expect(warnings.first?.message.contains("change stamp cannot be read") == true)
        #expect(log.entries(at: .notice).count == 1)
    }

    @Test("A quote stream whose first read of the current quotes fails says so, and its quotes still come")
    func quoteStreamInitialReadFailure() async throws {
        let (logger, log) = LogCapture.logger()
        let feeds = QuoteFeeds(interval: .milliseconds(50), logger: logger)
        let connection = ConnectionDescriptor(
            id: "conn_q",
            tenantId: "ten_q",
            broker: BrokerKind("alpaca"),
            displayName: "q",
            baseURL: "https://paper-api.alpaca.markets",
            createdAt: Date(),
            updatedAt: Date()
        )
        let instrument = InstrumentReference(symbol: "AAPL")
        let source = QuoteFeeds.Source(
            poll: { _ in throw GatewayError(.upstreamUnavailable, "the snapshot endpoint is down") },
            stream: { _, subscribed, onQuote in
                await subscribed()
                await onQuote(
                    Quote(instrument: Instrument(symbol: "AAPL", assetClass: .equity), bid: 1, ask: 2, last: Decimal(string: "1.5"), time: Date())
                )
                // Parked until the feed cancels it (its last watcher left).
                try await Task.sleep(for: .seconds(3600))
                return true
            }
        )
        let (id, messages) = await feeds.watch(connection, [instrument], capacity: 10, source: source)
        var received: Quote?
        for await message in messages {
            if case .quote(let quote) = message {
                received = quote
                break
            }
        }
        await feeds.stopWatching(connection.id, id)
        #expect(received?.instrument.symbol == "AAPL")
        // The callback that logs ran to its end before the stream pushed the quote.
        let notices = log.entries(at: .notice)
        #expect(notices.count == 1)
        #expect(notices.first?.metadata["connection"] == .string("conn_q"))
        #expect(notices.first?.metadata["error"] == .string("the snapshot endpoint is down"))
    }
}
