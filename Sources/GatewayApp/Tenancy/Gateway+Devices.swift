import Foundation
public import GatewayCore
import GatewayModel
public import GatewayStore

/// A user's devices and their sessions (seed 003): listed, renamed, trusted, removed (which ends their sessions).
extension Gateway {
    public func devices(owner: Owner) async throws -> [Device] {
        try await store.devices(tenantId: owner.tenant.id, userId: owner.userId)
    }

    public func device(owner: Owner, id: String) async throws -> Device {
        guard let device = try await store.device(tenantId: owner.tenant.id, userId: owner.userId, id: id) else {
            throw GatewayError(.notFound, "no device '\(id)'")
        }
        return device
    }

    /// Renames and/or trusts or untrusts a device.
    public func updateDevice(owner: Owner, id: String, name: String?, trusted: Bool?) async throws -> Device {
        if let name {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.count > 100 || trimmed.contains(where: \.isNewline) {
                throw GatewayError.unprocessable([FieldProblem(field: "name", problem: "must be 1 to 100 characters on one line")])
            }
        }
        guard let device = try await store.updateDevice(
            tenantId: owner.tenant.id, userId: owner.userId, id: id,
            name: name?.trimmingCharacters(in: .whitespaces), trusted: trusted)
        else {
            throw GatewayError(.notFound, "no device '\(id)'")
        }
        if let trusted {
            try await audit(owner, trusted ? "device.trusted" : "device.untrusted", target: id)
        }
        return device
    }

    /// Removes a device; its sessions end with it, so its tokens are refused from the next request on.
    public func deleteDevice(owner: Owner, id: String) async throws {
        guard try await store.deleteDevice(
            tenantId: owner.tenant.id, userId: owner.userId, id: id,
            audit: AuditRecord(tenantId: owner.tenant.id, actor: owner.actor, action: "device.removed", target: id, detail: ["userId": owner.userId]))
        else {
            throw GatewayError(.notFound, "no device '\(id)'")
        }
    }

    /// The device's live sessions.
    public func deviceSessions(owner: Owner, id: String) async throws -> [SessionRecord] {
        _ = try await device(owner: owner, id: id)
        return try await store.liveSessions(tenantId: owner.tenant.id, userId: owner.userId, deviceId: id, now: sessions.now())
    }

    /// Ends every session of the device (it stays registered). How many.
    public func revokeDeviceSessions(owner: Owner, id: String) async throws -> Int {
        _ = try await device(owner: owner, id: id)
        return try await store.revokeSessions(
            tenantId: owner.tenant.id, userId: owner.userId, sessionId: nil, deviceId: id, reason: "device_logout",
            audit: AuditRecord(
                tenantId: owner.tenant.id, actor: owner.actor, action: "session.revoked", target: id,
                detail: ["reason": "device_logout", "userId": owner.userId]))
    }
}
