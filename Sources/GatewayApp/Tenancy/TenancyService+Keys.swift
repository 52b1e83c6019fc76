import Foundation
public import GatewayCore
import GatewayModel
public import GatewayStore

/// A tenant's API keys and its audit log, as its admins (`/v1/keys`, `/v1/audit`) and the operator
/// (`gateway keys …`) manage them.
extension TenancyService {
    /// The most audit events one page lists.
    public static let auditPageLimit = 500
    static let keyLabelMaxLength = 100

    /// Issues a key for the request's principal (`POST /v1/keys`): never more than the creating key holds, its scopes
    /// and its user (``createKey(tenant:actor:creatorScopes:creatorUserId:label:scopes:userId:)``).
    public func createKey(principal: Principal, label: String, scopes: [String], userId: String?) async throws -> IssuedAPIKey {
        try await createKey(
            tenant: principal.tenant,
            actor: principal.actor,
            creatorScopes: principal.scopes,
            creatorUserId: try await boundUser(of: principal),
            label: label,
            scopes: scopes,
            userId: userId
        )
    }

    /// Issues a key with the scopes asked for, optionally bound to one of the tenant's users. A key never grants
    /// more than its creator holds: `creatorScopes` (the creating key's scopes; every scope for the operator), and
    /// `creatorUserId` (the user a bound creating key acts for: it mints keys bound to that user only, never an
    /// unbound key, which would act for every user). The plaintext is in the answer only.
    /// - Throws: 422 naming `label`, `scopes` or `userId` for what is not right; 403 `forbidden` naming `scopes` or
    ///   `userId` for what the creating key may not grant.
    public func createKey(
        tenant: Tenant,
        actor: String,
        creatorScopes: Set<Scope>,
        creatorUserId: String? = nil,
        label: String,
        scopes names: [String],
        userId: String?
    ) async throws -> IssuedAPIKey {
        var problems: [FieldProblem] = []
        let label = label.trimmingCharacters(in: .whitespaces)
        if !(1...Self.keyLabelMaxLength).contains(label.count) || label.contains(where: \.isNewline) {
            problems.append(FieldProblem(field: "label", problem: "must be 1 to \(Self.keyLabelMaxLength) characters on one line"))
        }
        let unknown = names.filter { Scope(rawValue: $0) == nil }
        let scopes = Scope.parse(names)
        if names.isEmpty {
            problems.append(FieldProblem(field: "scopes", problem: "must name at least one of: read, trade, admin"))
        } else if !unknown.isEmpty {
            problems.append(
                FieldProblem(
                    field: "scopes",
                    problem:
                        "has unknown scopes (\(unknown.prefix(5).map { BrokerText.sanitized($0, limit: 20) }.joined(separator: ", "))); known: read, trade, admin"
                )
            )
        }
        if let userId, try await store.user(tenantId: tenant.id, id: userId) == nil {
            problems.append(FieldProblem(field: "userId", problem: "names no user of this tenant"))
        }
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        if !scopes.isSubset(of: creatorScopes) {
            let missing = Scope.text(scopes.subtracting(creatorScopes))
            throw GatewayError(
                .forbidden,
                "the creating key lacks the '\(missing)' scope, so it cannot grant it",
                retryable: false,
                details: [FieldProblem(field: "scopes", problem: "cannot grant \(missing), which the creating key lacks")]
            )
        }
        if let creatorUserId, userId != creatorUserId {
            throw GatewayError(
                .forbidden,
                userId == nil
                    ? "a key bound to one user cannot create an unbound key (it would act for every user)"
                    : "a key bound to one user creates keys for that user only",
                retryable: false,
                details: [FieldProblem(field: "userId", problem: "must be \(creatorUserId), the creating key's user")]
            )
        }
        var detail = ["label": label, "scopes": Scope.text(scopes)]
        if let userId { detail["userId"] = userId }
        return try await store.issueAPIKey(
            tenantId: tenant.id,
            label: label,
            scopes: scopes.sorted().map(\.rawValue),
            userId: userId,
            audit: AuditRecord(tenantId: tenant.id, actor: actor, action: "key.created", detail: detail)
        )
    }

    /// The user an API key acting as `principal` is bound to (read from the store, not from a header the request
    /// may have sent); `nil` for an unbound key. A session is its own user's.
    func boundUser(of principal: Principal) async throws -> String? {
        switch principal.credential {
        case .session: return principal.userId
        case .apiKey(let id):
            guard let key = try await store.apiKey(tenantId: principal.tenant.id, id: id), key.revokedAt == nil else {
                throw GatewayError(.unauthorized, "the API key is not valid (unknown or revoked)", retryable: false)
            }
            return key.userId
        }
    }

    /// Refuses an act that hands a user's login (a password, a login code) to whoever holds it, when the acting
    /// credential does not hold everything that login's session would: a session reads and trades
    /// (``Scope/session``), so an `admin`-only key that set a password and logged in with it would trade, which it
    /// cannot. A bound key acts for its own user only.
    /// - Throws: 403 `forbidden` naming `scope` (the scopes missing) or `id` (another user than the key's).
    func requireAuthority(toLogIn userId: String, as principal: Principal, act: String) async throws {
        let missing = Scope.session.subtracting(principal.scopes)
        if !missing.isEmpty {
            throw GatewayError(
                .forbidden,
                "\(act) gives a session that reads and trades; this key lacks the '\(Scope.text(missing))' scope",
                retryable: false,
                details: [FieldProblem(field: "scope", problem: "'\(Scope.text(Scope.session))' are required; the key lacks \(Scope.text(missing))")]
            )
        }
        if let bound = try await boundUser(of: principal), bound != userId {
            throw GatewayError(
                .forbidden,
                "this API key is bound to one user and acts for no other",
                retryable: false,
                details: [FieldProblem(field: "id", problem: "names another user than the key's")]
            )
        }
    }

    /// The tenant's keys, oldest first, revoked ones included; never a secret.
    public func keys(tenant: Tenant) async throws -> [APIKeyInfo] {
        try await store.apiKeys(tenantId: tenant.id)
    }

    /// Revokes a key: refused from the next request on, whatever is cached.
    public func revokeKey(tenant: Tenant, actor: String, id: String) async throws -> APIKeyInfo {
        let revoked = try await store.revokeAPIKey(
            tenantId: tenant.id,
            keyId: id,
            audit: AuditRecord(tenantId: tenant.id, actor: actor, action: "key.revoked", target: id)
        )
        guard let key = try await store.apiKey(tenantId: tenant.id, id: id) else {
            throw GatewayError(.notFound, "no key '\(id)'")
        }
        if !revoked, key.revokedAt == nil { throw GatewayError(.notFound, "no key '\(id)'") }
        return key
    }

    /// Newest first, `limit` at a time, older than the event `before`.
    public func auditEvents(tenant: Tenant, before: String?, limit: Int) async throws -> [AuditEvent] {
        guard (1...Self.auditPageLimit).contains(limit) else {
            throw GatewayError.invalid("limit", "must be between 1 and \(Self.auditPageLimit)")
        }
        return try await store.auditEvents(tenantId: tenant.id, before: before, limit: limit)
    }

    /// Disables a tenant: its keys are refused from the next request on. The operator's command.
    public func disableTenant(id: String) async throws -> Tenant {
        guard
            let tenant = try await store.disableTenant(
                id: id,
                audit: AuditRecord(tenantId: id, actor: AuditRecord.operatorActor, action: "tenant.disabled", target: id)
            )
        else {
            throw GatewayError(.notFound, "no tenant '\(id)'")
        }
        return tenant
    }
}
