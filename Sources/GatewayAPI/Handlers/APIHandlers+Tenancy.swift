import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewayStore
import OpenAPIRuntime

/// A tenant's users, API keys and audit log (`/v1/users`, `/v1/keys`, `/v1/audit`): the admin scope's.
extension APIHandlers {
    func listUsers(_ input: Operations.ListUsers.Input) async throws -> Operations.ListUsers.Output {
        let tenant = try RequestIdentity.requireTenant()
        let q = input.query
        let users = try await tenancy.users(
            tenant: tenant,
            after: try QueryValue.string(q.after, "after", maxLength: 64),
            limit: try QueryValue.int(q.limit, "limit", range: 1...TenancyService.userPageLimit) ?? 50,
            externalId: try QueryValue.string(q.externalId, "externalId", maxLength: 128),
            email: try QueryValue.string(q.email, "email", maxLength: 254)
        )
        return .ok(.init(body: .json(.init(data: users))))
    }

    func createUser(_ input: Operations.CreateUser.Input) async throws -> Operations.CreateUser.Output {
        let principal = try RequestIdentity.requirePrincipal()
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        let user = try await tenancy.createUser(tenant: principal.tenant, actor: principal.actor, body)
        return .created(.init(body: .json(.init(data: user))))
    }

    func getUser(_ input: Operations.GetUser.Input) async throws -> Operations.GetUser.Output {
        let tenant = try RequestIdentity.requireTenant()
        return .ok(.init(body: .json(.init(data: try await tenancy.user(tenant: tenant, id: input.path.id)))))
    }

    func updateUser(_ input: Operations.UpdateUser.Input) async throws -> Operations.UpdateUser.Output {
        let tenant = try RequestIdentity.requireTenant()
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        return .ok(.init(body: .json(.init(data: try await tenancy.updateUser(tenant: tenant, id: input.path.id, body)))))
    }

    func deleteUser(_ input: Operations.DeleteUser.Input) async throws -> Operations.DeleteUser.Output {
        let principal = try RequestIdentity.requirePrincipal()
        try await tenancy.deleteUser(tenant: principal.tenant, actor: principal.actor, id: input.path.id)
        return .noContent(.init())
    }

    func listKeys(_ input: Operations.ListKeys.Input) async throws -> Operations.ListKeys.Output {
        let tenant = try RequestIdentity.requireTenant()
        return .ok(.init(body: .json(.init(data: try await tenancy.keys(tenant: tenant)))))
    }

    func createKey(_ input: Operations.CreateKey.Input) async throws -> Operations.CreateKey.Output {
        let principal = try RequestIdentity.requirePrincipal()
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        let issued = try await tenancy.createKey(
            principal: principal,
            label: body.label,
            scopes: body.scopes.map(\.rawValue),
            userId: body.userId
        )
        return .created(.init(body: .json(.init(data: .init(key: issued.info, secret: issued.plaintext)))))
    }

    func revokeKey(_ input: Operations.RevokeKey.Input) async throws -> Operations.RevokeKey.Output {
        let principal = try RequestIdentity.requirePrincipal()
        let key = try await tenancy.revokeKey(tenant: principal.tenant, actor: principal.actor, id: input.path.id)
        return .ok(.init(body: .json(.init(data: key))))
    }

    func listAuditEvents(_ input: Operations.ListAuditEvents.Input) async throws -> Operations.ListAuditEvents.Output {
        let tenant = try RequestIdentity.requireTenant()
        let q = input.query
        let events = try await tenancy.auditEvents(
            tenant: tenant,
            before: try QueryValue.string(q.before, "before", maxLength: 64),
            limit: try QueryValue.int(q.limit, "limit", range: 1...TenancyService.auditPageLimit) ?? 100
        )
        return .ok(.init(body: .json(.init(data: events))))
    }
}
