import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
import Logging

/// Changing and cancelling working orders; each change is journaled for orders the gateway placed.
extension OrderService {
    /// Changes a working order (quantity, prices, time in force) at its broker, by replacing it where the broker
    /// replaces; the change is journaled for orders the gateway placed.
    public func modifyOrder(owner: Owner, id: String, _ modification: OrderModification) async throws -> Order {
        let problems = modification.problems()
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        let (current, connection, adapter, journaled) = try await orderHandle(owner: owner, id: id).parts
        try directory.requireSupport(.modifyOrder, connection)
        try Self.requireBrokerStillReports(current, verb: "changed")
        guard current.status.isActive, current.status != .unknown else {
            throw GatewayError(
                .conflict,
                "the order is \(current.status.rawValue) and cannot be changed",
                broker: connection.broker,
                retryable: false
            )
        }
        defer { directory.invalidateReads(connection: connection.id) }
        // While the broker changes the order, the order watcher leaves it alone (it skips in-flight orders, and
        // `refresh` records nothing for one): an emulated change cancels the broker order before placing its
        // replacement, and the watcher must not journal that cancel as the order's end.
        let changing = journaled.map { inFlight.begin($0.id) } ?? false
        defer { if changing, let journaled { inFlight.finish(journaled.id) } }
        do {
            let changed = try await BrokerOperationScope.$current.withValue(BrokerOperation.modifyOrder.rawValue) {
                try await withDeadline(orderSettings.brokerTimeout) { try await adapter.modifyOrder(current, modification) }
            }
            let mapped = OrderView.gateway(changed, connection: connection)
            guard let journaled else { return mapped }
            let detail =
                mapped.brokerOrderId != current.brokerOrderId
                ? "replaced broker order \(current.brokerOrderId ?? "?") with \(mapped.brokerOrderId ?? "?")" : "changed"
            let updated = try await record(journaled, order: mapped, kind: .modified, detail: detail)
            return OrderView.journaled(updated, broker: connection.broker)
        } catch let error as GatewayError {
            if let journaled {
                // The broker's refusal is the answer; a journal that cannot take the event is logged, not hidden,
                // and does not replace it (the order itself did not change).
                do {
                    try await journal.updateJournaledOrder(
                        journaled,
                        event: OrderEvent(
                            kind: .modifyFailed,
                            state: journaled.state,
                            status: current.status,
                            brokerOrderId: journaled.brokerOrderId,
                            detail: "\(error.code.rawValue): \(error.message)",
                            at: Date()
                        )
                    )
                } catch let journalError {
                    logger.error(
                        "a failed change could not be journaled",
                        metadata: ["order": .string(journaled.id), "error": .string("\(journalError)")]
                    )
                }
            }
            throw error
        }
    }

    /// Cancels a working order at its broker. An order that ended meanwhile is a 409 saying its final state.
    public func cancelOrder(owner: Owner, id: String) async throws -> Order {
        let (current, connection, adapter, journaled) = try await orderHandle(owner: owner, id: id).parts
        try directory.requireSupport(.cancelOrder, connection)
        try Self.requireBrokerStillReports(current, verb: "cancelled")
        guard current.status.isActive, current.status != .unknown else {
            throw GatewayError(
                .conflict,
                "the order is already \(current.status.rawValue) and cannot be cancelled",
                broker: connection.broker,
                retryable: false
            )
        }
        defer { directory.invalidateReads(connection: connection.id) }
        do {
            let canceled = try await BrokerOperationScope.$current.withValue(BrokerOperation.cancelOrder.rawValue) {
                try await withDeadline(orderSettings.brokerTimeout) { try await adapter.cancelOrder(current) }
            }
            let mapped = OrderView.gateway(canceled, connection: connection)
            guard let journaled else { return mapped }
            return OrderView.journaled(try await record(journaled, order: mapped, kind: .canceled), broker: connection.broker)
        } catch let error as GatewayError where error.code == .conflict {
            // It filled or ended meanwhile: say its final state. Reading it is best-effort (the broker's own conflict is
            // the answer when the read fails too; no store is involved in the read).
            if let final = try? await withDeadline(router.perSourceTimeout, { try await adapter.order(brokerOrderId: current.brokerOrderId ?? "") }) {
                if let journaled {
                    do {
                        _ = try await record(journaled, order: OrderView.gateway(final, connection: connection), kind: .cancelRefused)
                    } catch let journalError {
                        logger.error(
                            "a refused cancel could not be journaled",
                            metadata: ["order": .string(journaled.id), "error": .string("\(journalError)")]
                        )
                    }
                }
                throw GatewayError(
                    .conflict,
                    "the order is already \(final.status.rawValue) and cannot be cancelled",
                    broker: connection.broker,
                    retryable: false
                )
            }
            throw error
        }
    }

    /// An order the broker no longer reports (its view is the journal's) is not sent a change: the broker would not
    /// find it, and what it did with the order (filled or cancelled it outside the gateway) is not known here.
    static func requireBrokerStillReports(_ order: Order, verb: String) throws {
        guard order.source == .journal, order.status.isActive else { return }
        throw GatewayError(
            .conflict,
            "the broker no longer reports this order (last confirmed \(order.status.rawValue)); it cannot be \(verb) through the gateway",
            broker: order.broker,
            retryable: false
        )
    }
}
