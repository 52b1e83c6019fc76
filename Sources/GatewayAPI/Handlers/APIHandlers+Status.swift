import Foundation
import GatewayApp
import GatewayCore
import OpenAPIRuntime

/// `GET /v1/status`: the calling tenant's brokers, connections and orders awaiting reconciliation.
extension APIHandlers {
    func getStatus(_ input: Operations.GetStatus.Input) async throws -> Operations.GetStatus.Output {
        let tenant = try RequestIdentity.requireTenant()
        return .ok(.init(body: .json(try await gateway.status(tenant: tenant))))
    }
}
