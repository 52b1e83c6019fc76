import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A server-sent events client for tests: reads `text/event-stream` from a live gateway over AsyncHTTPClient and
/// keeps every event, so that a test can await the first one that matches (with a deadline as its failure path).
actor EventStreamClient {
    struct Event: Sendable, CustomStringConvertible {
        var name: String?
        var id: String?
        var data: String

        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:]
        }

        var description: String { "\(name ?? "message")#\(id ?? "-") \(data)" }
    }

    struct Timeout: Error, CustomStringConvertible {
        var waitingFor: String
        var seen: [Event]
        var description: String { "no event \(waitingFor) arrived in time; seen: \(seen)" }
    }

    private(set) var events: [Event] = []
    private(set) var status: Int?
    private(set) var ended = false
    private var waiters: [UInt64: (predicate: @Sendable (Event) -> Bool, from: Int, continuation: CheckedContinuation<Event, any Error>)] = [:]
    private var nextWaiter: UInt64 = 0
    private var reader: Task<Void, Never>?

    /// Opens the stream; returns once the response head arrived (its status is `status`).
    static func open(port: Int, path: String, key: String, lastEventId: String? = nil) async throws -> EventStreamClient {
        let client = EventStreamClient()
        try await client.start(port: port, path: path, key: key, lastEventId: lastEventId)
        return client
    }

    private func start(port: Int, path: String, key: String, lastEventId: String?) async throws {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let lastEventId { request.headers.add(name: "Last-Event-ID", value: lastEventId) }
        let (heads, head) = AsyncStream.makeStream(of: Int.self)
        reader = Task {
            do {
                let response = try await HTTPClient.shared.execute(request, deadline: .distantFuture)
                head.yield(Int(response.status.code))
                head.finish()
                var pending = ""
                for try await buffer in response.body {
                    pending += String(buffer: buffer)
                    while let end = pending.range(of: "\n\n") {
                        let block = String(pending[..<end.lowerBound])
                        pending = String(pending[end.upperBound...])
                        if let event = Self.parse(block) { self.received(event) }
                    }
                }
            } catch {
                head.finish()
            }
            self.finished()
        }
        for await code in heads {
            status = code
            break
        }
    }

    /// Closes the connection from the client's side, as a dropped network would.
    func close() {
        reader?.cancel()
    }

    /// The first event from index `from` on (default: any seen so far) that matches, within `timeout`.
    func next(
        _ description: String,
        after from: Int = 0,
        within timeout: Duration = .seconds(10),
        where predicate: @escaping @Sendable (Event) -> Bool
    ) async throws -> Event {
        if let found = events[min(from, events.count)...].first(where: predicate) { return found }
        nextWaiter += 1
        let id = nextWaiter
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.expire(id, description)
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            waiters[id] = (predicate, from, continuation)
        }
    }

    private func expire(_ id: UInt64, _ description: String) {
        waiters.removeValue(forKey: id)?.continuation.resume(throwing: Timeout(waitingFor: description, seen: events))
    }

    private func received(_ event: Event) {
        events.append(event)
        let index = events.count - 1
        for (id, waiter) in waiters where index >= waiter.from && waiter.predicate(event) {
            waiters.removeValue(forKey: id)
            waiter.continuation.resume(returning: event)
        }
    }

    private func finished() {
        ended = true
    }

    static func parse(_ block: String) -> Event? {
        var name: String?
        var id: String?
        var data: [String] = []
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") { continue }
            let (field, value) =
                line.firstIndex(of: ":").map {
                    (String(line[..<$0]), String(line[line.index(after: $0)...]).trimmingPrefix(" "))
                } ?? (String(line), "")
            switch field {
            case "event": name = String(value)
            case "id": id = String(value)
            case "data": data.append(String(value))
            default: break
            }
        }
        if name == nil, data.isEmpty { return nil }
        return Event(name: name, id: id, data: data.joined(separator: "\n"))
    }
}
