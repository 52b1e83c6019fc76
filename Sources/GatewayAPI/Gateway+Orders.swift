import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
import Logging

/// The order pipeline: validate, claim the idempotency key, journal the intent, call the broker once, record the
/// outcome. An outcome that cannot be known (timeout, dropped connection, 5xx) is recorded as `unknown` and
/// resolved by reconciliation against the broker, never by sending the order again.
extension Gateway {
    static let orderPrefix = "ord_"

    // MARK: Reading

    func gatewayOrder(_ order: Order, connection: ConnectionDescriptor) -> Order {
        var order = order
        order.connectionId = connection.id
        order.broker = connection.broker
        if let brokerId = order.brokerOrderId {
            order.id = OpaqueID.make(prefix: Self.orderPrefix, connectionId: connection.id, brokerId: brokerId)
        }
        return order
    }

    /// Gives broker orders the ids of their journal entries where the gateway placed them.
    func journalIds(_ orders: [Order], tenant: Tenant, connection: ConnectionDescriptor) async throws -> [Order] {
        var result: [Order] = []
        for var order in orders {
            order = gatewayOrder(order, connection: connection)
            if let brokerId = order.brokerOrderId,
                let journaled = try await journal.journaledOrder(tenantId: tenant.id, connectionId: connection.id, brokerOrderId: brokerId)
            {
                order.id = journaled.id
            }
            result.append(order)
        }
        return result
    }

    /// What a journaled order looks like to a client: the broker's order once known, else the intent.
    func view(_ journaled: JournaledOrder, broker: BrokerKind) -> Order {
        if var order = journaled.order {
            order.id = journaled.id
            order.clientOrderId = journaled.clientOrderId
            return order
        }
        let request = journaled.request
        return Order(
            id: journaled.id, brokerOrderId: journaled.brokerOrderId, clientOrderId: journaled.clientOrderId,
            connectionId: journaled.connectionId, broker: broker, accountId: journaled.accountId,
            instrument: Self.instrument(request.instrument), side: request.side, type: request.type,
            timeInForce: request.timeInForce, quantity: request.quantity, limitPrice: request.limitPrice,
            stopPrice: request.stopPrice, status: journaled.state == .rejected ? .rejected : .unknown,
            filledQuantity: 0, createdAt: journaled.createdAt, updatedAt: journaled.updatedAt,
            expiresAt: request.expiresAt, brokerStatus: journaled.errorMessage)
    }

    /// An order by gateway id: a journaled one (reconciled or refreshed from the broker first), or one the gateway
    /// did not place, by its derived id.
    public func order(tenant: Tenant, id: String) async throws -> (Order, ConnectionDescriptor, any BrokerAdapter, JournaledOrder?) {
        if var journaled = try await journal.journaledOrder(tenantId: tenant.id, id: id) {
            guard let connection = try await store.connection(tenantId: tenant.id, id: journaled.connectionId) else {
                throw GatewayError(.notFound, "the connection of order '\(journaled.id)' was unlinked; its history remains at /v1/orders/\(journaled.id)/events")
            }
            if connection.status != .active { throw Self.statusError(connection) }
            let adapter = try await adapter(for: connection)
            journaled = try await refresh(journaled, connection: connection, adapter: adapter)
            return (view(journaled, broker: connection.broker), connection, adapter, journaled)
        }
        guard let (connectionId, brokerId) = OpaqueID.parse(id, prefix: Self.orderPrefix),
            let connection = try await store.connection(tenantId: tenant.id, id: connectionId)
        else {
            throw GatewayError(.notFound, "no order '\(id)'")
        }
        if connection.status != .active { throw Self.statusError(connection) }
        let adapter = try await adapter(for: connection)
        let order = try await withDeadline(router.perSourceTimeout) { try await adapter.order(brokerOrderId: brokerId) }
        return (gatewayOrder(order, connection: connection), connection, adapter, nil)
    }

    /// Brings a journaled order up to date: reconciles an unknown outcome, or reads the broker's current status.
    func refresh(_ journaled: JournaledOrder, connection: ConnectionDescriptor, adapter: any BrokerAdapter) async throws -> JournaledOrder {
        switch journaled.state {
        case .rejected:
            return journaled
        case .submitting, .unknown:
            if inFlight.isRunning(journaled.id) { return journaled }
            return try await reconcile(journaled, connection: connection, adapter: adapter)
        case .accepted:
            guard let brokerId = journaled.brokerOrderId else { return journaled }
            let current = try await withDeadline(router.perSourceTimeout) { try await adapter.order(brokerOrderId: brokerId) }
            return try await record(journaled, order: gatewayOrder(current, connection: connection), kind: "status_changed", onlyIfChanged: true)
        }
    }

