import Foundation
import GatewayCore
import GatewayModel
import GatewayStore
import Logging

/// Reads the store's order feed (every journal event, in commit order) and hands each event to the streams and the
/// alerts that watch its user. One tail per gateway instance, reading while anyone listens: the events written by
/// this instance and by every other on the same database reach it the same way, so a stream's order updates never
/// depend on which instance served the write.
actor OrderFeedTail {
    /// Whose events a listener takes: one user's, or everyone's (the alerts).
    struct UserKey: Hashable, Sendable {
        var tenantId: String
        var userId: String
    }

    private struct Listener {
        var user: UserKey?
        var continuation: AsyncStream<OrderFeedEvent>.Continuation
    }

    private let journal: any OrderJournalStore
    private let interval: Duration
    private let logger: Logger
    private let pageSize = 500
    private var cursor: Int64?
    private var listeners: [UInt64: Listener] = [:]
    private var nextId: UInt64 = 0
    private var reader: Task<Void, Never>?

    init(journal: any OrderJournalStore, interval: Duration, logger: Logger) {
        self.journal = journal
        self.interval = interval
        self.logger = logger
    }

    /// Starts listening. Every event committed after the returned cursor reaches the stream (the tail's own
    /// position, read before this returns); a listener that must start earlier reads the store from its own cursor
    /// up to the events the stream brings. `capacity`: events held for a slow listener, past which its stream ends.
    func listen(user: UserKey?, capacity: Int) async throws -> (id: UInt64, from: Int64, events: AsyncStream<OrderFeedEvent>) {
        let from: Int64
        if let cursor {
            from = cursor
        } else {
            from = try await journal.orderFeedEnd()
            if cursor == nil { cursor = from }
        }
        let (events, continuation) = AsyncStream.makeStream(
            of: OrderFeedEvent.self,
            bufferingPolicy: .bufferingOldest(max(1, capacity))
        )
        nextId += 1
        let id = nextId
        listeners[id] = Listener(user: user, continuation: continuation)
        if reader == nil {
            reader = Task { await self.read() }
        }
        return (id, cursor ?? from, events)
    }

    func stopListening(_ id: UInt64) {
        listeners.removeValue(forKey: id)?.continuation.finish()
        if listeners.isEmpty {
            reader?.cancel()
            reader = nil
            // The next listener starts from the feed's end then: nobody is owed the events in between.
            cursor = nil
        }
    }

    private func read() async {
        while !Task.isCancelled, !listeners.isEmpty {
            var more = false
            do {
                let from = try await currentCursor()
                let events = try await journal.orderFeed(after: from, limit: pageSize)
                deliver(events)
                more = events.count == pageSize
            } catch {
                logger.warning("the stream cannot read the order feed; it tries again", metadata: ["error": "\(error)"])
            }
            if !more {
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }

    private func currentCursor() async throws -> Int64 {
        if let cursor { return cursor }
        let end = try await journal.orderFeedEnd()
        cursor = end
        return end
    }

    private func deliver(_ events: [OrderFeedEvent]) {
        guard let last = events.last else { return }
        cursor = max(cursor ?? 0, last.cursor)
        for (id, listener) in listeners {
            for event in events {
                if let user = listener.user, user.tenantId != event.tenantId || user.userId != event.userId { continue }
                if case .dropped = listener.continuation.yield(event) {
                    // Too slow to keep up: its stream ends, and the client resumes from its last event id.
                    listeners.removeValue(forKey: id)
                    listener.continuation.finish()
                    break
                }
            }
        }
    }
}

extension OrderUpdate {
    /// The update a journal event means to the order's user; `nil` for the gateway's own bookkeeping (the intent
    /// written before the broker is called).
    init?(_ feed: OrderFeedEvent) {
        let event = feed.event
        let kind: Kind
        switch event.kind {
        case .intent: return nil
        case .accepted: kind = .placed
        case .unknown: kind = .unknown
        case .rejected, .notFoundAtBroker: kind = .rejected
        case .reconciled: kind = .reconciled
        case .released: kind = .released
        case .modified: kind = .modified
        case .canceled: kind = .canceled
        case .modifyFailed, .cancelRefused: kind = .statusChanged
        case .statusChanged:
            switch event.status {
            case .filled?: kind = .filled
            case .partiallyFilled?: kind = .partiallyFilled
            case .canceled?: kind = .canceled
            case .rejected?: kind = .rejected
            case .expired?: kind = .expired
            case .replaced?: kind = .modified
            default: kind = .statusChanged
            }
        }
        var order = feed.order
        order?.id = feed.orderId
        order?.connectionId = feed.connectionId
        if let broker = feed.broker { order?.broker = broker }
        self.init(
            kind: kind,
            orderId: feed.orderId,
            connectionId: feed.connectionId,
            broker: feed.broker ?? order?.broker,
            status: event.status,
            order: order,
            detail: event.detail,
            at: event.at
        )
    }
}
