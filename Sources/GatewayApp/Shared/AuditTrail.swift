public import GatewayCore
public import GatewayStore

/// The tenant's audit log as the services write it: what a user's request did, with safe fields only. Services that
/// audit hold one and call it as `audit(owner, "action", target: …)`.
struct AuditTrail: Sendable {
    let store: any GatewayStore

    /// Records what a user's request did, in the tenant's audit log. The detail holds safe fields only.
    func callAsFunction(
        _ owner: Owner,
        _ action: String,
        target: String?,
        outcome: AuditRecord.Outcome = .ok,
        detail: [String: String] = [:]
    ) async throws {
        try await store.recordAudit(
            AuditRecord(
                tenantId: owner.tenant.id,
                actor: owner.actor,
                action: action,
                target: target,
                outcome: outcome,
                detail: detail.merging(["userId": owner.userId]) { current, _ in current }
            )
        )
    }
}
