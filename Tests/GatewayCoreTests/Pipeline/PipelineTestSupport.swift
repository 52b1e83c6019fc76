import CoreMetrics
import Foundation
import GatewayCore
import GatewayModel
import HTTPTypes
import Logging
import Synchronization

/// A `MetricsFactory` that keeps every value by label and dimensions, for one test (never the global system).
final class RecordingMetrics: MetricsFactory {
    struct Key: Hashable, CustomStringConvertible {
        var label: String
        var dimensions: [String: String]
        var description: String { "\(label)\(dimensions.sorted { $0.key < $1.key })" }
    }

    final class Handler: CounterHandler, FloatingPointCounterHandler, RecorderHandler, TimerHandler, MeterHandler {
        let values = Mutex<[Double]>([])
        func increment(by amount: Int64) { values.withLock { $0.append(Double(amount)) } }
        func increment(by amount: Double) { values.withLock { $0.append(amount) } }
        func decrement(by amount: Double) { values.withLock { $0.append(-amount) } }
        func reset() { values.withLock { $0.removeAll() } }
        func record(_ value: Int64) { values.withLock { $0.append(Double(value)) } }
        func record(_ value: Double) { values.withLock { $0.append(value) } }
        func set(_ value: Int64) { values.withLock { $0.append(Double(value)) } }
        func set(_ value: Double) { values.withLock { $0.append(value) } }
        func recordNanoseconds(_ duration: Int64) { values.withLock { $0.append(Double(duration)) } }
    }

    private let handlers = Mutex<[Key: Handler]>([:])

    func handler(_ label: String, _ dimensions: [(String, String)]) -> Handler {
        let key = Key(label: label, dimensions: Dictionary(dimensions, uniquingKeysWith: { $1 }))
        return handlers.withLock { handlers in
            if let existing = handlers[key] { return existing }
            let fresh = Handler()
            handlers[key] = fresh
            return fresh
        }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { handler(label, dimensions) }
    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        handler(label, dimensions)
    }
    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler { handler(label, dimensions) }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        handler(label, dimensions)
    }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { handler(label, dimensions) }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyMeter(_ handler: any MeterHandler) {}
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}

    /// The sum of a counter's increments (0 when never made).
    func total(_ label: String, _ dimensions: [String: String]) -> Double {
        handlers.withLock { $0[Key(label: label, dimensions: dimensions)] }?.values.withLock { $0.reduce(0, +) } ?? 0
    }

    /// A gauge's or recorder's last value.
    func last(_ label: String, _ dimensions: [String: String]) -> Double? {
        handlers.withLock { $0[Key(label: label, dimensions: dimensions)] }?.values.withLock { $0.last }
    }

    /// How many values were recorded (a timer's count).
    func count(_ label: String, _ dimensions: [String: String]) -> Int {
        handlers.withLock { $0[Key(label: label, dimensions: dimensions)] }?.values.withLock { $0.count } ?? 0
    }

    var labels: Set<String> { handlers.withLock { Set($0.keys.map(\.label)) } }
    var keys: [Key] { handlers.withLock { Array($0.keys) } }
}

enum PipelineFixture {
    static let logger = Logger(label: "pipeline-test", factory: { _ in SwiftLogNoOpLogHandler() })

    static func connection(_ id: String = "conn_" + UUID().uuidString, broker: BrokerKind = .alpaca) -> ConnectionDescriptor {
        ConnectionDescriptor(
            id: id,
            tenantId: "t",
            broker: broker,
            displayName: "test",
            baseURL: "https://broker.test",
            createdAt: Date(),
            updatedAt: Date()
        )
    }

    /// Short durations, so tests of the breaker and retries take milliseconds.
    static func settings(
        consecutive: Int = 3,
        coolDown: Duration = .milliseconds(200),
        maxRetries: Int = 2,
        reserve: Double = 0
    ) -> PipelineSettings {
        PipelineSettings(
            breakerConsecutiveFailures: consecutive,
            breakerMinimumCalls: 1000,
            breakerCoolDown: coolDown,
            maxRetries: maxRetries,
            retryBaseDelay: .milliseconds(5),
            retryMaxDelay: .milliseconds(20),
            retryAfterLimit: .seconds(2),
            rateLimitReserve: reserve,
            minimumCallTime: .milliseconds(10)
        )
    }

    /// A read with a generous timeout by default: retries must fit before it even on a loaded machine.
    static func get(_ path: String = "/v2/positions", timeout: Duration = .seconds(30)) -> BrokerRequest {
        BrokerRequest(method: .get, url: "https://broker.test" + path, timeout: timeout, loggedPath: path)
    }

    static func post(_ path: String = "/v2/orders", timeout: Duration = .seconds(30)) -> BrokerRequest {
        BrokerRequest(method: .post, url: "https://broker.test" + path, body: Data("{}".utf8), timeout: timeout, loggedPath: path)
    }

    static func status(_ code: Int, _ headers: [(name: String, value: String)] = []) -> BrokerResponse {
        BrokerResponse(status: code, headers: headers, body: Data("{}".utf8))
    }
}
