import InMemoryLogging
public import Logging

/// What a logger logged, for tests that assert on log lines: that a failure is said once and not once per retry, that
/// a line carries the metadata an operator needs, that no secret reaches any line, how many statements a store ran.
///
/// The recording is swift-log's own `InMemoryLogHandler` (its `InMemoryLogging` product): thread-safe, one shared
/// store behind every copy of the handler, and each line's metadata the logger's (`logger[metadataKey:]`) merged with
/// the call's, the call's value winning, as a real handler prints it. This type adds only what the tests ask of it:
/// a logger at `trace` without a global bootstrap (Swift Testing runs tests in parallel), entries as plain values,
/// and the queries the tests share.
///
/// ```swift
/// let (logger, log) = LogCapture.logger()
/// await subject.run(logger: logger)
/// #expect(log.entries(at: .warning).count == 1)
/// ```
public struct LogCapture: Sendable {
    /// One logged line, its message as text and its metadata merged (the logger's, then the call's on top).
    public struct Entry: Sendable, Equatable {
        /// The level the line was logged at.
        public var level: Logger.Level
        /// The message, rendered.
        public var message: String
        /// The logger's metadata merged with the call's (the call's value wins on a shared key).
        public var metadata: Logger.Metadata

        /// An entry as a test expects one; lines themselves are recorded by a capture's loggers.
        public init(level: Logger.Level, message: String, metadata: Logger.Metadata = [:]) {
            self.level = level
            self.message = message
            self.metadata = metadata
        }

        /// The value at `key` in the metadata as text (a string as it is, any other value as a log handler prints
        /// it), or nil when the line has no such key.
        public func metadataText(_ key: String) -> String? {
            metadata[key].map { "\($0)" }
        }

        /// The line as one text, `level message key=value …` with the keys sorted, as a stream handler would print it
        /// without its timestamp: what a test searches for a value wherever the line put it (message or metadata).
        public var line: String {
            let values = metadata.map { "\($0.key)=\($0.value)" }.sorted()
            return (["\(level)", message] + values).joined(separator: " ")
        }
    }

    /// Shared by every logger this capture made, and their copies: all of them record into one store.
    private let handler = InMemoryLogHandler()

    /// A capture with nothing recorded yet; make its loggers with `logger(label:level:)`.
    public init() {}

    /// A new capture and a logger that records into it: the common case of one logger per test.
    ///
    /// - Parameters:
    ///   - label: The logger's label.
    ///   - level: The lowest level recorded; `trace` by default so that nothing the code under test logs is lost.
    public static func logger(label: String = "test", level: Logger.Level = .trace) -> (logger: Logger, log: LogCapture) {
        let capture = LogCapture()
        return (capture.logger(label: label, level: level), capture)
    }

    /// A logger that records into this capture; several loggers (and labels) may share one capture.
    ///
    /// - Parameters:
    ///   - label: The logger's label.
    ///   - level: The lowest level recorded; `trace` by default so that nothing the code under test logs is lost.
    public func logger(label: String = "test", level: Logger.Level = .trace) -> Logger {
        let handler = self.handler
        var logger = Logger(label: label) { _ in handler }
        logger.logLevel = level
        return logger
    }

    /// Every line recorded so far, in the order logged.
    public var entries: [Entry] {
        handler.entries.map { Entry(level: $0.level, message: $0.message.description, metadata: $0.metadata) }
    }

    /// The lines logged at exactly `level`, in order.
    public func entries(at level: Logger.Level) -> [Entry] {
        entries.filter { $0.level == level }
    }

    /// The lines whose message contains `text`, in order.
    public func entries(messageContaining text: String) -> [Entry] {
        entries.filter { $0.message.contains(text) }
    }

    /// Every line recorded so far as one text each (see `Entry.line`), in order.
    public var lines: [String] {
        entries.map(\.line)
    }

    /// The lines that contain `text` in their level, message, metadata keys or values (see `Entry.line`), in order.
    public func lines(containing text: String) -> [String] {
        lines.filter { $0.contains(text) }
    }
}
