import Foundation
import GatewayCore
import GatewayModel
import Logging

extension AlpacaAdapter {
    /// Sends one call and returns the response whatever its status. Transport failures come back as `GatewayError`
    /// tagged with the broker. Logs method, path, status and duration; never headers or bodies.
    func exchange(
        _ endpoint: Endpoint, body: Data? = nil, timeout: Duration? = nil, maxResponseBytes: Int? = nil
    ) async throws -> BrokerResponse {
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        headers += configuration.authHeaders
        let request = BrokerRequest(
            method: endpoint.method, url: endpoint.url(configuration), headers: headers, body: body,
            timeout: timeout ?? (endpoint.method == "GET" ? configuration.readTimeout : configuration.writeTimeout),
            maxResponseBytes: maxResponseBytes ?? BrokerRequest.defaultMaxResponseBytes)
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let response = try await context.transport.send(request)
            context.logger.debug(
                "alpaca call",
                metadata: [
                    "method": "\(endpoint.method)", "path": "\(endpoint.path)", "status": "\(response.status)",
                    "ms": "\(Int((clock.now - start).milliseconds))",
                ])
            return response
        } catch var error as GatewayError {
            error.broker = error.broker ?? .alpaca
            context.logger.debug(
                "alpaca call failed",
                metadata: ["method": "\(endpoint.method)", "path": "\(endpoint.path)", "code": "\(error.code)"])
            throw error
        }
    }

    /// Sends one call and fails with the error table's verdict unless the status is 2xx.
    func send(
        _ endpoint: Endpoint, body: Data? = nil, timeout: Duration? = nil, maxResponseBytes: Int? = nil
    ) async throws -> BrokerResponse {
        let response = try await exchange(endpoint, body: body, timeout: timeout, maxResponseBytes: maxResponseBytes)
        guard (200..<300).contains(response.status) else {
            throw AlpacaErrors.error(for: response, now: configuration.now())
        }
        return response
    }

    /// Sends one call and decodes its 2xx body.
    func fetch<T: Decodable>(
        _ type: T.Type, _ endpoint: Endpoint, body: Data? = nil, timeout: Duration? = nil,
        maxResponseBytes: Int? = nil
    ) async throws -> T {
        let response = try await send(endpoint, body: body, timeout: timeout, maxResponseBytes: maxResponseBytes)
        return try decode(type, from: response, what: endpoint.path)
    }

    func decode<T: Decodable>(_ type: T.Type, from response: BrokerResponse, what: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: response.body)
        } catch {
            throw AlpacaErrors.malformed("\(AlpacaErrors.describe(error)) for \(what)")
        }
    }

    func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}
