public import Hummingbird

extension RequestIdentity {
    /// The client's network address for the duration of one request (the connection's peer, without its port), for
    /// what is limited per client: logins. `nil` when the request came on no socket (in-process tests).
    @TaskLocal public static var clientAddress: String?
}

/// Makes the connection's peer address (``APIContext/remoteAddress``) the request's ``RequestIdentity/clientAddress``,
/// since the handlers generated from the OpenAPI document see no request context.
///
/// The address is the TCP peer's: behind a reverse proxy every client shares the proxy's address, so deploy the
/// login limits' per-address rates with that in mind (forwarded headers are not trusted: any client can write them).
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = APIContext

    func handle(_ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response) async throws -> Response {
        try await RequestIdentity.$clientAddress.withValue(context.remoteAddress?.ipAddress) {
            try await next(request, context)
        }
    }
}
