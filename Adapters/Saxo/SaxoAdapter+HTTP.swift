import Foundation
import GatewayCore
import GatewayModel
import HTTPTypes

extension SaxoAdapter {
    /// Saxo's side of `BrokerHTTPClient`: its timeouts, its error table, its wording of `malformed_response`,
    /// `X-Correlation` in the log of each call, and the access token (refreshed once after a 401) on API calls.
    static func http(
        configuration: SaxoConfiguration,
        context: AdapterContext,
        tokens: SaxoTokenManager?
    ) -> BrokerHTTPClient {
        BrokerHTTPClient(
            broker: .saxo,
            transport: context.transport,
            logger: context.logger,
            readTimeout: configuration.readTimeout,
            writeTimeout: configuration.writeTimeout,
            correlationHeader: "X-Correlation",
            authenticator: tokens.map(SaxoBearer.init),
            errorTable: { response, _ in SaxoErrors.error(for: response) },
            malformed: { error, what in SaxoErrors.malformed("\(SaxoErrors.describe(error)) for \(what)") }
        )
    }

    var http: BrokerHTTPClient { Self.http(configuration: configuration, context: context, tokens: tokens) }

    /// One API call. `X-Request-ID` tells Saxo that two identical orders are meant (it refuses a duplicate within
    /// 15 s without one).
    func call(_ endpoint: Endpoint, body: Data? = nil, requestId: String? = nil) -> BrokerCall {
        var headers: HTTPFields = [:]
        if let requestId { headers.set("X-Request-ID", requestId) }
        return BrokerCall(
            endpoint.method,
            url: endpoint.url(base: configuration.baseURL),
            loggedPath: endpoint.path,
            headers: headers,
            body: body
        )
    }

    /// The response whatever its status.
    func exchange(_ endpoint: Endpoint, body: Data? = nil, requestId: String? = nil) async throws -> BrokerResponse {
        try await http.exchange(call(endpoint, body: body, requestId: requestId))
    }

    /// The decoded 2xx body.
    func fetch<T: Decodable>(
        _ type: T.Type,
        _ endpoint: Endpoint,
        body: Data? = nil,
        requestId: String? = nil
    )
        async throws -> T
    {
        try await http.fetch(type, call(endpoint, body: body, requestId: requestId))
    }

    /// A whole list: the first page, then each `__next` page that stays under the base URL (at most
    /// `maximumPages`).
    func fetchList<T: Decodable & Sendable>(_ type: T.Type, _ endpoint: Endpoint) async throws -> [T] {
        var page = try await fetch(SaxoList<T>.self, endpoint)
        var items = page.data
        var pages = 1
        while let next = page.next, next.hasPrefix(configuration.baseURL + "/"), pages < configuration.maximumPages {
            let response = try await http.send(BrokerCall(.get, url: next, loggedPath: endpoint.path))
            page = try decode(SaxoList<T>.self, from: response, what: endpoint.path)
            items += page.data
            pages += 1
        }
        return items
    }

    func decode<T: Decodable>(_ type: T.Type, from response: BrokerResponse, what: String) throws -> T {
        try http.decode(type, from: response.body, what: what)
    }

    func encode(_ value: some Encodable) throws -> Data {
        try BrokerHTTPClient.json(value)
    }

    /// Runs `operation` over `items` with at most `limit` at once; results keep the items' order.
    func boundedMap<Item: Sendable, Value: Sendable>(
        _ items: [Item],
        limit: Int,
        _ operation: @escaping @Sendable (Item) async throws -> Value
    ) async throws -> [Value] {
        try await withThrowingTaskGroup(of: (Int, Value).self) { group in
            var results = [Value?](repeating: nil, count: items.count)
            var next = 0
            let width = min(max(limit, 1), items.count)
            while next < width {
                let index = next
                group.addTask { (index, try await operation(items[index])) }
                next += 1
            }
            while let (index, value) = try await group.next() {
                results[index] = value
                if next < items.count {
                    let index = next
                    group.addTask { (index, try await operation(items[index])) }
                    next += 1
                }
            }
            return results.map { $0! }
        }
    }
}

/// Saxo's bearer token on every API call; after a 401, the token another caller refreshed meanwhile, or a fresh one.
struct SaxoBearer: BrokerAuthenticator {
    let tokens: SaxoTokenManager

    func sign(_ call: inout BrokerCall) async throws {
        let token = try await tokens.validToken()
        call.headers[.authorization] = "Bearer \(token)"
    }

    func signAgain(_ call: inout BrokerCall, after response: BrokerResponse) async throws -> Bool {
        let rejected = call.headers[.authorization].map { String($0.dropFirst("Bearer ".count)) } ?? ""
        let fresh = try await tokens.token(afterRejecting: rejected)
        call.headers[.authorization] = "Bearer \(fresh)"
        return true
    }
}
