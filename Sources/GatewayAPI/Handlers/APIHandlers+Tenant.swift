import Foundation
import GatewayApp
import GatewayCore
import GatewayStore
import OpenAPIRuntime

/// The calling tenant and its settings.
extension APIHandlers {
    func getTenant(_ input: Operations.GetTenant.Input) async throws -> Operations.GetTenant.Output {
        let tenant = try RequestIdentity.requireTenant()
        return .ok(.init(body: .json(.init(data: Self.tenant(tenant)))))
    }

    func putTenantSettings(_ input: Operations.PutTenantSettings.Input) async throws -> Operations.PutTenantSettings.Output {
        let tenant = try RequestIdentity.requireTenant()
        guard case .json(let settings) = input.body else {
            throw GatewayError(.invalidRequest, "the body must be JSON")
        }
        let milliseconds = try QueryValue.int(settings.readMaxAgeMs, "readMaxAgeMs", range: 0...Gateway.maxReadAgeMs)
        let updated = try await tenancy.setReadMaxAge(tenant: tenant, milliseconds: milliseconds)
        return .ok(.init(body: .json(.init(data: Self.tenant(updated)))))
    }

    static func tenant(_ tenant: Tenant) -> Components.Schemas.Tenant {
        .init(
            id: tenant.id,
            name: tenant.name,
            createdAt: tenant.createdAt,
            settings: .init(readMaxAgeMs: tenant.readMaxAgeMs)
        )
    }
}
