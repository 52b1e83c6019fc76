import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
import Logging

/// Orders whose outcome is unknown are resolved by asking the broker, never by sending them again.
extension OrderService {
    /// Resolves an order whose outcome is unknown by asking the broker, never by sending it again:
    /// by client order id where the broker keeps one (Alpaca, Saxo's ExternalReference), else by matching
    /// account, instrument, side, quantity, price and time among the broker's orders that no intent of any tenant has
    /// claimed at that broker account (two tenants may link the same account).
    ///
    /// - Throws: only when the journal cannot record what was found (the broker being unreachable is no error: the
    ///   order stays as it is for the next attempt).
    public func reconcile(_ journaled: JournaledOrder, connection: ConnectionDescriptor, adapter: any BrokerAdapter) async throws -> JournaledOrder {
        let request = journaled.request
        reconciliationAttempts.record(journaled.id)
        let found: Order?
        do {
            found = try await withDeadline(router.perSourceTimeout) { [journal] in
                if adapter.capabilities.support(for: .orderByClientOrderId) == .supported {
                    return try await adapter.order(clientOrderId: journaled.clientOrderId, accountId: journaled.accountId)
                }
                let claimed = try await journal.claimedBrokerOrderIds(
                    tenantId: journaled.tenantId,
                    connectionId: connection.id,
                    accountId: journaled.accountId,
                    since: journaled.sentAt.addingTimeInterval(-3600)
                )
                let candidates = try await adapter.orders(
                    OrderQuery(
                        state: .all,
                        accountId: journaled.accountId,
                        symbols: [request.instrument.symbol],
                        limit: 500,
                        after: journaled.sentAt.addingTimeInterval(-60)
                    )
                )
                let intent = OrderIntent(request, clientOrderId: journaled.clientOrderId, sentAt: journaled.sentAt)
                return OrderMatcher().match(intent, among: candidates, claimed: claimed)
            }
        } catch {
            logger.warning(
                "reconciliation could not reach the broker",
                metadata: ["order": .string(journaled.id), "connection": .string(connection.id), "error": .string("\(error)")]
            )
            return journaled
        }
        if let found {
            do {
                return try await record(
                    journaled,
                    order: OrderView.gateway(found, connection: connection),
                    kind: .reconciled,
                    detail: "the broker has the order"
                )
            } catch let error as GatewayError where error.code == .conflict {
                // Another intent (perhaps another tenant's, at the same broker account) recorded that broker order
                // between the listing and now: it is not this one's. The next attempt matches among the rest.
                logger.info(
                    "a matched broker order was claimed by another intent meanwhile; matching again later",
                    metadata: ["order": .string(journaled.id), "connection": .string(connection.id)]
                )
                return journaled
            }
        }
        // Absence proves something only where the broker lists finished orders too; elsewhere (Saxo's open orders,
        // TradeOgre without history) an order that filled at once is invisible, so the outcome stays unknown
        // rather than being guessed.
        if adapter.capabilities.support(for: .closedOrders) == .supported,
            Date().timeIntervalSince(journaled.sentAt) >= orderSettings.reconcileGrace
        {
            return try await mark(
                journaled,
                .rejected,
                kind: .notFoundAtBroker,
                error: GatewayError(
                    .rejected,
                    "the broker never received the order (checked \(Int(orderSettings.reconcileGrace)) s after sending)",
                    broker: connection.broker,
                    retryable: false
                )
            )
        }
        return journaled
    }

    /// Reconciles every order whose outcome is unknown (and intents left `submitting` by a stopped gateway), each on
    /// its own: an order that cannot be read, or whose connection or broker fails, is logged and skipped, and the
    /// others (every tenant's) are still resolved.
    public func reconcilePending(limit: Int = 100) async {
        let pending: [JournaledOrderReference]
        do {
            // Rows set aside as unreadable stay pending (nothing can resolve them) and are the oldest: ask for as
            // many more, so they never take the place of an order that can be reconciled.
            pending = try await journal.journaledOrderReferences(
                in: [.unknown, .submitting],
                limit: limit + journalQuarantine.count
            )
        } catch {
            // The whole pass depends on this one query; the next pass (the reconciler's interval) tries again.
            logger.error("the reconciler cannot list pending orders", metadata: ["error": .string("\(error)")])
            return
        }
        reconcilerHeartbeat.beat()
        reconciliationAttempts.keep(only: Set(pending.map(\.id)))
        journalQuarantine.keep(only: Set(pending.map(\.id)))
        metrics.reconciliation(pending: pending.count, oldest: pending.map(\.createdAt).min())
        let staleSubmitting = Date().addingTimeInterval(-(orderSettings.brokerTimeout.milliseconds / 1000) - 5)
        for reference in pending where !inFlight.isRunning(reference.id) && !journalQuarantine.contains(reference.id) {
            if reference.state == .submitting, reference.sentAt > staleSubmitting { continue }
            await reconcilePending(reference)
        }
    }

    /// One pending order of the reconciler's pass; every failure is logged (the order's and connection's ids, never
    /// its content) and ends only this order's turn. A row the journal cannot read is quarantined
    /// (``JournalQuarantine``): logged this once, skipped from now on, and listed in the tenant's status.
    func reconcilePending(_ reference: JournaledOrderReference) async {
        let metadata: Logger.Metadata = [
            "order": .string(reference.id), "tenant": .string(reference.tenantId), "connection": .string(reference.connectionId),
        ]
        do {
            guard let journaled = try await journal.journaledOrder(tenantId: reference.tenantId, id: reference.id),
                let connection = try await store.connection(tenantId: reference.tenantId, id: reference.connectionId)
            else {
                logger.debug("a pending order's connection is gone; nothing to reconcile against", metadata: metadata)
                return
            }
            guard connection.status == .active else { return }
            let adapter = try await directory.adapter(for: connection)
            _ = try await reconcile(journaled, connection: connection, adapter: adapter)
        } catch  where JournalQuarantine.isUnreadableRow(error, orderId: reference.id) {
            guard journalQuarantine.quarantine(reference, reason: (error as? GatewayError)?.message ?? "\(error)") else { return }
            logger.error(
                "the reconciler set aside a journal row it cannot read; it is listed in the tenant's status",
                metadata: metadata.merging(["error": .string("\(error)")]) { $1 }
            )
        } catch {
            logger.error(
                "the reconciler skipped an order it could not read or record",
                metadata: metadata.merging(["error": .string("\(error)")]) { $1 }
            )
        }
    }
}
