public import Hummingbird
public import GatewayStore

/// The per-request context of the unified API: the authenticated tenant, once the auth middleware has run.
public struct APIContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var tenant: Tenant?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        tenant = nil
    }

    /// The tenant; routes behind the auth middleware always have one.
    public func requireTenant() throws -> Tenant {
        guard let tenant else { throw APIError.unauthenticated }
        return tenant
    }
}