    /// Stores a new broker view of the order and appends an event (unless nothing changed and `onlyIfChanged`).
    func record(_ journaled: JournaledOrder, order: Order, kind: String, detail: String? = nil, onlyIfChanged: Bool = false) async throws -> JournaledOrder {
        var updated = journaled
        updated.state = .accepted
        updated.brokerOrderId = order.brokerOrderId ?? journaled.brokerOrderId
        updated.order = order
        updated.error = nil
        updated.errorMessage = nil
        if onlyIfChanged, let previous = journaled.order, previous.status == order.status,
            previous.filledQuantity == order.filledQuantity, previous.brokerOrderId == order.brokerOrderId,
            previous.quantity == order.quantity, previous.limitPrice == order.limitPrice, previous.stopPrice == order.stopPrice
        {
            return journaled
        }
        updated.updatedAt = Date()
        try await journal.updateJournaledOrder(updated, event: OrderEvent(
            kind: kind, state: .accepted, status: order.status, brokerOrderId: updated.brokerOrderId, detail: detail, at: Date()))
        // Answer from what was stored, so the first answer and every idempotent repeat are the same to the byte.
        return try await journal.journaledOrder(tenantId: updated.tenantId, id: updated.id) ?? updated
    }

    func mark(_ journaled: JournaledOrder, _ state: JournalState, kind: String, error: GatewayError) async throws -> JournaledOrder {
        var updated = journaled
        updated.state = state
        updated.error = error.code
        updated.errorMessage = error.message
        updated.updatedAt = Date()
        try await journal.updateJournaledOrder(updated, event: OrderEvent(
            kind: kind, state: state, status: state == .rejected ? .rejected : .unknown, brokerOrderId: updated.brokerOrderId,
            detail: "\(error.code.rawValue): \(error.message)", at: Date()))
        return try await journal.journaledOrder(tenantId: updated.tenantId, id: updated.id) ?? updated
    }

    public func orderEvents(tenant: Tenant, id: String) async throws -> [OrderEvent] {
        guard try await journal.journaledOrder(tenantId: tenant.id, id: id) != nil else {
            throw GatewayError(.notFound, "no journaled order '\(id)' (orders placed outside the gateway have no journal)")
        }
        return try await journal.orderEvents(tenantId: tenant.id, orderId: id)
    }

    // MARK: Reconciliation

    /// Resolves an order whose outcome is unknown by asking the broker, never by sending it again:
    /// by client order id where the broker keeps one (Alpaca, Saxo's ExternalReference), else by matching
    /// account, instrument, side, quantity, price and time among the broker's orders.
    public func reconcile(_ journaled: JournaledOrder, connection: ConnectionDescriptor, adapter: any BrokerAdapter) async throws -> JournaledOrder {
        let request = journaled.request
        let found: Order?
        do {
            found = try await withDeadline(router.perSourceTimeout) { [journal] in
                if adapter.capabilities.support(for: .orderByClientOrderId) == .supported {
                    return try await adapter.order(clientOrderId: journaled.clientOrderId, accountId: journaled.accountId)
                }
                let claimed = try await journal.claimedBrokerOrderIds(
                    tenantId: journaled.tenantId, connectionId: connection.id, since: journaled.createdAt.addingTimeInterval(-3600))
                let candidates = try await adapter.orders(OrderQuery(
                    state: .all, accountId: journaled.accountId, symbols: [request.instrument.symbol], limit: 500,
                    after: journaled.createdAt.addingTimeInterval(-60)))
                return candidates
                    .filter { order in
                        guard let brokerId = order.brokerOrderId, !claimed.contains(brokerId) else { return false }
                        return order.accountId == journaled.accountId && order.side == request.side
                            && order.type == request.type && order.quantity == request.quantity
                            && order.limitPrice == request.limitPrice && order.stopPrice == request.stopPrice
                            && order.instrument.symbol == request.instrument.symbol
                    }
                    .min { ($0.createdAt ?? .distantFuture) < ($1.createdAt ?? .distantFuture) }
            }
        } catch {
            logger.warning("reconciliation could not reach the broker", metadata: ["order": .string(journaled.id), "connection": .string(connection.id)])
            return journaled
        }
        if let found {
            return try await record(journaled, order: gatewayOrder(found, connection: connection), kind: "reconciled",
                                    detail: "the broker has the order")
        }
        // Absence proves something only where the broker lists finished orders too; elsewhere (Saxo's open orders,
        // TradeOgre without history) an order that filled at once is invisible, so the outcome stays unknown
        // rather than being guessed.
        if adapter.capabilities.support(for: .closedOrders) == .supported,
            Date().timeIntervalSince(journaled.createdAt) >= orderSettings.reconcileGrace
        {
            return try await mark(journaled, .rejected, kind: "not_found_at_broker", error: GatewayError(
                .rejected, "the broker never received the order (checked \(Int(orderSettings.reconcileGrace)) s after sending)",
                broker: connection.broker, retryable: false))
        }
        return journaled
    }

