import Foundation
import GatewayApp
import GatewayCore
public import GatewayStore
import HTTPTypes
import OpenAPIRuntime

/// Who is calling: the tenant an API key belongs to, for the duration of one request.
public enum RequestIdentity {
    @TaskLocal public static var tenant: Tenant?

    /// The tenant; every operation the document secures runs behind `Authentication`, which sets it.
    static func requireTenant() throws -> Tenant {
        guard let tenant else { throw APIError.unauthenticated }
        return tenant
    }
}

/// Admits a request to a secured operation only with a tenant's API key as `Authorization: Bearer <key>`.
/// Which operations are open comes from the document (`security: []`), not from a list kept here.
struct Authentication: ServerMiddleware {
    let gateway: Gateway
    let publicOperationIDs: Set<String>

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        if publicOperationIDs.contains(operationID) { return try await next(request, body, metadata) }
        guard let header = request.headerFields[.authorization] else { throw APIError.unauthenticated }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", parts[1].utf8.count <= 256 else {
            throw APIError.unauthenticated
        }
        let presented = String(parts[1]).trimmingCharacters(in: .whitespaces)
        guard let tenant = try await gateway.tenant(forAPIKey: presented) else {
            throw GatewayError(.unauthorized, "the API key is not valid")
        }
        // The tenant's and the key's request rates (429 with Retry-After beyond them), before any work is done.
        try gateway.admitRequest(tenant: tenant, keyId: APIKeyText.keyId(of: presented))
        return try await RequestIdentity.$tenant.withValue(tenant) { try await next(request, body, metadata) }
    }
}
