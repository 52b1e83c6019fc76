package import Hummingbird

/// The outermost middleware of every simulator: whatever goes wrong below it becomes a response in the broker's
/// own error format, so a client never sees Hummingbird's default empty 500 or plain-text 404.
package struct ErrorRenderingMiddleware: RouterMiddleware {
    package typealias Context = SandboxRequestContext

    package let render: @Sendable (any Error, Request, Context) -> Response

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return render(error, request, context)
        }
    }
}
