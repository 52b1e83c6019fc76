import Foundation
public import GatewayCore
import GatewayModel
public import GatewayStore

/// Who a request is: an API key, read from the store, or from the cache (``HotReads``) while the store's change
/// stamp is unchanged, so a revoked key, a disabled tenant or a deleted user takes effect on the next request,
/// whichever process made the change.
extension TenancyService {
    /// Admits one API request of a tenant (and of the key it came with) under their rate limits, or fails with 429
    /// `rate_limited` and the seconds until the next request would be admitted.
    public func admitRequest(tenant: Tenant, keyId: String?) throws {
        guard let wait = requestLimiter.admit(tenantId: tenant.id, keyId: keyId) else { return }
        throw GatewayError(
            .rateLimited,
            "too many requests for this tenant or API key; slow down and retry after the time given",
            retryable: true,
            retryAfter: max(wait, 0.001)
        )
    }

    /// The most characters of a user id the gateway reads from a request (`usr_` and 20 base32 characters).
    static let userIdMaxLength = 64

    /// The principal of a request made with a tenant API key, for one operation: the key is live, its tenant is not
    /// disabled, it has the scope the operation declares, and the user it acts for is one of the tenant's.
    ///
    /// - Parameters:
    ///   - requiredScope: the scope the OpenAPI document declares for the operation.
    ///   - actingFor: the `X-User-ID` header, if the request sent one.
    ///   - userScoped: whether the operation reaches one user's data (it declares `X-User-ID`).
    /// - Throws: 401 `unauthorized` for an unknown or revoked key; 403 `forbidden` for a disabled tenant, a missing
    ///   scope, or a bound key naming another user; 400 for a malformed user id; 404 for a user the tenant does not
    ///   have.
    public func principal(
        apiKey: String,
        requiredScope: Scope,
        actingFor header: String?,
        userScoped: Bool
    ) async throws -> Principal {
        let store = self.store
        guard
            let found = try await hotReads.read(
                hotReads.keys,
                HotReads.digest(ofKey: apiKey),
                load: {
                    try await store.authenticateAPIKey(apiKey)
                }
            )
        else {
            throw GatewayError(.unauthorized, "the API key is not valid (unknown or revoked)", retryable: false)
        }
        guard found.tenant.disabledAt == nil else {
            throw GatewayError(.forbidden, "the tenant is disabled", retryable: false)
        }
        let scopes = Scope.parse(found.key.scopes)
        guard scopes.contains(requiredScope) else {
            throw GatewayError(
                .forbidden,
                "this API key lacks the '\(requiredScope.rawValue)' scope this operation needs",
                retryable: false,
                details: [
                    FieldProblem(
                        field: "scope",
                        problem: "'\(requiredScope.rawValue)' is required; the key has \(Scope.text(scopes).isEmpty ? "none" : Scope.text(scopes))"
                    )
                ]
            )
        }
        var userId = found.key.userId
        if let header, userScoped {
            if let bound = found.key.userId {
                guard header == bound else {
                    throw GatewayError(
                        .forbidden,
                        "this API key is bound to one user and acts for no other",
                        retryable: false,
                        details: [FieldProblem(field: "X-User-ID", problem: "names another user than the key's")]
                    )
                }
            } else {
                userId = try await requireUser(tenant: found.tenant, header)
            }
        }
        return Principal(tenant: found.tenant, userId: userId, scopes: scopes, credential: .apiKey(id: found.key.id))
    }

    /// The id of one of the tenant's users, as a request named it.
    func requireUser(tenant: Tenant, _ id: String) async throws -> String {
        guard id.hasPrefix("usr_"), id.count <= Self.userIdMaxLength, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
        else {
            throw GatewayError(
                .invalidRequest,
                "X-User-ID must be a user id (usr_…)",
                retryable: false,
                details: [FieldProblem(field: "X-User-ID", problem: "must be a user id (usr_…)")]
            )
        }
        let store = self.store
        let exists = try await hotReads.read(hotReads.users, HotReads.UserKey(tenantId: tenant.id, userId: id)) {
            try await store.user(tenantId: tenant.id, id: id) != nil ? true : nil
        }
        guard exists == true else {
            throw GatewayError(.notFound, "no user '\(id)'", retryable: false)
        }
        return id
    }
}
