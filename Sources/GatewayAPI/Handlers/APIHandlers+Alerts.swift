import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import OpenAPIRuntime

/// `/v1/alerts`: the user's price and order alerts, their delivery logs and test sends.
extension APIHandlers {
    func listAlerts(_ input: Operations.ListAlerts.Input) async throws -> Operations.ListAlerts.Output {
        let owner = try RequestIdentity.requireOwner()
        return .ok(.init(body: .json(.init(data: try await alerts.alerts(owner: owner)))))
    }

    func createAlert(_ input: Operations.CreateAlert.Input) async throws -> Operations.CreateAlert.Output {
        let owner = try RequestIdentity.requireOwner()
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        let created = try await alerts.createAlert(owner: owner, body)
        return .created(.init(body: .json(.init(data: created.alert, webhookSecret: created.webhookSecret))))
    }

    func getAlert(_ input: Operations.GetAlert.Input) async throws -> Operations.GetAlert.Output {
        let owner = try RequestIdentity.requireOwner()
        return .ok(.init(body: .json(.init(data: try await alerts.alert(owner: owner, id: input.path.id)))))
    }

    func updateAlert(_ input: Operations.UpdateAlert.Input) async throws -> Operations.UpdateAlert.Output {
        let owner = try RequestIdentity.requireOwner()
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        return .ok(.init(body: .json(.init(data: try await alerts.updateAlert(owner: owner, id: input.path.id, body)))))
    }

    func deleteAlert(_ input: Operations.DeleteAlert.Input) async throws -> Operations.DeleteAlert.Output {
        let owner = try RequestIdentity.requireOwner()
        try await alerts.deleteAlert(owner: owner, id: input.path.id)
        return .noContent(.init())
    }

    func listAlertDeliveries(_ input: Operations.ListAlertDeliveries.Input) async throws -> Operations.ListAlertDeliveries.Output {
        let owner = try RequestIdentity.requireOwner()
        let q = input.query
        let attempts = try await alerts.alertDeliveries(
            owner: owner,
            id: input.path.id,
            before: try QueryValue.string(q.before, "before", maxLength: 64),
            limit: try QueryValue.int(q.limit, "limit", range: 1...AlertService.alertDeliveriesPageLimit) ?? 50
        )
        return .ok(.init(body: .json(.init(data: attempts))))
    }

    func testAlert(_ input: Operations.TestAlert.Input) async throws -> Operations.TestAlert.Output {
        let owner = try RequestIdentity.requireOwner()
        let sent = try await alerts.testAlert(owner: owner, id: input.path.id)
        return .ok(
            .init(body: .json(.init(data: .init(notification: sent.notification, attempts: sent.attempts, streamed: sent.streamed))))
        )
    }
}
