import LogCapture
import Logging
import Testing

/// The recorder the tests assert log lines with: if it lost a line, a level or a metadata value, those tests would
/// pass or fail for the wrong reason (a secret in the logger's own metadata unseen, a line said twice uncounted).
@Suite("LogCapture records what a logger logs")
struct LogCaptureTests {
    @Test("every line, in order, with its level, message and metadata; a trace line too")
    func recordsEveryLine() {
        let (logger, log) = LogCapture.logger()
        logger.trace("statement", metadata: ["sql": "SELECT 1"])
        logger.info("linked")
        logger.warning("read failed", metadata: ["holdings": "positions", "attempt": "2"])
        #expect(
            log.entries == [
                LogCapture.Entry(level: .trace, message: "statement", metadata: ["sql": "SELECT 1"]),
                LogCapture.Entry(level: .info, message: "linked"),
                LogCapture.Entry(level: .warning, message: "read failed", metadata: ["holdings": "positions", "attempt": "2"]),
            ]
        )
    }

    @Test("a line's metadata is the logger's merged with the call's, the call's value winning on a shared key")
    func mergesLoggerAndCallMetadata() {
        let log = LogCapture()
        var logger = log.logger()
        logger[metadataKey: "connection"] = "conn_1"
        logger[metadataKey: "broker"] = "alpaca"
        logger.notice("call", metadata: ["broker": "saxo", "status": "401"])
        #expect(log.entries.map(\.metadata) == [["connection": "conn_1", "broker": "saxo", "status": "401"]])
        #expect(log.lines == ["notice call broker=saxo connection=conn_1 status=401"])
        // A secret in the logger's own metadata is in the line a secrets check searches.
        #expect(log.lines(containing: "conn_1").count == 1)
    }

    @Test("loggers of one capture share its record, each keeping its own metadata; two captures share nothing")
    func loggersShareTheRecordNotTheirMetadata() {
        let capture = LogCapture()
        var first = capture.logger(label: "first")
        first[metadataKey: "request"] = "r1"
        var second = first
        second[metadataKey: "request"] = "r2"
        let other = LogCapture()
        other.logger().error("elsewhere")
        first.info("one")
        second.info("two")
        capture.logger(label: "third").info("three")
        #expect(capture.entries.map(\.message) == ["one", "two", "three"])
        #expect(capture.entries.map { $0.metadataText("request") } == ["r1", "r2", nil])
        #expect(other.entries.map(\.message) == ["elsewhere"])
    }

    @Test("a logger made at a level records nothing below it")
    func honoursTheLevel() {
        let (logger, log) = LogCapture.logger(level: .notice)
        logger.debug("hidden")
        logger.info("hidden too")
        logger.notice("kept")
        logger.critical("kept too")
        #expect(log.entries.map(\.message) == ["kept", "kept too"])
    }

    @Test("the queries: by level, by text in the message, by text anywhere in the line, a metadata value as text")
    func queries() {
        let (logger, log) = LogCapture.logger()
        logger.warning("change stamp cannot be read", metadata: ["error": "disk I/O error"])
        logger.notice("change stamp readable again")
        logger.warning("holdings read failed", metadata: ["order": "ord_poisoned", "count": .stringConvertible(3)])
        #expect(log.entries(at: .warning).map(\.message) == ["change stamp cannot be read", "holdings read failed"])
        #expect(log.entries(at: .error).isEmpty)
        #expect(log.entries(messageContaining: "change stamp").map(\.level) == [.warning, .notice])
        #expect(log.lines(containing: "ord_poisoned") == ["warning holdings read failed count=3 order=ord_poisoned"])
        #expect(log.lines(containing: "disk I/O") == ["warning change stamp cannot be read error=disk I/O error"])
        let last = log.entries.last
        #expect(last?.metadataText("order") == "ord_poisoned")
        #expect(last?.metadataText("count") == "3")
        #expect(last?.metadataText("absent") == nil)
    }

    @Test("lines logged from many tasks at once are all recorded")
    func concurrentLogging() async {
        let (logger, log) = LogCapture.logger()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for line in 0..<50 { logger.info("line", metadata: ["task": "\(task)", "line": "\(line)"]) }
                }
            }
        }
        let entries = log.entries
        #expect(entries.count == 400)
        for task in 0..<8 {
            let lines = entries.filter { $0.metadataText("task") == "\(task)" }.compactMap { $0.metadataText("line") }
            #expect(lines == (0..<50).map { "\($0)" }, "one task's lines keep their order")
        }
    }
}
