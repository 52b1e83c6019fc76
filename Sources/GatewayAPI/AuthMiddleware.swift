import Foundation
import GatewayCore
import GatewayStore
import Hummingbird
import Logging

/// Admits a request that presents a tenant's API key as `Authorization: Bearer <key>`.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = APIContext
    let store: any GatewayStore

    func handle(_ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else { throw APIError.unauthenticated }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", parts[1].utf8.count <= 256 else {
            throw APIError.unauthenticated
        }
        guard let tenant = try await store.tenant(forAPIKey: String(parts[1]).trimmingCharacters(in: .whitespaces)) else {
            throw GatewayError(.unauthorized, "the API key is not valid")
        }
        var context = context
        context.tenant = tenant
        context.logger[metadataKey: "tenant"] = .string(tenant.id)
        return try await next(request, context)
    }
}
