import Foundation
import GatewayCore
import GatewayModel
import HTTPTypes
public import Hummingbird
import NIOCore

/// How much of a request body the API reads. Bodies are collected (up to the limit) before the generated server
/// decodes them, so an oversized body is a 413 and never reaches a decoder.
public struct HTTPBodies: Sendable {
    /// The largest request body the API reads.
    public var maxBodyBytes: Int

    /// The limit a deployment sets; 64 KiB by default, far above the largest valid body.
    public init(maxBodyBytes: Int = 64 * 1024) {
        self.maxBodyBytes = maxBodyBytes
    }
}

/// Collects the request body up to the limit, or answers 413; then refuses, naming the problem, a JSON body the
/// decoder would read leniently (``StrictJSON``: a byte-order mark or a member named twice, 400; a NUL character, 422).
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let bodies: HTTPBodies

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: bodies.maxBodyBytes)
        } catch {
            throw GatewayError(.payloadTooLarge, "the body is larger than \(bodies.maxBodyBytes) bytes")
        }
        if body.readableBytes > 0, Self.isJSON(request.headers[.contentType]),
            let refusal = StrictJSON.refusal(of: Array(body.readableBytesView))
        {
            throw refusal
        }
        return try await next(request, context)
    }

    /// JSON by its media type (`application/json`, `application/merge-patch+json`, …), or a body sent without one:
    /// the API reads only JSON.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return true }
        let media = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return media == "application/json" || media.hasSuffix("+json")
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
