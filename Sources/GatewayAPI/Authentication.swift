import Foundation
public import GatewayApp
import GatewayCore
import GatewayModel
public import GatewayStore
import HTTPTypes
import OpenAPIRuntime

/// Who is calling, for the duration of one request: the principal `Authentication` made from the credential.
public enum RequestIdentity {
    /// The principal of the request under way; `nil` outside a request or before `Authentication` has run (a task-local,
    /// because the generated handlers are not handed a context).
    @TaskLocal public static var principal: Principal?

    /// The caller's tenant; every operation the document secures runs behind `Authentication`, which sets it.
    static func requireTenant() throws -> Tenant {
        try requirePrincipal().tenant
    }

    static func requirePrincipal() throws -> Principal {
        guard let principal else { throw APIError.unauthenticated }
        return principal
    }

    /// The user a user-scoped operation acts for; 400 naming `X-User-ID` when the request names none.
    static func requireOwner() throws -> Owner {
        try requirePrincipal().owner()
    }
}

/// Admits a request to a secured operation only with a tenant's API key as `Authorization: Bearer <key>` that has
/// the scope the operation declares, and settles which user it acts for (`X-User-ID`, or the key's own user).
/// Which operations are open, which scope each needs and which act for a user all come from the document, not from
/// lists kept here. The key, its tenant and its user are read through the gateway's cache, which the store's change
/// stamp empties whenever any process writes (a revocation is refused on the next request).
struct Authentication: ServerMiddleware {
    /// API keys and the rate limits that admit their requests.
    let tenancy: TenancyService
    /// Access tokens of end users' sessions.
    let sessions: SessionService
    let document: OpenAPIDocument

    static let userHeader = HTTPField.Name("X-User-ID")!
    static let deviceHeader = HTTPField.Name("X-Device-ID")!

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        if document.publicOperationIDs.contains(operationID) { return try await next(request, body, metadata) }
        guard let scope = document.requiredScopes[operationID] else {
            // The document refuses to load with an operation that declares neither; never reached.
            throw GatewayError(.forbidden, "this operation declares no scope", retryable: false)
        }
        guard let header = request.headerFields[.authorization] else { throw APIError.unauthenticated }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", parts[1].utf8.count <= 2048 else {
            throw APIError.unauthenticated
        }
        let presented = String(parts[1]).trimmingCharacters(in: .whitespaces)
        let userHeader = request.headerFields[Self.userHeader]
        let principal: Principal
        if presented.hasPrefix(APIKeyText.prefix) {
            principal = try await tenancy.principal(
                apiKey: presented,
                requiredScope: scope,
                actingFor: userHeader,
                userScoped: document.userScopedOperationIDs.contains(operationID)
            )
            guard document.apiKeyOperationIDs.contains(operationID) else {
                throw GatewayError(
                    .forbidden,
                    "this operation is an end user's session's own: call it with an access token",
                    retryable: false
                )
            }
        } else {
            guard presented.split(separator: ".", omittingEmptySubsequences: false).count == 3 else {
                throw APIError.unauthenticated
            }
            principal = try await sessions.principal(
                accessToken: presented,
                requiredScope: scope,
                actingFor: userHeader,
                deviceHeader: request.headerFields[Self.deviceHeader]
            )
            guard document.sessionOperationIDs.contains(operationID) else {
                throw GatewayError(
                    .forbidden,
                    "an end user's session cannot do this; it needs a tenant API key with the '\(scope.rawValue)' scope",
                    retryable: false,
                    details: [FieldProblem(field: "scope", problem: "'\(scope.rawValue)' with a tenant API key")]
                )
            }
        }
        // The tenant's and the key's request rates (429 with Retry-After beyond them), before any work is done.
        try tenancy.admitRequest(tenant: principal.tenant, keyId: principal.limitKey)
        return try await RequestIdentity.$principal.withValue(principal) { try await next(request, body, metadata) }
    }
}