    /// Reconciles every order whose outcome is unknown (and intents left `submitting` by a stopped gateway).
    public func reconcilePending(limit: Int = 100) async {
        guard let pending = try? await journal.journaledOrders(in: [.unknown, .submitting], limit: limit) else { return }
        let staleSubmitting = Date().addingTimeInterval(-(orderSettings.brokerTimeout.milliseconds / 1000) - 5)
        for journaled in pending where !inFlight.isRunning(journaled.id) {
            if journaled.state == .submitting, journaled.createdAt > staleSubmitting { continue }
            guard let tenant = try? await store.tenant(id: journaled.tenantId),
                let connection = try? await store.connection(tenantId: tenant.id, id: journaled.connectionId),
                connection.status == .active,
                let adapter = try? await adapter(for: connection)
            else { continue }
            _ = try? await reconcile(journaled, connection: connection, adapter: adapter)
        }
    }

    // MARK: Preview and place

    /// The rules that depend on the connection: what its broker declares it can trade, and that the account is one
    /// of this connection's accounts. (Instrument rules such as increments are each adapter's, checked before it sends.)
    func validate(_ request: OrderRequest, connection: ConnectionDescriptor, adapter: any BrokerAdapter) async throws {
        let capabilities = adapter.capabilities
        var problems: [FieldProblem] = []
        if !capabilities.orderTypes.contains(request.type) {
            problems.append(FieldProblem(field: "type", problem: "\(connection.broker) takes \(capabilities.orderTypes.map(\.rawValue).joined(separator: ", "))"))
        }
        if !capabilities.timeInForce.contains(request.timeInForce) {
            problems.append(FieldProblem(field: "timeInForce", problem: "\(connection.broker) takes \(capabilities.timeInForce.map(\.rawValue).joined(separator: ", "))"))
        }
        let assetClass = request.instrument.impliedAssetClass
        if !capabilities.assetClasses.contains(assetClass) {
            problems.append(FieldProblem(field: request.instrument.assetClass == nil ? "symbol" : "assetClass", problem: "\(connection.broker) does not trade \(assetClass.rawValue)"))
        }
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        if capabilities.support(for: .accounts) != .unsupported {
            let timeout = router.perSourceTimeout
            let ids = try await accountIds.ids(connectionId: connection.id) {
                Set(try await withDeadline(timeout) { try await adapter.accounts() }.map(\.id))
            }
            if !ids.contains(request.accountId) {
                throw GatewayError.unprocessable([FieldProblem(field: "accountId", problem: "is not an account of connection \(connection.id)")])
            }
        }
    }

    public func previewOrder(tenant: Tenant, _ request: OrderRequest) async throws -> OrderPreview {
        let problems = request.problems()
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        let connection = try await activeConnection(tenant: tenant, id: request.connectionId, field: "connectionId")
        try requireSupport(.previewOrder, connection)
        let adapter = try await adapter(for: connection)
        try await validate(request, connection: connection, adapter: adapter)
        var preview = try await withDeadline(router.perSourceTimeout) { try await adapter.previewOrder(request) }
        preview.id = OrderDigest.newId(prefix: "pv_")
        preview.expiresAt = min(preview.expiresAt, Date().addingTimeInterval(orderSettings.previewLifetime))
        previews.store(preview, tenantId: tenant.id)
        return preview
    }

