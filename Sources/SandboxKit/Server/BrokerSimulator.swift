public import Hummingbird

/// What one simulated broker brings to the router every simulator serves: its answer to an injected error status
/// and its routes (its error format is the argument of ``sandboxRouter(errors:)``). The rest (error rendering, fault
/// injection, the `/_sandbox` admin endpoints, and their order) is the kit's, written once.
public protocol BrokerSimulator: SandboxSimulator {
    /// The market the simulator quotes and fills from; the admin endpoints pin its prices, limit its depth and move its clock.
    var market: MarketEngine { get }
    /// The simulator's fault rules: applied to every broker route, edited through `/_sandbox/faults`.
    var faults: FaultInjector { get }

    /// The broker's own answer for an injected error status (error rules without a body, 429 bursts), with
    /// whatever headers the broker sends with it.
    func faultResponse(status: Int) -> Response

    /// Adds the broker's own routes (and any middleware of theirs) to a router that already has the kit's.
    func registerRoutes(on router: Router<SandboxRequestContext>)
}

extension BrokerSimulator {
    /// The router serving the broker's routes and the `/_sandbox` admin endpoints, rendering every error (thrown,
    /// framework, admin) in the broker's format `errors`.
    ///
    /// Error rendering is outermost, so whatever goes wrong below it is answered in the broker's format; fault
    /// injection sits just inside it, so injected failures look like the broker's own and "after effect" faults
    /// see the handler's real response, errors included.
    public func sandboxRouter<WireError: SandboxWireError>(errors: WireError.Type) -> Router<SandboxRequestContext> {
        let router = Router(context: SandboxRequestContext.self)
        let render: @Sendable (any Error, Request, SandboxRequestContext) -> Response = { error, request, context in
            WireError.render(error, request: request, context: context)
        }
        router.add(middleware: ErrorRenderingMiddleware(render: render))
        router.add(
            middleware: FaultInjectionMiddleware(
                injector: faults,
                errorResponse: { status in self.faultResponse(status: status) },
                renderError: render
            )
        )
        SandboxAdmin(market: market, faults: faults).register(on: router)
        registerRoutes(on: router)
        return router
    }
}
