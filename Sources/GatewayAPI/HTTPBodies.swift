public import Hummingbird
import GatewayCore
import HTTPTypes

/// How much of a request body the API reads. Bodies are collected (up to the limit) before the generated server
/// decodes them, so an oversized body is a 413 and never reaches a decoder.
public struct HTTPBodies: Sendable {
    /// The largest request body the API reads.
    public var maxBodyBytes: Int

    public init(maxBodyBytes: Int = 64 * 1024) {
        self.maxBodyBytes = maxBodyBytes
    }
}

/// Collects the request body up to the limit, or answers 413.
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let bodies: HTTPBodies

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        do {
            _ = try await request.collectBody(upTo: bodies.maxBodyBytes)
        } catch {
            throw GatewayError(.payloadTooLarge, "the body is larger than \(bodies.maxBodyBytes) bytes")
        }
        return try await next(request, context)
    }
}

/// Headers every answer carries: nothing the API serves is meant to run or be sniffed as something else (the OAuth
/// callback page included); the dashboard's and the docs page's files get a policy that lets their own script and
/// style run, and nothing else. Set here rather than through the generated types, whose header serialization would
/// percent-encode the policy's spaces and quotes.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[HTTPField.Name("Content-Security-Policy")!] = Self.contentSecurityPolicy(for: request.uri.path)
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        return response
    }

    /// Everything but the dashboard and the docs page runs and loads nothing.
    static var contentSecurityPolicy: String { "default-src 'none'; frame-ancestors 'none'" }

    /// The static pages' own policies; the API's everywhere else.
    static func contentSecurityPolicy(for path: String) -> String {
        StaticPage.all.first { $0.serves(path) }?.contentSecurityPolicy ?? contentSecurityPolicy
    }
}
