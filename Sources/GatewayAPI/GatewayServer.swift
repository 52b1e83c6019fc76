public import Foundation
public import GatewayApp
public import Hummingbird
import HummingbirdCore
public import Logging
public import NIOCore
import OpenAPIHummingbird
import OpenAPIRuntime
import Prometheus

/// Builds the unified API's HTTP application: Hummingbird carries the requests, the server generated from the
/// OpenAPI document routes and decodes them, `APIHandlers` answers them through the application.
public enum GatewayServer {
    /// The OpenAPI document kept in the repository (Sources/GatewayAPI/openapi.json).
    public static func openAPIDocument() throws -> Data {
        try OpenAPIDocument.bundled().data
    }

    /// - Parameter publicURL: how browsers reach this gateway; the links it hands out (OAuth callbacks) start with it.
    public static func router(
        gateway: Gateway,
        bodies: HTTPBodies = HTTPBodies(),
        publicURL: String = "http://127.0.0.1:8080"
    ) throws -> Router<APIContext> {
        let document = try OpenAPIDocument.bundled()
        let router = Router(context: APIContext.self)
        router.add(middleware: ObservabilityMiddleware(factory: gateway.metricsFactory))
        router.add(middleware: ClientAddressMiddleware())
        // A server span per request when a tracer is bootstrapped (`--otel-traces-endpoint`); a no-op otherwise.
        // Query values that name accounts or carry OAuth secrets are redacted from it.
        router.add(
            middleware: TracingMiddleware(redactingQueryParameters: ["account", "connection", "oAuthVerifier", "state", "symbols", "symbol", "q"])
        )
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: ErrorMiddleware(document: document))
        router.add(middleware: BodyLimitMiddleware(bodies: bodies))
        let handlers = APIHandlers(
            connections: gateway.connections,
            transfer: gateway.transfer,
            reads: gateway.reads,
            watchlists: gateway.watchlists,
            orders: gateway.orders,
            orderHistory: gateway.orderHistory,
            portfolio: gateway.portfolio,
            tenancy: gateway.tenancy,
            sessions: gateway.sessions,
            alerts: gateway.alerts,
            streams: gateway.streams,
            status: gateway.status,
            document: document,
            publicURL: publicURL,
            metricsRegistry: (gateway.metricsFactory as? PrometheusMetricsFactory)?.registry
        )
        try handlers.registerHandlers(
            on: router,
            configuration: APIJSON.configuration,
            middlewares: [Authentication(tenancy: gateway.tenancy, sessions: gateway.sessions, document: document), DecimalLiterals()]
        )
        return router
    }

    /// The application: bind `host:port` (port 0 picks a free one; `onServerRunning` learns which). Connections are
    /// served by ``GatewayHTTPChannel`` under `limits` (timeouts, header size, the number open at once, each
    /// client's share of them, their age).
    ///
    /// The server always accepts: the cap is kept by the application's ``ConnectionRegistry``, which closes a
    /// connection past its client's share at once and, at the cap, closes the connection idle the longest to let a
    /// new one in. Stopping accepting at the cap (Hummingbird's `MaximumAvailableConnections`) would leave every
    /// new client in the kernel's backlog behind whoever holds the cap.
    public static func application(
        gateway: Gateway,
        host: String,
        port: Int,
        bodies: HTTPBodies = HTTPBodies(),
        publicURL: String? = nil,
        limits: ServerLimits = ServerLimits(),
        logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) throws -> Application<RouterResponder<APIContext>> {
        let connections = ConnectionRegistry(limits: limits, logger: logger)
        return Application(
            router: try router(gateway: gateway, bodies: bodies, publicURL: publicURL ?? "http://\(host):\(port)"),
            server: HTTPServerBuilder { responder in
                GatewayHTTPChannel(responder: responder, limits: limits, connections: connections)
            },
            configuration: .init(address: .hostname(host, port: port), serverName: "BrokerGateway"),
            onServerRunning: onServerRunning,
            logger: logger
        )
    }
}