    /// Places an order at most once per idempotency key.
    public func placeOrder(tenant: Tenant, _ request: OrderRequest, idempotencyKey: String?) async throws -> PlacementResult {
        var problems = request.problems()
        if let idempotencyKey, idempotencyKey.isEmpty || idempotencyKey.count > 128 || !idempotencyKey.allSatisfy({ $0.isASCII && !$0.isWhitespace }) {
            problems.append(FieldProblem(field: "Idempotency-Key", problem: "must be 1 to 128 visible ASCII characters"))
        }
        if idempotencyKey == nil, request.clientOrderId == nil {
            problems.append(FieldProblem(field: "Idempotency-Key", problem: "is required (or send clientOrderId in the body)"))
        }
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        let connection = try await activeConnection(tenant: tenant, id: request.connectionId, field: "connectionId")
        try requireSupport(.placeOrder, connection)
        if let previewId = request.previewId {
            guard let preview = previews.preview(previewId, tenantId: tenant.id), preview.expiresAt > Date() else {
                throw GatewayError.unprocessable([FieldProblem(field: "previewId", problem: "names no valid preview (previews last \(Int(orderSettings.previewLifetime)) s)")])
            }
            var previewed = preview.request
            previewed.previewId = previewId
            previewed.clientOrderId = request.clientOrderId
            if OrderDigest.hash(previewed) != OrderDigest.hash(request) {
                throw GatewayError.unprocessable([FieldProblem(field: "previewId", problem: "was made for a different order")])
            }
        }

        try await validate(request, connection: connection, adapter: try await adapter(for: connection))
        let key = idempotencyKey ?? "clientOrderId:\(request.clientOrderId!)"
        var request = request
        if request.clientOrderId == nil { request.clientOrderId = OrderDigest.clientOrderId(tenantId: tenant.id, key: key) }
        // Marked in flight before the claim, so a concurrent request that finds the claim waits for its outcome.
        let proposedId = OrderDigest.newOrderId()
        inFlight.begin(proposedId)
        let claim: IdempotencyClaim
        do {
            claim = try await journal.claimIdempotencyKey(
                tenantId: tenant.id, key: key, requestHash: OrderDigest.hash(request), proposedOrderId: proposedId,
                retention: orderSettings.idempotencyRetention)
        } catch {
            inFlight.finish(proposedId)
            throw error
        }
        if case .claimed = claim {} else { inFlight.finish(proposedId) }
        switch claim {
        case .mismatch:
            throw GatewayError(.conflict, "this idempotency key was used with a different order", retryable: false,
                               details: [FieldProblem(field: "Idempotency-Key", problem: "was used with a different request")])
        case .existing(let orderId):
            return try await replay(orderId: orderId, request: request, tenant: tenant, connection: connection)
        case .claimed(let orderId):
            return try await submit(orderId: orderId, request: request, tenant: tenant, connection: connection)
        }
    }

    func submit(orderId: String, request: OrderRequest, tenant: Tenant, connection: ConnectionDescriptor) async throws -> PlacementResult {
        defer { inFlight.finish(orderId) }
        let now = Date()
        var journaled = JournaledOrder(
            id: orderId, tenantId: tenant.id, connectionId: connection.id, accountId: request.accountId,
            clientOrderId: request.clientOrderId!, request: request, state: .submitting, createdAt: now, updatedAt: now)
        try await journal.createOrderIntent(journaled, event: OrderEvent(
            kind: "intent", state: .submitting, detail: "client order id \(journaled.clientOrderId)", at: now))
        let adapter = try await adapter(for: connection)
        do {
            let placed = try await withDeadline(orderSettings.brokerTimeout) { try await adapter.placeOrder(request) }
            journaled = try await record(journaled, order: gatewayOrder(placed, connection: connection), kind: "accepted")
            return PlacementResult(order: view(journaled, broker: connection.broker), outcome: .accepted, replayed: false)
        } catch let error as GatewayError where Self.outcomeIsUnknown(error) {
            journaled = try await mark(journaled, .unknown, kind: "unknown", error: error)
            logger.warning("placement outcome unknown; reconciling", metadata: ["order": .string(orderId)])
            journaled = (try? await reconcile(journaled, connection: connection, adapter: adapter)) ?? journaled
            return PlacementResult(order: view(journaled, broker: connection.broker), outcome: journaled.state == .accepted ? .accepted : .unknown, replayed: false)
        } catch let error as GatewayError {
            journaled = try await mark(journaled, .rejected, kind: "rejected", error: error)
            throw error
        } catch {
            // Cancellation or a transport failure of unknown kind: the broker may have acted.
            let unknown = GatewayError(.upstreamUnavailable, "the placement was interrupted (\(type(of: error)))")
            _ = try? await mark(journaled, .unknown, kind: "unknown", error: unknown)
            throw error
        }
    }

    /// Whether a failure leaves the broker's action in doubt: it may have acted before the answer was lost.
    static func outcomeIsUnknown(_ error: GatewayError) -> Bool {
        [.upstreamTimeout, .upstreamUnavailable, .malformedResponse, .internalError].contains(error.code)
    }

