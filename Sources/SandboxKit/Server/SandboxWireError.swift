public import Hummingbird
import Logging

/// How one simulated broker answers errors: its own failures, and the framework's (no route, a body too large)
/// dressed in its body shape. Each simulator's error type conforms, and every simulator renders errors through
/// `render`, so the order of precedence (broker error, admin error, framework error, anything else) is written once.
public protocol SandboxWireError: Error {
    /// The broker's answer for this error.
    func wireResponse() -> Response
    /// The broker's answer to a failure the framework raised with `status`.
    static func framework(status: HTTPResponse.Status, request: Request) -> Self
    /// The broker's answer to a failure nothing else explains (logged; never the caller's fault).
    static var unexpected: Self { get }
}

extension SandboxWireError {
    /// Answers any error a handler or middleware threw: this broker's own as itself, an ``AdminError`` in the admin shape,
    /// a framework error through ``framework(status:request:)``, anything else as ``unexpected`` (and logged).
    public static func render(_ error: any Error, request: Request, context: SandboxRequestContext) -> Response {
        switch error {
        case let error as Self:
            return error.wireResponse()
        case let error as AdminError:
            return (try? error.response(from: request, context: context)) ?? Response(status: error.status)
        case let error as any HTTPResponseError:
            return framework(status: error.status, request: request).wireResponse()
        default:
            context.logger.error("sandbox handler failed", metadata: ["error": "\(String(reflecting: error))"])
            return unexpected.wireResponse()
        }
    }
}
