import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import Testing

/// A webhook receiver on 127.0.0.1, port 0: it answers each request with the next status of its script (the last one
/// once the script runs out) and keeps what it received; a test awaits the requests (`next()`), never sleeps. A
/// hanging receiver (`hangs`) keeps every request it receives unanswered until the test is over.
final class WebhookReceiver: Sendable {
    struct Received: Sendable {
        var headers: HTTPFields
        var body: Data
        var path: String
    }

    /// What arrived and not yet taken, and who waits for the next.
    actor Inbox {
        var received: [Received] = []
        var waiting: [(id: Int, continuation: CheckedContinuation<Received?, Never>)] = []
        var lastId = 0
        /// Every request that ever arrived, taken or not.
        var arrived = 0
        /// The hanging receiver's requests held unanswered, until `release()`.
        var held: [CheckedContinuation<Void, Never>] = []
        var released = false

        func put(_ item: Received) {
            arrived += 1
            if waiting.isEmpty { received.append(item) } else { waiting.removeFirst().continuation.resume(returning: item) }
        }

        func reserve() -> Int {
            lastId += 1
            return lastId
        }

        /// The next request, or `nil` if `expire(id)` came first.
        func take(_ id: Int) async -> Received? {
            if !received.isEmpty { return received.removeFirst() }
            return await withCheckedContinuation { waiting.append((id, $0)) }
        }

        func expire(_ id: Int) {
            guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
            waiting.remove(at: index).continuation.resume(returning: nil)
        }

        func hold() async {
            if released { return }
            await withCheckedContinuation { held.append($0) }
        }

        func release() {
            released = true
            for request in held { request.resume() }
            held = []
        }
    }

    private let statuses: Mutex<[HTTPResponse.Status]>
    private let hangs: Bool
    private let inbox = Inbox()

    init(statuses: [HTTPResponse.Status], hangs: Bool = false) {
        self.statuses = Mutex(statuses)
        self.hangs = hangs
    }

    /// How many requests have arrived so far.
    var arrived: Int {
        get async { await inbox.arrived }
    }

    func answer(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        await inbox.put(Received(headers: request.headers, body: Data(body.readableBytesView), path: request.uri.path))
        if hangs { await inbox.hold() }
        let status = statuses.withLock { statuses in statuses.count > 1 ? statuses.removeFirst() : (statuses.first ?? .ok) }
        return Response(status: status)
    }

    /// The next request received, in order.
    func next() async -> Received {
        let id = await inbox.reserve()
        while true {
            if let item = await inbox.take(id) { return item }
        }
    }

    /// The next request received, or `nil` when none arrives within `timeout` (a generous bound that proves "not
    /// stuck", never a measure).
    func next(within timeout: Duration) async -> Received? {
        let id = await inbox.reserve()
        return await withTaskGroup(of: Received?.self) { group in
            group.addTask { await self.inbox.take(id) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                await self.inbox.expire(id)
                return nil
            }
            var first: Received?
            if let result = await group.next() { first = result }
            group.cancelAll()
            for await other in group where first == nil { first = other }
            return first
        }
    }

    /// Runs the receiver for `body` with the URL of its `/hook` path.
    static func with<T: Sendable>(
        statuses: [HTTPResponse.Status],
        hangs: Bool = false,
        _ body: @escaping @Sendable (WebhookReceiver, String) async throws -> T
    ) async throws -> T {
        let receiver = WebhookReceiver(statuses: statuses, hangs: hangs)
        let router = Router()
        router.post("/hook") { request, _ in try await receiver.answer(request) }
        let logger = Logger(label: "receiver", factory: { _ in SwiftLogNoOpLogHandler() })
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
                portSink.finish()
            },
            logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let result: Result<T, any Error>
            do {
                result = .success(try await body(receiver, "http://127.0.0.1:\(port)/hook"))
            } catch {
                result = .failure(error)
            }
            await receiver.inbox.release()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return try result.get()
        }
    }
}