    func replay(orderId: String, request: OrderRequest, tenant: Tenant, connection: ConnectionDescriptor) async throws -> PlacementResult {
        await inFlight.wait(orderId)
        // Another instance may still be sending it: give it the broker timeout before treating it as unknown.
        var journaled = try await journal.journaledOrder(tenantId: tenant.id, id: orderId)
        let clock = ContinuousClock()
        let deadline = clock.now + orderSettings.brokerTimeout + .seconds(1)
        while journaled == nil || journaled?.state == .submitting, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            journaled = try await journal.journaledOrder(tenantId: tenant.id, id: orderId)
        }
        guard var journaled else {
            // The request that claimed the key stopped before it wrote its intent, so nothing reached the broker
            // (the intent is always written first): this request carries it out under the same order id.
            inFlight.begin(orderId)
            do {
                return try await submit(orderId: orderId, request: request, tenant: tenant, connection: connection)
            } catch let error as GatewayError where error.code == .conflict {
                // Another request took it over at the same moment; answer with its outcome.
                guard try await journal.journaledOrder(tenantId: tenant.id, id: orderId) != nil else { throw error }
                return try await replay(orderId: orderId, request: request, tenant: tenant, connection: connection)
            }
        }
        if journaled.state == .rejected {
            throw GatewayError(journaled.error ?? .rejected, journaled.errorMessage ?? "the broker rejected the order", broker: connection.broker, retryable: false)
        }
        if journaled.state == .unknown || journaled.state == .submitting {
            let adapter = try await adapter(for: connection)
            journaled = (try? await reconcile(journaled, connection: connection, adapter: adapter)) ?? journaled
            if journaled.state == .rejected {
                throw GatewayError(journaled.error ?? .rejected, journaled.errorMessage ?? "the broker rejected the order", broker: connection.broker, retryable: false)
            }
        }
        return PlacementResult(
            order: view(journaled, broker: connection.broker), outcome: journaled.state == .accepted ? .accepted : .unknown, replayed: true)
    }

    // MARK: Modify and cancel

    public func modifyOrder(tenant: Tenant, id: String, _ modification: OrderModification) async throws -> Order {
        let problems = modification.problems()
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        let (current, connection, adapter, journaled) = try await order(tenant: tenant, id: id)
        try requireSupport(.modifyOrder, connection)
        guard current.status.isActive, current.status != .unknown else {
            throw GatewayError(.conflict, "the order is \(current.status.rawValue) and cannot be changed", broker: connection.broker, retryable: false)
        }
        do {
            let changed = try await withDeadline(orderSettings.brokerTimeout) { try await adapter.modifyOrder(current, modification) }
            let mapped = gatewayOrder(changed, connection: connection)
            guard let journaled else { return mapped }
            let detail = mapped.brokerOrderId != current.brokerOrderId
                ? "replaced broker order \(current.brokerOrderId ?? "?") with \(mapped.brokerOrderId ?? "?")" : "changed"
            let updated = try await record(journaled, order: mapped, kind: "modified", detail: detail)
            return view(updated, broker: connection.broker)
        } catch let error as GatewayError {
            if let journaled {
                _ = try? await journal.updateJournaledOrder(journaled, event: OrderEvent(
                    kind: "modify_failed", state: journaled.state, status: current.status, brokerOrderId: journaled.brokerOrderId,
                    detail: "\(error.code.rawValue): \(error.message)", at: Date()))
            }
            throw error
        }
    }

    public func cancelOrder(tenant: Tenant, id: String) async throws -> Order {
        let (current, connection, adapter, journaled) = try await order(tenant: tenant, id: id)
        try requireSupport(.cancelOrder, connection)
        guard current.status.isActive, current.status != .unknown else {
            throw GatewayError(
                .conflict, "the order is already \(current.status.rawValue) and cannot be cancelled", broker: connection.broker,
                retryable: false)
        }
        do {
            let canceled = try await withDeadline(orderSettings.brokerTimeout) { try await adapter.cancelOrder(current) }
            let mapped = gatewayOrder(canceled, connection: connection)
            guard let journaled else { return mapped }
            return view(try await record(journaled, order: mapped, kind: "canceled"), broker: connection.broker)
        } catch let error as GatewayError where error.code == .conflict {
            // It filled or ended meanwhile: say its final state.
            if let final = try? await withDeadline(router.perSourceTimeout, { try await adapter.order(brokerOrderId: current.brokerOrderId ?? "") }) {
                if let journaled { _ = try? await record(journaled, order: gatewayOrder(final, connection: connection), kind: "cancel_refused") }
                throw GatewayError(.conflict, "the order is already \(final.status.rawValue) and cannot be cancelled", broker: connection.broker, retryable: false)
            }
            throw error
        }
    }
}
