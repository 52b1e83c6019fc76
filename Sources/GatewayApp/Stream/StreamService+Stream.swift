import Foundation
import GatewayCore
public import GatewayModel
import GatewayStore
import Logging
import Synchronization

/// `GET /v1/stream`: a user's live quotes, order updates, and position and balance changes, as one sequence of
/// messages the server writes as server-sent events.
extension StreamService {
    /// The most symbols one stream quotes (those named and the watchlist's together).
    public static let maxStreamSymbols = 200

    /// Opens a stream. Everything that can be refused is refused before the first message: a watchlist that does not
    /// exist (404), too many symbols (422), a `Last-Event-ID` that is not an order cursor (400), too many streams (429).
    ///
    /// Order updates come from the journal's feed: with `lastEventId` (the id of the last order update the client
    /// saw, or of the `ready` message it began with), every update of the user's orders after it is sent first, then
    /// the live ones, each once. Quotes, positions and balances are live only: they start from what is now.
    ///
    /// The stream lasts only as long as what opened it: whenever the store's change stamp moves, and at each
    /// heartbeat, it re-reads the principal's credential (the API key, or the session), its user and its tenant, and
    /// ends with an `error` event once any is gone, revoked, logged out, expired or disabled (``standing(of:)``).
    public func stream(
        principal: Principal,
        _ subscription: StreamSubscription,
        _ selection: Gateway.Selection = Gateway.Selection(),
        lastEventId: String?
    ) async throws -> AsyncStream<StreamEvent> {
        let owner = try principal.owner()
        let resumeFrom = try Self.streamCursor(lastEventId)
        var instruments = subscription.symbols.map { InstrumentReference(symbol: $0, assetClass: subscription.assetClass) }
        if let watchlistId = subscription.watchlistId {
            let list = try await watchlists.watchlist(owner: owner, id: watchlistId)
            instruments += list.instruments.map { InstrumentReference(symbol: $0.symbol, assetClass: $0.assetClass) }
        }
        var seen: Set<String> = []
        instruments = instruments.filter { seen.insert(QuoteFeeds.key($0.symbol)).inserted }
        if instruments.count > Self.maxStreamSymbols {
            throw GatewayError.unprocessable([
                FieldProblem(
                    field: subscription.watchlistId == nil ? "symbols" : "watchlist",
                    problem: "names \(instruments.count) instruments; a stream quotes at most \(Self.maxStreamSymbols)"
                )
            ])
        }
        let connections = try await self.directory.connections(owner: owner, selection).filter { $0.status == .active }
        let quoting =
            instruments.isEmpty
            ? []
            : connections.filter {
                (registry.factory(for: $0.broker)?.capabilities.support(for: .quotes) ?? .unsupported) != .unsupported
            }
        let user = OrderFeedTail.UserKey(tenantId: owner.tenant.id, userId: owner.userId)
        let hub = streams
        try hub.admit(user)

        var listening: (id: UInt64, from: Int64, events: AsyncStream<OrderFeedEvent>)?
        let start: Int64
        do {
            if subscription.orders {
                let listener = try await hub.tail.listen(user: user, capacity: hub.settings.bufferedMessages)
                listening = listener
                start = min(resumeFrom ?? listener.from, try await journal.orderFeedEnd())
            } else {
                start = try await journal.orderFeedEnd()
            }
        } catch {
            hub.release(user)
            if let listening { await hub.tail.stopListening(listening.id) }
            throw error
        }

        let ready = StreamReady(
            cursor: String(start),
            resumed: resumeFrom != nil && subscription.orders,
            quotes: instruments.map(\.symbol),
            orders: subscription.orders,
            positions: subscription.positions,
            balances: subscription.balances,
            connections: connections.map(\.id)
        )
        let (messages, output) = AsyncStream.makeStream(
            of: StreamEvent.self,
            bufferingPolicy: .bufferingOldest(max(2, hub.settings.bufferedMessages))
        )
        let gateway = self
        let producer = Task {
            await gateway.produce(
                into: output,
                principal: principal,
                owner: owner,
                ready: ready,
                selection: selection,
                start: start,
                replay: resumeFrom != nil,
                orders: listening,
                instruments: instruments,
                quoting: quoting,
                holdings: (subscription.positions, subscription.balances)
            )
            output.finish()
        }
        let tracked = hub.track(producer)
        output.onTermination = { _ in
            producer.cancel()
            hub.untrack(tracked)
            hub.release(user)
        }
        return messages
    }

