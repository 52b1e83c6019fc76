import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewayStore
import OpenAPIRuntime

/// End users' sessions and devices (`/v1/auth/…`, `/v1/devices`), and what a tenant's backend does for them
/// (`/v1/users/{id}/login-codes`, `/v1/users/{id}/password`).
extension APIHandlers {
    static func tokens(_ issued: IssuedSession) -> Components.Schemas.SessionTokens {
        .init(
            accessToken: issued.accessToken,
            refreshToken: issued.refreshToken,
            tokenType: .bearer,
            expiresIn: issued.expiresIn,
            session: issued.session,
            device: issued.device
        )
    }

    func login(_ input: Operations.Login.Input) async throws -> Operations.Login.Output {
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        let device = NewDevice(
            name: body.device.name,
            type: body.device._type,
            model: body.device.model,
            os: body.device.os,
            appVersion: body.device.appVersion,
            fingerprint: body.device.fingerprint
        )
        let issued = try await sessions.login(
            LoginRequest(
                tenantId: body.tenantId,
                email: body.email,
                password: body.password,
                code: body.code,
                device: device,
                clientAddress: RequestIdentity.clientAddress
            )
        )
        return .ok(.init(body: .json(.init(data: Self.tokens(issued)))))
    }

    func refreshSession(_ input: Operations.RefreshSession.Input) async throws -> Operations.RefreshSession.Output {
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        return .ok(.init(body: .json(.init(data: Self.tokens(try await sessions.refresh(token: body.refreshToken))))))
    }

    func logout(_ input: Operations.Logout.Input) async throws -> Operations.Logout.Output {
        _ = try await sessions.logout(try RequestIdentity.requirePrincipal(), .session)
        return .noContent(.init())
    }

    func logoutDevice(_ input: Operations.LogoutDevice.Input) async throws -> Operations.LogoutDevice.Output {
        var deviceId: String?
        if case .json(let body) = input.body { deviceId = body.deviceId }
        let count = try await sessions.logout(try RequestIdentity.requirePrincipal(), .device(deviceId))
        return .ok(.init(body: .json(.init(data: .init(revoked: count)))))
    }

    func logoutAllDevices(_ input: Operations.LogoutAllDevices.Input) async throws -> Operations.LogoutAllDevices.Output {
        let count = try await sessions.logout(try RequestIdentity.requirePrincipal(), .allDevices)
        return .ok(.init(body: .json(.init(data: .init(revoked: count)))))
    }

    func getSession(_ input: Operations.GetSession.Input) async throws -> Operations.GetSession.Output {
        let overview = try await sessions.sessionOverview(try RequestIdentity.requirePrincipal())
        return .ok(.init(body: .json(.init(data: .init(current: overview.current, sessions: overview.live)))))
    }

    func extendSession(_ input: Operations.ExtendSession.Input) async throws -> Operations.ExtendSession.Output {
        var seconds: Int?
        if case .json(let body) = input.body { seconds = body.seconds }
        let session = try await sessions.extendSession(try RequestIdentity.requirePrincipal(), seconds: seconds)
        return .ok(.init(body: .json(.init(data: session))))
    }

    func listDevices(_ input: Operations.ListDevices.Input) async throws -> Operations.ListDevices.Output {
        .ok(.init(body: .json(.init(data: try await sessions.devices(owner: try RequestIdentity.requireOwner())))))
    }

    func getDevice(_ input: Operations.GetDevice.Input) async throws -> Operations.GetDevice.Output {
        .ok(.init(body: .json(.init(data: try await sessions.device(owner: try RequestIdentity.requireOwner(), id: input.path.id)))))
    }

    func updateDevice(_ input: Operations.UpdateDevice.Input) async throws -> Operations.UpdateDevice.Output {
        let owner = try RequestIdentity.requireOwner()
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        let device = try await sessions.updateDevice(owner: owner, id: input.path.id, name: body.name, trusted: body.trusted)
        return .ok(.init(body: .json(.init(data: device))))
    }

    func deleteDevice(_ input: Operations.DeleteDevice.Input) async throws -> Operations.DeleteDevice.Output {
        try await sessions.deleteDevice(owner: try RequestIdentity.requireOwner(), id: input.path.id)
        return .noContent(.init())
    }

    func listDeviceSessions(_ input: Operations.ListDeviceSessions.Input) async throws -> Operations.ListDeviceSessions.Output {
        let sessions = try await sessions.deviceSessions(owner: try RequestIdentity.requireOwner(), id: input.path.id)
        return .ok(.init(body: .json(.init(data: sessions))))
    }

    func revokeDeviceSessions(_ input: Operations.RevokeDeviceSessions.Input) async throws -> Operations.RevokeDeviceSessions.Output {
        let count = try await sessions.revokeDeviceSessions(owner: try RequestIdentity.requireOwner(), id: input.path.id)
        return .ok(.init(body: .json(.init(data: .init(revoked: count)))))
    }

    func registerPushToken(_ input: Operations.RegisterPushToken.Input) async throws -> Operations.RegisterPushToken.Output {
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        let device = try await sessions.registerPushToken(
            try RequestIdentity.requirePrincipal(),
            deviceHeader: input.headers.xDeviceID,
            token: body.token,
            platform: body.platform
        )
        return .ok(.init(body: .json(.init(data: device))))
    }

    func removePushToken(_ input: Operations.RemovePushToken.Input) async throws -> Operations.RemovePushToken.Output {
        try await sessions.removePushToken(try RequestIdentity.requirePrincipal(), deviceHeader: input.headers.xDeviceID)
        return .noContent(.init())
    }

    func createLoginCode(_ input: Operations.CreateLoginCode.Input) async throws -> Operations.CreateLoginCode.Output {
        let minted = try await sessions.mintLoginCode(principal: try RequestIdentity.requirePrincipal(), userId: input.path.id)
        return .created(.init(body: .json(.init(data: .init(code: minted.code, expiresAt: minted.expiresAt)))))
    }

    func setUserPassword(_ input: Operations.SetUserPassword.Input) async throws -> Operations.SetUserPassword.Output {
        let principal = try RequestIdentity.requirePrincipal()
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        try await sessions.setPassword(principal: principal, userId: input.path.id, password: body.password)
        return .noContent(.init())
    }
}
