import Hummingbird

/// The outermost middleware of every simulator: whatever goes wrong below it becomes a response in the broker's
/// own error format, so a client never sees Hummingbird's default empty 500 or plain-text 404.
struct ErrorRenderingMiddleware: RouterMiddleware {
    typealias Context = SandboxRequestContext

    /// The broker's rendering of an error (``SandboxWireError/render(_:request:context:)``).
    let render: @Sendable (any Error, Request, Context) -> Response

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return render(error, request, context)
        }
    }
}