    /// Where a connection's streamed quotes come from: the broker's own stream where its adapter has one, else reads.
    func quoteSource(_ connection: ConnectionDescriptor) -> QuoteFeeds.Source {
        let gateway = self
        return QuoteFeeds.Source(
            poll: { references in
                let adapter = try await gateway.directory.adapter(for: connection)
                return try await BrokerOperationScope.$current.withValue(BrokerOperation.quotes.rawValue) {
                    try await withDeadline(gateway.router.perSourceTimeout) { try await BrokerReadService.quotes(adapter, references) }
                }
            },
            stream: { references, onSubscribed, onQuote in
                let adapter = try await gateway.directory.adapter(for: connection)
                guard let streaming = adapter as? any BrokerStreaming, streaming.canStream else { return false }
                let tradable = references.filter { adapter.capabilities.assetClasses.contains($0.impliedAssetClass) }
                guard !tradable.isEmpty else { return false }
                try await streaming.streamQuotes(tradable, onSubscribed: onSubscribed, onQuote)
                return true
            }
        )
    }

    /// Puts an alert's firing on the user's streams open on this instance (the `AlertEngine`'s stream sink).
    public func publishAlert(_ notification: AlertNotification, tenantId: String, userId: String) {
        streams.publish(notification, to: OrderFeedTail.UserKey(tenantId: tenantId, userId: userId))
    }

