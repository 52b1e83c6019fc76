public import Foundation
public import GatewayCore
public import Hummingbird
public import Logging
public import NIOCore

/// Builds the unified API's HTTP application.
public enum GatewayServer {
    /// The OpenAPI document kept in the repository (Sources/GatewayAPI/Resources/openapi.json).
    public static func openAPIDocument() throws -> Data {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json") else {
            throw GatewayError(.internalError, "the OpenAPI document is missing from the build")
        }
        return try Data(contentsOf: url)
    }

    public static func router(gateway: Gateway, bodies: HTTPBodies = HTTPBodies()) throws -> Router<APIContext> {
        let router = Router(context: APIContext.self)
        let routes = APIRoutes(gateway: gateway, bodies: bodies, openAPIDocument: ByteBuffer(bytes: try openAPIDocument()))
        routes.register(on: router)
        return router
    }

    /// The application: bind `host:port` (port 0 picks a free one; `onServerRunning` learns which).
    public static func application(
        gateway: Gateway, host: String, port: Int, bodies: HTTPBodies = HTTPBodies(), logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) throws -> Application<RouterResponder<APIContext>> {
        Application(
            router: try router(gateway: gateway, bodies: bodies),
            configuration: .init(address: .hostname(host, port: port), serverName: "BrokerGateway"),
            onServerRunning: onServerRunning,
            logger: logger)
    }
}
