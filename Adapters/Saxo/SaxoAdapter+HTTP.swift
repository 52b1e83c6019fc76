import Foundation
import GatewayCore
import GatewayModel
import Logging

extension SaxoAdapter {
    /// Sends one call with the current access token and returns the response whatever its status. A 401 gets one
    /// token refresh and one retry (a 401 means Saxo did not act on the request, so a retry is safe even for an
    /// order). Transport failures come back as `GatewayError` tagged with the broker. Logs method, path, status,
    /// duration and Saxo's `X-Correlation`; never headers, query values or bodies.
    func exchange(
        _ endpoint: Endpoint, body: Data? = nil, requestId: String? = nil, timeout: Duration? = nil
    ) async throws -> BrokerResponse {
        try await exchange(
            method: endpoint.method, url: endpoint.url(base: configuration.baseURL), path: endpoint.path, body: body,
            requestId: requestId, timeout: timeout)
    }

    func exchange(
        method: String, url: String, path: String, body: Data? = nil, requestId: String? = nil, timeout: Duration? = nil
    ) async throws -> BrokerResponse {
        let token = try await tokens.validToken()
        let first = try await sendOnce(
            method: method, url: url, path: path, body: body, requestId: requestId, timeout: timeout, token: token)
        guard first.status == 401 else { return first }
        let fresh = try await tokens.token(afterRejecting: token)
        return try await sendOnce(
            method: method, url: url, path: path, body: body, requestId: requestId, timeout: timeout, token: fresh)
    }

    private func sendOnce(
        method: String, url: String, path: String, body: Data?, requestId: String?, timeout: Duration?, token: String
    ) async throws -> BrokerResponse {
        var headers: [(name: String, value: String)] = [("Authorization", "Bearer \(token)"), ("Accept", "application/json")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        if let requestId { headers.append(("X-Request-ID", requestId)) }
        let request = BrokerRequest(
            method: method, url: url, headers: headers, body: body,
            timeout: timeout ?? (method == "GET" ? configuration.readTimeout : configuration.writeTimeout))
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let response = try await context.transport.send(request)
            context.logger.debug(
                "saxo call",
                metadata: [
                    "method": "\(method)", "path": "\(path)", "status": "\(response.status)",
                    "ms": "\(Int((clock.now - start).milliseconds))",
                    "correlation": "\(response.header("X-Correlation") ?? "-")",
                ])
            return response
        } catch var error as GatewayError {
            error.broker = error.broker ?? .saxo
            context.logger.debug(
                "saxo call failed", metadata: ["method": "\(method)", "path": "\(path)", "code": "\(error.code)"])
            throw error
        }
    }

    /// Sends one call and fails with the error table's verdict unless the status is 2xx.
    func send(_ endpoint: Endpoint, body: Data? = nil, requestId: String? = nil) async throws -> BrokerResponse {
        let response = try await exchange(endpoint, body: body, requestId: requestId)
        guard (200..<300).contains(response.status) else { throw SaxoErrors.error(for: response) }
        return response
    }

    /// Sends one call and decodes its 2xx body.
    func fetch<T: Decodable>(_ type: T.Type, _ endpoint: Endpoint, body: Data? = nil, requestId: String? = nil)
        async throws -> T
    {
        let response = try await send(endpoint, body: body, requestId: requestId)
        return try decode(type, from: response, what: endpoint.path)
    }

    /// A whole list: the first page, then each `__next` page that stays under the base URL (at most
    /// `maximumPages`).
    func fetchList<T: Decodable & Sendable>(_ type: T.Type, _ endpoint: Endpoint) async throws -> [T] {
        var page = try await fetch(SaxoList<T>.self, endpoint)
        var items = page.data
        var pages = 1
        while let next = page.next, next.hasPrefix(configuration.baseURL + "/"), pages < configuration.maximumPages {
            let response = try await exchange(method: "GET", url: next, path: endpoint.path)
            guard (200..<300).contains(response.status) else { throw SaxoErrors.error(for: response) }
            page = try decode(SaxoList<T>.self, from: response, what: endpoint.path)
            items += page.data
            pages += 1
        }
        return items
    }

    func decode<T: Decodable>(_ type: T.Type, from response: BrokerResponse, what: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: response.body)
        } catch {
            throw SaxoErrors.malformed("\(SaxoErrors.describe(error)) for \(what)")
        }
    }

    func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// Runs `operation` over `items` with at most `limit` at once; results keep the items' order.
    func boundedMap<Item: Sendable, Value: Sendable>(
        _ items: [Item], limit: Int, _ operation: @escaping @Sendable (Item) async throws -> Value
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
