import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Applies a ``FaultInjector``'s rules to every request except the `/_sandbox` admin endpoints.
///
/// It sits just inside the error-rendering middleware, so injected failures look like the broker's own
/// (bodies come from `errorBody`), and "after effect" faults see the handler's real response, errors included.
struct FaultInjectionMiddleware: RouterMiddleware {
    typealias Context = SandboxRequestContext

    let injector: FaultInjector
    /// The broker's own answer for an error status (used for `error` rules without a body and for 429 bursts),
    /// with whatever headers the broker sends with it.
    let errorResponse: @Sendable (Int) -> Response
    /// Renders a handler's thrown error as the broker would, so after-effect faults can work on it.
    let renderError: @Sendable (any Error, Request, Context) -> Response

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard !path.hasPrefix("/_sandbox") else { return try await next(request, context) }
        let decision = injector.decide(method: request.method.rawValue, path: path)
        if decision.latencyMilliseconds > 0 {
            try await Task.sleep(for: .milliseconds(decision.latencyMilliseconds))
        }
        guard let fault = decision.fault else { return try await next(request, context) }
        context.logger.debug("sandbox fault injected", metadata: ["fault": "\(fault.kind)", "path": "\(path)"])

        switch fault {
        case .latency:
            return try await next(request, context)

        case .error(let status, let body):
            guard let body else { return errorResponse(status) }
            // A custom body is sent as is; it is labelled JSON only if it parses as JSON.
            let isJSON = (try? JSON(parsing: body)) != nil
            var headers = HTTPFields()
            headers[.contentType] = isJSON ? "application/json; charset=UTF-8" : "text/plain; charset=UTF-8"
            return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))

        case .tooManyRequests(let retryAfter):
            var response = errorResponse(429)
            if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
            return response

        case .timeout(let afterEffect):
            if afterEffect { _ = await respond(request, context, next) }
            await Self.hold(request, limit: injector.timeoutHoldLimit)
            return try await drop(context)

        case .dropResponse:
            _ = await respond(request, context, next)
            return try await drop(context)

        case .malformedBody:
            var response = await respond(request, context, next)
            response.headers[.contentLength] = nil
            response.body = .init(byteBuffer: ByteBuffer(string: "<html><body>502 Bad Gateway</body>\u{0}{\"unterminated"))
            return response

        case .truncatedBody:
            var response = await respond(request, context, next)
            var buffer = try await response.body.collect(upTo: 16 * 1024 * 1024)
            let half = buffer.readableBytes / 2
            let truncated = buffer.readSlice(length: half) ?? ByteBuffer()
            response.headers[.contentLength] = nil
            response.body = .init(byteBuffer: truncated)
            return response
        }
    }

    /// Runs the handler and always produces a response, rendering errors the broker's way.
    private func respond(_ request: Request, _ context: Context, _ next: (Request, Context) async throws -> Response) async -> Response {
        do {
            return try await next(request, context)
        } catch {
            return renderError(error, request, context)
        }
    }

    /// Closes the connection without answering. Writing the returned response then fails, which Hummingbird
    /// treats as a gone client; the peer sees the connection close with no response.
    private func drop(_ context: Context) async throws -> Response {
        try? await context.channel.close(mode: .all)
        return Response(status: .gatewayTimeout)
    }

    /// Waits until the client closes its side of the connection, the server shuts down gracefully,
    /// the task is cancelled, or `limit` passes; never blocks a thread.
    static func hold(_ request: Request, limit: Duration) async {
        _ = try? await cancelWhenGracefulShutdown {
            try await request.body.consumeWithCancellationOnInboundClose { body in
                // Drain what is left of the request so the inbound stream can reach its end.
                for try await _ in body {}
                try await Task.sleep(for: limit)
            }
        }
    }
}

extension ResponseBody {
    /// The whole body as one buffer (bodies here are small JSON documents).
    fileprivate func collect(upTo maxSize: Int) async throws -> ByteBuffer {
        let collector = BodyCollector(limit: maxSize)
        try await self.write(collector)
        return collector.buffer
    }
}

/// A response-body writer that keeps what it is given.
private final class BodyCollector: ResponseBodyWriter {
    // Only ever used from one task at a time, inside `collect(upTo:)`.
    var buffer = ByteBuffer()
    let limit: Int

    init(limit: Int) { self.limit = limit }

    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        guard self.buffer.readableBytes + buffer.readableBytes <= limit else { throw HTTPError(.contentTooLarge) }
        self.buffer.writeBuffer(&buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
