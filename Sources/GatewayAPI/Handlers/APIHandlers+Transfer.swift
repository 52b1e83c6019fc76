import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewayStore
import OpenAPIRuntime

/// Connections exported, sealed, to another gateway and imported from one.
extension APIHandlers {
    func exportConnections(_ input: Operations.ExportConnections.Input) async throws -> Operations.ExportConnections.Output {
        let owner = try RequestIdentity.requireOwner()
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        let exported = try await transfer.exportConnections(owner: owner, recipientKey: body.recipientKey)
        return .ok(.init(body: .json(.init(data: exported))))
    }

    func importConnections(_ input: Operations.ImportConnections.Input) async throws -> Operations.ImportConnections.Output {
        let owner = try RequestIdentity.requireOwner()
        guard case .json(let body) = input.body else { throw APIError.unsupportedBody }
        let reports = try await transfer.importConnections(owner: owner, bundle: body.bundle, callbackBase: callbackBase)
        return .ok(.init(body: .json(.init(data: reports))))
    }

    func getImportKey(_ input: Operations.GetImportKey.Input) async throws -> Operations.GetImportKey.Output {
        _ = try RequestIdentity.requireTenant()
        return .ok(.init(body: .json(.init(data: transfer.importKey()))))
    }
}
