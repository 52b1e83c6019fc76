import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
import Logging

/// The order pipeline: validate, claim the idempotency key, journal the intent, call the broker once, record the
/// outcome. An outcome that cannot be known (timeout, dropped connection, 5xx) is recorded as `unknown` and
/// resolved by reconciliation against the broker, never by sending the order again.
extension OrderService {
    /// The rules that depend on the connection: what its broker declares it can trade, and that the account is one
    /// of this connection's accounts. (Instrument rules such as increments are each adapter's, checked before it sends.)
    func validate(_ request: OrderRequest, connection: ConnectionDescriptor, adapter: any BrokerAdapter) async throws {
        let capabilities = adapter.capabilities
        var problems: [FieldProblem] = []
        if !capabilities.orderTypes.contains(request.type) {
            problems.append(
                FieldProblem(field: "type", problem: "\(connection.broker) takes \(capabilities.orderTypes.map(\.rawValue).joined(separator: ", "))")
            )
        }
        if !capabilities.timeInForce.contains(request.timeInForce) {
            problems.append(
                FieldProblem(
                    field: "timeInForce",
                    problem: "\(connection.broker) takes \(capabilities.timeInForce.map(\.rawValue).joined(separator: ", "))"
                )
            )
        }
        if request.notional != nil, capabilities.support(for: .notionalOrders) == .unsupported {
            problems.append(FieldProblem(field: "notional", problem: "\(connection.broker) does not take orders sized in money; send quantity"))
        }
        let assetClass = request.instrument.impliedAssetClass
        if !capabilities.assetClasses.contains(assetClass) {
            problems.append(
                FieldProblem(
                    field: request.instrument.assetClass == nil ? "symbol" : "assetClass",
                    problem: "\(connection.broker) does not trade \(assetClass.rawValue)"
                )
            )
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

    /// Checks an order against its connection and the broker without placing it, and keeps the answer a while, so a
    /// placement can name the preview it follows (`previewId`).
    public func previewOrder(owner: Owner, _ request: OrderRequest) async throws -> OrderPreview {
        let tenant = owner.tenant
        let problems = request.problems()
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        let connection = try await directory.activeConnection(owner: owner, id: request.connectionId, field: "connectionId")
        try directory.requireSupport(.previewOrder, connection)
        let adapter = try await directory.adapter(for: connection)
        try await validate(request, connection: connection, adapter: adapter)
        var preview = try await BrokerOperationScope.$current.withValue(BrokerOperation.previewOrder.rawValue) {
            try await withDeadline(router.perSourceTimeout) { try await adapter.previewOrder(request) }
        }
        preview.id = OrderDigest.newId(prefix: "pv_")
        preview.expiresAt = min(preview.expiresAt, Date().addingTimeInterval(orderSettings.previewLifetime))
        previews.store(preview, tenantId: tenant.id)
        return preview
    }

    /// Places an order at most once per idempotency key.
    public func placeOrder(owner: Owner, _ request: OrderRequest, idempotencyKey: String?) async throws -> PlacementResult {
        let tenant = owner.tenant
        var problems = request.problems()
        if let idempotencyKey, idempotencyKey.isEmpty || idempotencyKey.count > 128 || !idempotencyKey.allSatisfy({ $0.isASCII && !$0.isWhitespace })
        {
            problems.append(FieldProblem(field: "Idempotency-Key", problem: "must be 1 to 128 visible ASCII characters"))
        }
        if idempotencyKey == nil, request.clientOrderId == nil {
            problems.append(FieldProblem(field: "Idempotency-Key", problem: "is required (or send clientOrderId in the body)"))
        }
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        let connection = try await directory.activeConnection(owner: owner, id: request.connectionId, field: "connectionId")
        try directory.requireSupport(.placeOrder, connection)
        let key = idempotencyKey ?? "clientOrderId:\(request.clientOrderId!)"
        var request = request
        if request.clientOrderId == nil { request.clientOrderId = OrderDigest.clientOrderId(tenantId: tenant.id, key: key) }
        let requestHash = try OrderDigest.hash(request)
        // A repeat of a key already held is answered from the journal before anything reaches the broker (no account
        // check, no breaker): a retry storm costs the broker nothing.
        switch try await journal.heldIdempotencyKey(tenantId: tenant.id, key: key, requestHash: requestHash) {
        case .existing(let orderId)?:
            metrics.placement("replayed")
            return try await replay(orderId: orderId, request: request, tenant: tenant, connection: connection)
        case .mismatch?:
            throw Self.keyMismatch
        case .claimed?, nil:
            break
        }
        if let previewId = request.previewId {
            guard let preview = previews.preview(previewId, tenantId: tenant.id), preview.expiresAt > Date() else {
                throw GatewayError.unprocessable([
                    FieldProblem(field: "previewId", problem: "names no valid preview (previews last \(Int(orderSettings.previewLifetime)) s)")
                ])
            }
            var previewed = preview.request
            previewed.previewId = previewId
            previewed.clientOrderId = request.clientOrderId
            if try OrderDigest.hash(previewed) != OrderDigest.hash(request) {
                throw GatewayError.unprocessable([FieldProblem(field: "previewId", problem: "was made for a different order")])
            }
        }

        try await validate(request, connection: connection, adapter: try await directory.adapter(for: connection))
        // A broker whose breaker is open is not sent the order: refused before the key is claimed, so the same key
        // places it once the broker is back.
        if let refusal = directory.registry.pipeline.breakerRefusal(connectionId: connection.id, broker: connection.broker) {
            metrics.placement("refused")
            throw refusal
        }
        // Marked in flight before the claim, so a concurrent request that finds the claim waits for its outcome.
        let proposedId = OrderDigest.newOrderId()
        inFlight.begin(proposedId)
        let claim: IdempotencyClaim
        do {
            claim = try await journal.claimIdempotencyKey(
                tenantId: tenant.id,
                key: key,
                requestHash: requestHash,
                proposedOrderId: proposedId,
                retention: orderSettings.idempotencyRetention
            )
        } catch {
            inFlight.finish(proposedId)
            throw error
        }
        if case .claimed = claim {} else { inFlight.finish(proposedId) }
        switch PlacementStateMachine.afterClaim(claim) {
        case .refuseMismatch:
            throw Self.keyMismatch
        case .replay(let orderId):
            return try await replay(orderId: orderId, request: request, tenant: tenant, connection: connection)
        case .submit(let orderId):
            return try await submit(orderId: orderId, request: request, tenant: tenant, connection: connection)
        }
    }

    func submit(orderId: String, request: OrderRequest, tenant: Tenant, connection: ConnectionDescriptor) async throws -> PlacementResult {
        defer { inFlight.finish(orderId) }
        let now = Date()
        let journaled = JournaledOrder(
            id: orderId,
            tenantId: tenant.id,
            connectionId: connection.id,
            accountId: request.accountId,
            clientOrderId: request.clientOrderId!,
            request: request,
            state: .submitting,
            createdAt: now,
            updatedAt: now
        )
        try await journal.createOrderIntent(
            journaled,
            event: OrderEvent(
                kind: .intent,
                state: .submitting,
                detail: "client order id \(journaled.clientOrderId)",
                at: now
            )
        )
        return try await send(journaled, connection: connection)
    }

    /// The one call to the broker for an intent journaled `submitting`, and its outcome journaled: `accepted`,
    /// `rejected`, `unknown` (then reconciled, never resent) or `released` (nothing happened at the broker; the key
    /// sends it again). The caller owns the order's in-flight mark.
    func send(_ intent: JournaledOrder, connection: ConnectionDescriptor) async throws -> PlacementResult {
        var journaled = intent
        let request = intent.request
        // Whatever the outcome, positions, balances and orders may have changed: no read is answered from before.
        defer { directory.invalidateReads(connection: connection.id) }
        let ledger = BrokerSendLedger()
        var adapter: (any BrokerAdapter)?
        let placed: Order
        do {
            let ready = try await self.directory.adapter(for: connection)
            adapter = ready
            placed = try await BrokerSendLedger.$current.withValue(ledger) {
                try await BrokerOperationScope.$current.withValue(BrokerOperation.placeOrder.rawValue) {
                    try await withDeadline(orderSettings.brokerTimeout) { try await ready.placeOrder(request) }
                }
            }
        } catch {
            // Without an adapter nothing was called at all.
            let nothingWritten = adapter == nil ? true : ledger.nothingWritten
            return try await settle(journaled, failure: error, nothingWritten: nothingWritten, connection: connection, adapter: adapter)
        }
        // A store failure from here on leaves the intent `submitting`: the broker has the order, and the reconciler
        // (or the same key, once the sender's time is up) finds it there.
        journaled = try await record(journaled, order: OrderView.gateway(placed, connection: connection), kind: .accepted)
        metrics.placement("accepted")
        return PlacementResult(order: OrderView.journaled(journaled, broker: connection.broker), outcome: .accepted, replayed: false)
    }

    /// Journals what a failed placement means (``PlacementStateMachine/afterFailure(_:nothingWritten:)``) and answers:
    /// `unknown` with the order (202) after trying to reconcile it at once, else the error.
    func settle(
        _ intent: JournaledOrder,
        failure: any Error,
        nothingWritten: Bool?,
        connection: ConnectionDescriptor,
        adapter: (any BrokerAdapter)?
    ) async throws -> PlacementResult {
        var journaled = intent
        guard let error = failure as? GatewayError else {
            // Cancellation, or a failure of unknown kind: the broker may have acted, unless nothing was written. The
            // journal is best-effort here (a cancelled task may not write): an intent left `submitting` is
            // reconciled once it is older than any call may take.
            let interrupted = GatewayError(.upstreamUnavailable, "the placement was interrupted (\(type(of: failure)))")
            let released = nothingWritten == true
            metrics.placement(released ? "released" : "unknown")
            do {
                _ = try await mark(journaled, released ? .released : .unknown, kind: released ? .released : .unknown, error: interrupted)
            } catch {
                logger.warning(
                    "an interrupted placement could not be journaled; the reconciler will resolve it",
                    metadata: ["order": .string(journaled.id), "error": .string("\(error)")]
                )
            }
            throw failure
        }
        switch PlacementStateMachine.afterFailure(error, nothingWritten: nothingWritten) {
        case .released:
            journaled = try await mark(journaled, .released, kind: .released, error: error)
            metrics.placement("released")
            logger.info(
                "placement reached no broker; its idempotency key is released",
                metadata: ["order": .string(journaled.id), "code": .string(error.code.rawValue)]
            )
            throw error
        case .rejected:
            journaled = try await mark(journaled, .rejected, kind: .rejected, error: error)
            metrics.placement("rejected")
            var refused = error
            refused.orderId = journaled.id
            throw refused
        case .unknown:
            journaled = try await mark(journaled, .unknown, kind: .unknown, error: error)
            metrics.placement("unknown")
            logger.warning("placement outcome unknown; reconciling", metadata: ["order": .string(journaled.id)])
            if let adapter { journaled = await reconcileNow(journaled, connection: connection, adapter: adapter) }
            return PlacementResult(
                order: OrderView.journaled(journaled, broker: connection.broker),
                outcome: PlacementStateMachine.outcome(journaled.state),
                replayed: false
            )
        }
    }

    /// Reconciles at once where the caller answers either way: a failure (the broker unreachable is handled inside;
    /// this is the journal's) is logged, and the order stays as it was for the reconciler's next pass.
    func reconcileNow(_ journaled: JournaledOrder, connection: ConnectionDescriptor, adapter: any BrokerAdapter) async -> JournaledOrder {
        do {
            return try await reconcile(journaled, connection: connection, adapter: adapter)
        } catch {
            logger.error(
                "reconciliation could not journal its finding; the reconciler will try again",
                metadata: ["order": .string(journaled.id), "error": .string("\(error)")]
            )
            return journaled
        }
    }

    func replay(orderId: String, request: OrderRequest, tenant: Tenant, connection: ConnectionDescriptor) async throws -> PlacementResult {
        await inFlight.wait(orderId)
        // Another instance may still be sending it: give it the broker timeout before treating it as unknown.
        let clock = ContinuousClock()
        let deadline = clock.now + orderSettings.brokerTimeout + .seconds(1)
        var journaled = try await journal.journaledOrder(tenantId: tenant.id, id: orderId)
        while true {
            switch PlacementStateMachine.replayStep(journaled?.state, senderDeadlinePassed: clock.now >= deadline) {
            case .waitForSender:
                try await Task.sleep(for: .milliseconds(50))
                journaled = try await journal.journaledOrder(tenantId: tenant.id, id: orderId)
            case .takeOver:
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
            case .resend:
                // The earlier attempt reached no broker. Exactly one request takes the row back: in this process the
                // in-flight mark decides, across processes the store's compare-and-set; the others wait for its
                // outcome like any repeat.
                guard inFlight.begin(orderId) else {
                    await inFlight.wait(orderId)
                    journaled = try await journal.journaledOrder(tenantId: tenant.id, id: orderId)
                    continue
                }
                let reclaimed: JournaledOrder?
                do {
                    reclaimed = try await journal.reclaimReleasedOrder(
                        tenantId: tenant.id,
                        id: orderId,
                        event: OrderEvent(
                            kind: .intent,
                            state: .submitting,
                            detail:
                                "sent again with the same idempotency key and client order id \(journaled?.clientOrderId ?? "?"): the earlier attempt reached no broker",
                            at: Date()
                        )
                    )
                } catch {
                    inFlight.finish(orderId)
                    throw error
                }
                guard let reclaimed else {
                    inFlight.finish(orderId)
                    journaled = try await journal.journaledOrder(tenantId: tenant.id, id: orderId)
                    continue
                }
                defer { inFlight.finish(orderId) }
                return try await send(reclaimed, connection: connection)
            case .answerRejected:
                throw Self.rejection(journaled, connection: connection)
            case .reconcile:
                guard var current = journaled else { continue }
                let adapter = try await directory.adapter(for: connection)
                current = await reconcileNow(current, connection: connection, adapter: adapter)
                if current.state == .rejected { throw Self.rejection(current, connection: connection) }
                return PlacementResult(
                    order: OrderView.journaled(current, broker: connection.broker),
                    outcome: PlacementStateMachine.outcome(current.state),
                    replayed: true
                )
            case .answer:
                guard let current = journaled else { continue }
                return PlacementResult(
                    order: OrderView.journaled(current, broker: connection.broker),
                    outcome: PlacementStateMachine.outcome(current.state),
                    replayed: true
                )
            }
        }
    }

    static let keyMismatch = GatewayError(
        .conflict,
        "this idempotency key was used with a different order",
        retryable: false,
        details: [FieldProblem(field: "Idempotency-Key", problem: "was used with a different request")]
    )

    static func rejection(_ journaled: JournaledOrder?, connection: ConnectionDescriptor) -> GatewayError {
        var error = GatewayError(
            journaled?.error ?? .rejected,
            journaled?.errorMessage ?? "the broker rejected the order",
            broker: connection.broker,
            retryable: false
        )
        error.orderId = journaled?.id
        return error
    }
}
