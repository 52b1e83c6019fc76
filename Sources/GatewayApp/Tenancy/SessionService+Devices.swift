import Foundation
public import GatewayCore
import GatewayModel
public import GatewayStore

/// A user's devices and their sessions (seed 003): listed, renamed, trusted, removed (which ends their sessions).
extension SessionService {
    /// The user's devices.
    public func devices(owner: Owner) async throws -> [Device] {
        try await store.devices(tenantId: owner.tenant.id, userId: owner.userId)
    }

    /// One of the user's devices; another user's device is not found.
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
        guard
            let device = try await store.updateDevice(
                tenantId: owner.tenant.id,
                userId: owner.userId,
                id: id,
                name: name?.trimmingCharacters(in: .whitespaces),
                trusted: trusted
            )
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
        guard
            try await store.deleteDevice(
                tenantId: owner.tenant.id,
                userId: owner.userId,
                id: id,
                audit: AuditRecord(
                    tenantId: owner.tenant.id,
                    actor: owner.actor,
                    action: "device.removed",
                    target: id,
                    detail: ["userId": owner.userId]
                )
            )
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
            tenantId: owner.tenant.id,
            userId: owner.userId,
            sessionId: nil,
            deviceId: id,
            reason: "device_logout",
            audit: AuditRecord(
                tenantId: owner.tenant.id,
                actor: owner.actor,
                action: "session.revoked",
                target: id,
                detail: ["reason": "device_logout", "userId": owner.userId]
            )
        )
    }
}

/// The current device's push token (seed 003: `POST`/`DELETE /v1/devices/current/push-token`).
extension SessionService {
    /// The device a `/v1/devices/current/…` request is about, with the user it belongs to: a session's own device
    /// (`Authentication` has already refused an `X-Device-ID` naming another), or, for an API key acting for a user,
    /// the device `X-Device-ID` names, which must be that user's.
    /// - Throws: 400 naming `X-Device-ID` when an API key names no device; 404 naming it when the user has no such
    ///   device (another user's device answers as one that does not exist).
    func currentDevice(_ principal: Principal, deviceHeader: String?) async throws -> (owner: Owner, device: Device) {
        let owner = try principal.owner()
        let id: String
        switch principal.credential {
        case .session(_, let deviceId):
            id = deviceId
        case .apiKey:
            guard let deviceHeader, !deviceHeader.isEmpty else {
                // 422, not 400: the request is well-formed (the header is optional in the document, a session
                // needs none); with an API key it cannot say which device it is about.
                throw GatewayError(
                    .unprocessable,
                    "this operation is about the caller's current device: with an API key, name it in the X-Device-ID header (dev_…)",
                    retryable: false,
                    details: [FieldProblem(field: "X-Device-ID", problem: "is required with an API key")]
                )
            }
            id = deviceHeader
        }
        guard let device = try await store.device(tenantId: owner.tenant.id, userId: owner.userId, id: id) else {
            throw GatewayError(
                .notFound,
                "no device '\(id)' of this user",
                retryable: false,
                details: [FieldProblem(field: "X-Device-ID", problem: "names no device of the user")]
            )
        }
        return (owner, device)
    }

    /// The checked token and platform of a registration: the token as APNs device tokens are (hex, kept in lower case,
    /// so the same token is one token however the app spells it), the platform one the gateway pushes to.
    /// - Throws: 422 naming each bad field.
    static func pushRegistration(token: String, platform: String) throws -> (token: String, platform: PushPlatform) {
        var problems: [FieldProblem] = []
        let platformValue = PushPlatform(rawValue: platform)
        if platformValue == nil {
            let known = PushPlatform.allCases.map(\.rawValue).joined(separator: ", ")
            problems.append(FieldProblem(field: "platform", problem: "must be one of: \(known) (the push services the gateway delivers to)"))
        }
        if !AlertChannels.APNs.isDeviceToken(token) {
            problems.append(FieldProblem(field: "token", problem: "must be the APNs device token as hex (32 to 200 hex digits)"))
        }
        guard let platformValue, problems.isEmpty else { throw GatewayError.unprocessable(problems) }
        return (token.lowercased(), platformValue)
    }

    /// Registers the current device's push token, active. The same token again changes nothing; the token on another
    /// of the user's devices moves to this one. Answers the device, its token shown.
    public func registerPushToken(_ principal: Principal, deviceHeader: String?, token: String, platform: String) async throws -> Device {
        let checked = try Self.pushRegistration(token: token, platform: platform)
        let (owner, device) = try await currentDevice(principal, deviceHeader: deviceHeader)
        guard
            let updated = try await store.setPushToken(
                tenantId: owner.tenant.id,
                userId: owner.userId,
                deviceId: device.id,
                token: checked.token,
                platform: checked.platform,
                audit: AuditRecord(
                    tenantId: owner.tenant.id,
                    actor: owner.actor,
                    action: "device.push_token_registered",
                    target: device.id,
                    detail: ["userId": owner.userId, "platform": checked.platform.rawValue]
                )
            )
        else {
            throw GatewayError(.notFound, "no device '\(device.id)' of this user")
        }
        return updated
    }

    /// Removes the current device's push token.
    /// - Throws: 404 when the device has none.
    public func removePushToken(_ principal: Principal, deviceHeader: String?) async throws {
        let (owner, device) = try await currentDevice(principal, deviceHeader: deviceHeader)
        guard
            try await store.removePushToken(
                tenantId: owner.tenant.id,
                userId: owner.userId,
                deviceId: device.id,
                audit: AuditRecord(
                    tenantId: owner.tenant.id,
                    actor: owner.actor,
                    action: "device.push_token_removed",
                    target: device.id,
                    detail: ["userId": owner.userId]
                )
            )
        else {
            throw GatewayError(.notFound, "the device '\(device.id)' has no push token")
        }
    }
}