    /// A `Last-Event-ID`: an order cursor, a non-negative whole number.
    static func streamCursor(_ text: String?) throws -> Int64? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard text.count <= 19, text.allSatisfy(\.isASCII), let cursor = Int64(text), cursor >= 0 else {
            throw GatewayError.invalid(
                "Last-Event-ID",
                "must be the id of an event this stream sent (a whole number), not '\(text.prefix(40))'"
            )
        }
        return cursor
    }

    /// Runs one stream until the client leaves (its task is cancelled) or falls too far behind.
    private func produce(
        into output: AsyncStream<StreamEvent>.Continuation,
        principal: Principal,
        owner: Owner,
        ready: StreamReady,
        selection: Gateway.Selection,
        start: Int64,
        replay: Bool,
        orders: (id: UInt64, from: Int64, events: AsyncStream<OrderFeedEvent>)?,
        instruments: [InstrumentReference],
        quoting: [ConnectionDescriptor],
        holdings: (positions: Bool, balances: Bool)
    ) async {
        let hub = streams
        let gate = StreamGate()
        /// Sends a message; false once the client cannot keep up (the stream then ends, and the client resumes), or
        /// once the stream ended with an `error` (nothing follows it).
        @Sendable func send(_ event: StreamEvent) -> Bool {
            gate.send { output.yield(event) }
        }
        /// Re-checks what opened the stream; false (after the `error` event) once it no longer stands.
        @Sendable func stillStanding() async -> Bool {
            guard let problem = await self.standing(of: principal) else { return true }
            gate.end { output.yield(.error(StreamError(problem))) }
            return false
        }
        guard send(.ready(ready)) else { return }
        let (fills, fillSignal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let gateway = self
        await withTaskGroup(of: Void.self) { group in
            if let orders {
                group.addTask {
                    await gateway.sendOrders(
                        orders,
                        owner: owner,
                        after: start,
                        replay: replay,
                        send: send,
                        filled: { fillSignal.yield() }
                    )
                    await hub.tail.stopListening(orders.id)
                }
            }
            for connection in quoting {
                group.addTask {
                    let (id, messages) = await hub.quotes.watch(
                        connection,
                        instruments,
                        capacity: hub.settings.bufferedMessages,
                        source: gateway.quoteSource(connection)
                    )
                    for await message in messages {
                        let sent: Bool
                        switch message {
                        case .quote(let quote): sent = send(.quote(quote))
                        case .source(let report): sent = send(.source(report))
                        }
                        if !sent { break }
                    }
                    await hub.quotes.stopWatching(connection.id, id)
                }
            }
            group.addTask {
                let user = OrderFeedTail.UserKey(tenantId: owner.tenant.id, userId: owner.userId)
                let (id, alerts) = hub.listenForAlerts(user)
                for await notification in alerts where !send(.alert(notification)) { break }
                hub.stopListeningForAlerts(user, id)
            }
            if holdings.positions || holdings.balances {
                group.addTask {
                    await gateway.sendHoldings(owner: owner, selection, holdings, fills: fills, send: send)
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    do { try await Task.sleep(for: hub.settings.heartbeatInterval) } catch { return }
                    guard await stillStanding(), send(.heartbeat) else { return }
                }
            }
            // A store without a change stamp cannot say when it changed: its streams re-check at each heartbeat only.
            if let stamps = hotReads.stamps {
                group.addTask {
                    // The stamp before the first check: whatever changes after it (even before the shared reader's
                    // next read) is signalled, and whatever changed since the request was authenticated is checked now.
                    // An unreadable stamp leaves `since` unknown, so the reader's first stamp counts as a change and the
                    // stream re-checks: nothing is missed (the reader logs a stamp that stays unreadable).
                    let since = try? await stamps.changeStamp()
                    let (id, changes) = hub.stampWatch.watch(stamps, since: since)
                    if await stillStanding() {
                        for await _ in changes where !(await stillStanding()) { break }
                    }
                    hub.stampWatch.stop(id)
                }
            }
            // The first part to end (the client left, or fell behind) ends them all.
            _ = await group.next()
            group.cancelAll()
        }
        fillSignal.finish()
    }

    /// Why a stream opened by `principal` may no longer run, read from the store (through the cache the change stamp
    /// empties): its tenant disabled (403), its API key revoked or gone, or its session logged out, its device
    /// removed or expired (401), the user it acts for deleted (403); `nil` while all stand, or when the store cannot
    /// be read (a store outage does not end streams; the next check decides).
    func standing(of principal: Principal) async -> GatewayError? {
        let store = self.store
        let tenantId = principal.tenant.id
        do {
            guard let tenant = try await hotReads.read(hotReads.tenants, tenantId, load: { try await store.tenant(id: tenantId) }),
                tenant.disabledAt == nil
            else {
                return GatewayError(.forbidden, "the tenant is disabled", retryable: false)
            }
            switch principal.credential {
            case .apiKey(let id):
                guard let key = try await hotReads.read(streams.streamKeys, id, load: { try await store.apiKey(tenantId: tenantId, id: id) }),
                    key.revokedAt == nil
                else {
                    return GatewayError(.unauthorized, "the API key that opened this stream was revoked", retryable: false)
                }
            case .session(let id, _):
                guard let session = try await hotReads.read(hotReads.sessions, id, load: { try await store.session(id: id) }),
                    session.isLive(at: sessions.now())
                else {
                    return GatewayError(
                        .unauthorized,
                        "the session that opened this stream has ended (logged out, its device removed, or expired)",
                        retryable: false
                    )
                }
            }
            if let userId = principal.userId {
                let key = HotReads.UserKey(tenantId: tenantId, userId: userId)
                let exists = try await hotReads.read(hotReads.users, key) {
                    try await store.user(tenantId: tenantId, id: userId) != nil ? true : nil
                }
                guard exists == true else {
                    return GatewayError(.forbidden, "the user this stream acts for was deleted", retryable: false)
                }
            }
            return nil
        } catch {
            logger.warning("a stream could not re-check its credential", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The user's order updates: those after `after` from the store first (a resumed stream), then the live ones
    /// from the tail, each once and in feed order.
    private func sendOrders(
        _ orders: (id: UInt64, from: Int64, events: AsyncStream<OrderFeedEvent>),
        owner: Owner,
        after: Int64,
        replay: Bool,
        send: @Sendable (StreamEvent) -> Bool,
        filled: @Sendable () -> Void
    ) async {
        var delivered = after
        func deliver(_ event: OrderFeedEvent) -> Bool {
            guard event.cursor > delivered else { return true }
            delivered = event.cursor
            guard let update = OrderUpdate(event) else { return true }
            if update.kind == .filled || update.kind == .partiallyFilled { filled() }
            return send(.order(cursor: event.cursor, update))
        }
        if replay {
            // Everything the tail had passed when this stream began listening is read from the store.
            while !Task.isCancelled {
                let page: [OrderFeedEvent]
                do {
                    page = try await journal.orderFeed(
                        tenantId: owner.tenant.id,
                        userId: owner.userId,
                        after: delivered,
                        limit: 500
                    )
                } catch {
                    logger.warning("a stream could not replay its order updates", metadata: ["error": "\(error)"])
                    return
                }
                for event in page where !deliver(event) { return }
                if page.count < 500 { break }
            }
        }
        for await event in orders.events {
            if !deliver(event) { return }
        }
    }

    /// Positions and balances, read every `holdingsInterval` (and at once after a fill), each change sent once.
    private func sendHoldings(
        owner: Owner,
        _ selection: Gateway.Selection,
        _ holdings: (positions: Bool, balances: Bool),
        fills: AsyncStream<Void>,
        send: @escaping @Sendable (StreamEvent) -> Bool
    ) async {
        let interval = streams.settings.holdingsInterval
        var positions: [String: Position]?
        var balances: [String: Balance]?
        var fresh = selection
        fresh.maxAge = interval
        // Wakes the loop at each interval, or as soon as one of the user's orders fills.
        let (wake, waker) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in fills { waker.yield() }
            }
            group.addTask {
                while !Task.isCancelled {
                    do { try await Task.sleep(for: interval) } catch { break }
                    waker.yield()
                }
                waker.finish()
            }
            waker.yield()
            var afterFill = false
            var readLog = HoldingsReadLog()
            for await _ in wake {
                var read = fresh
                if afterFill { read.maxAge = .zero }
                if holdings.positions,
                    let answer = await readLog.reading("positions", logger, { try await self.reads.positions(owner: owner, read) })
                {
                    let now = Dictionary(answer.data.map { (Self.holdingKey($0), $0) }, uniquingKeysWith: { a, _ in a })
                    let failed = Set(answer.sources.filter { $0.status == .error }.map(\.connection))
                    for change in Self.changes(from: positions, to: now, failed: failed, connectionOf: \.connectionId, same: Self.sameHolding) {
                        if !send(.position(PositionChange(change: change.kind, position: change.item))) {
                            group.cancelAll()
                            return
                        }
                    }
                    positions = Self.merged(positions, now, failed: failed, connectionOf: \.connectionId)
                }
                if holdings.balances,
                    let answer = await readLog.reading("balances", logger, { try await self.reads.balances(owner: owner, read) })
                {
                    let now = Dictionary(
                        answer.data.map { ("\($0.connectionId)|\($0.accountId)|\($0.currency)", $0) },
                        uniquingKeysWith: { a, _ in a }
                    )
                    let failed = Set(answer.sources.filter { $0.status == .error }.map(\.connection))
                    for change in Self.changes(from: balances, to: now, failed: failed, connectionOf: \.connectionId, same: Self.sameBalance) {
                        if !send(.balance(BalanceChange(change: change.kind, balance: change.item))) {
                            group.cancelAll()
                            return
                        }
                    }
                    balances = Self.merged(balances, now, failed: failed, connectionOf: \.connectionId)
                }
                afterFill = true
            }
            group.cancelAll()
        }
    }

    static func holdingKey(_ position: Position) -> String {
        "\(position.connectionId)|\(position.accountId)|\(position.instrument.symbol)|\(position.instrument.assetClass.rawValue)"
    }

    /// A holding changes when what is held changes, not when its price moves (quotes say that).
    static func sameHolding(_ a: Position, _ b: Position) -> Bool {
        a.quantity == b.quantity && a.averagePrice == b.averagePrice && a.costBasis == b.costBasis
    }

    static func sameBalance(_ a: Balance, _ b: Balance) -> Bool {
        a.total == b.total && a.available == b.available && a.held == b.held && a.buyingPower == b.buyingPower
    }

    /// What changed between two reads. The first read is the snapshot; a connection that failed this time closes
    /// nothing (its holdings are unknown, not gone).
    static func changes<Item>(
        from before: [String: Item]?,
        to now: [String: Item],
        failed: Set<String>,
        connectionOf: KeyPath<Item, String>,
        same: (Item, Item) -> Bool
    ) -> [(kind: HoldingChangeKind, item: Item)] {
        guard let before else { return now.keys.sorted().map { (.snapshot, now[$0]!) } }
        var result: [(kind: HoldingChangeKind, item: Item)] = []
        for key in now.keys.sorted() {
            let item = now[key]!
            if let old = before[key] {
                if !same(old, item) { result.append((.changed, item)) }
            } else {
                result.append((.opened, item))
            }
        }
        for key in before.keys.sorted() where now[key] == nil {
            let old = before[key]!
            if !failed.contains(old[keyPath: connectionOf]) { result.append((.closed, old)) }
        }
        return result
    }

    /// The holdings known after a read: the new ones, and the last known of connections that failed this time.
    static func merged<Item>(
        _ before: [String: Item]?,
        _ now: [String: Item],
        failed: Set<String>,
        connectionOf: KeyPath<Item, String>
    ) -> [String: Item] {
        var result = now
        for (key, item) in before ?? [:] where result[key] == nil && failed.contains(item[keyPath: connectionOf]) {
            result[key] = item
        }
        return result
    }
}

/// A stream's last word: once it ended with an `error` event nothing more is sent, whichever of its parts tries.
private final class StreamGate: Sendable {
    private let ended = Mutex(false)

    /// Sends unless the stream has ended; false when it has, or the client cannot keep up.
    func send(_ yield: () -> AsyncStream<StreamEvent>.Continuation.YieldResult) -> Bool {
        ended.withLock { ended in
            guard !ended else { return false }
            switch yield() {
            case .enqueued: return true
            case .dropped, .terminated: return false
            @unknown default: return false
            }
        }
    }

    /// Sends the last message once (later calls send nothing) and ends the stream.
    func end(_ yield: () -> AsyncStream<StreamEvent>.Continuation.YieldResult) {
        ended.withLock { ended in
            guard !ended else { return }
            ended = true
            _ = yield()
        }
    }
}
