import Foundation
import GatewayApp
import GatewayCore
import OpenAPIRuntime

/// `GET /v1/status`: the calling tenant's brokers, connections and orders awaiting reconciliation.
extension APIHandlers {
    func ready(_ input: Operations.Ready.Input) async throws -> Operations.Ready.Output {
        let readiness = await status.readiness()
        let body = Components.Schemas.Readiness(
            status: readiness.ready ? .ready : .notReady,
            checks: readiness.checks.map { check in
                .init(name: .init(rawValue: check.name.rawValue) ?? .store, ok: check.ok, detail: check.detail)
            }
        )
        return readiness.ready ? .ok(.init(body: .json(body))) : .serviceUnavailable(.init(body: .json(body)))
    }

    func getStatus(_ input: Operations.GetStatus.Input) async throws -> Operations.GetStatus.Output {
        let tenant = try RequestIdentity.requireTenant()
        return .ok(.init(body: .json(try await status.status(tenant: tenant))))
    }
}
