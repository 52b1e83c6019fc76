import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
import Logging

/// Orders whose outcome is unknown are resolved by asking the broker, never by sending them again.
extension Gateway {
    /// Resolves an order whose outcome is unknown by asking the broker, never by sending it again:
    /// by client order id where the broker keeps one (Alpaca, Saxo's ExternalReference), else by matching
    /// account, instrument, side, quantity, price and time among the broker's orders.
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
                    tenantId: journaled.tenantId, connectionId: connection.id, since: journaled.createdAt.addingTimeInterval(-3600))
                let candidates = try await adapter.orders(OrderQuery(
                    state: .all, accountId: journaled.accountId, symbols: [request.instrument.symbol], limit: 500,
                    after: journaled.createdAt.addingTimeInterval(-60)))
                let intent = OrderIntent(request, clientOrderId: journaled.clientOrderId, sentAt: journaled.createdAt)
                return OrderMatcher().match(intent, among: candidates, claimed: claimed)
            }
        } catch {
            logger.warning("reconciliation could not reach the broker", metadata: ["order": .string(journaled.id), "connection": .string(connection.id)])
            return journaled
        }
        if let found {
            return try await record(journaled, order: gatewayOrder(found, connection: connection), kind: .reconciled,
                                    detail: "the broker has the order")
        }
        // Absence proves something only where the broker lists finished orders too; elsewhere (Saxo's open orders,
        // TradeOgre without history) an order that filled at once is invisible, so the outcome stays unknown
        // rather than being guessed.
        if adapter.capabilities.support(for: .closedOrders) == .supported,
            Date().timeIntervalSince(journaled.createdAt) >= orderSettings.reconcileGrace
        {
            return try await mark(journaled, .rejected, kind: .notFoundAtBroker, error: GatewayError(
                .rejected, "the broker never received the order (checked \(Int(orderSettings.reconcileGrace)) s after sending)",
                broker: connection.broker, retryable: false))
        }
        return journaled
    }

    /// Reconciles every order whose outcome is unknown (and intents left `submitting` by a stopped gateway).
    public func reconcilePending(limit: Int = 100) async {
        guard let pending = try? await journal.journaledOrders(in: [.unknown, .submitting], limit: limit) else { return }
        reconcilerHeartbeat.beat()
        reconciliationAttempts.keep(only: Set(pending.map(\.id)))
        metrics.reconciliation(pending: pending.count, oldest: pending.map(\.createdAt).min())
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

}
