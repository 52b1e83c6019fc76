public import Hummingbird

/// The per-request context of the unified API's Hummingbird router. Who is calling travels as a task-local
/// (`RequestIdentity`), set by the OpenAPI authentication middleware, since the generated handlers see no context.
public struct APIContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
