import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import Testing

/// A webhook receiver on 127.0.0.1, port 0: it answers each request with the next status of its script (the last one
/// once the script runs out) and keeps what it received; a test awaits the requests (`next()`), never sleeps.
final class WebhookReceiver: Sendable {
    struct Received: Sendable {
        var headers: HTTPFields
        var body: Data
        var path: String
    }

    /// What arrived and not yet taken, and who waits for the next.
    actor Inbox {
        var received: [Received] = []
        var waiting: [CheckedContinuation<Received, Never>] = []

        func put(_ item: Received) {
            if waiting.isEmpty { received.append(item) } else { waiting.removeFirst().resume(returning: item) }
        }

        func take() async -> Received {
            if !received.isEmpty { return received.removeFirst() }
            return await withCheckedContinuation { waiting.append($0) }
        }
    }

    private let statuses: Mutex<[HTTPResponse.Status]>
    private let inbox = Inbox()

    init(statuses: [HTTPResponse.Status]) {
        self.statuses = Mutex(statuses)
    }

    func answer(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        await inbox.put(Received(headers: request.headers, body: Data(body.readableBytesView), path: request.uri.path))
        let status = statuses.withLock { statuses in statuses.count > 1 ? statuses.removeFirst() : (statuses.first ?? .ok) }
        return Response(status: status)
    }

    /// The next request received, in order.
    func next() async -> Received {
        await inbox.take()
    }

    /// Runs the receiver for `body` with the URL of its `/hook` path.
    static func with<T: Sendable>(
        statuses: [HTTPResponse.Status], _ body: @escaping @Sendable (WebhookReceiver, String) async throws -> T
    ) async throws -> T {
        let receiver = WebhookReceiver(statuses: statuses)
        let router = Router()
        router.post("/hook") { request, _ in try await receiver.answer(request) }
        let logger = Logger(label: "receiver", factory: { _ in SwiftLogNoOpLogHandler() })
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
                portSink.finish()
            }, logger: logger)
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
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return try result.get()
        }
    }
}
