import Foundation
import GatewayCore
import GatewayModel
import Logging

extension TradeOgreAdapter {
    /// Sends one call and returns the response whatever its status. Private calls carry HTTP Basic; form fields
    /// travel as `application/x-www-form-urlencoded`. Logs method, path, status and duration; never headers or bodies.
    func exchange(_ endpoint: Endpoint, form: [(String, String)]? = nil) async throws -> BrokerResponse {
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        if endpoint.access == .private {
            guard let authorization = configuration.authorization else { throw Self.noKeys() }
            headers.append(("Authorization", authorization))
        }
        var body: Data?
        if let form {
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
            body = Endpoint.form(form)
        }
        let request = BrokerRequest(
            method: endpoint.method, url: configuration.baseURL + endpoint.path, headers: headers, body: body,
            timeout: endpoint.isWrite ? configuration.writeTimeout : configuration.readTimeout)
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let response = try await context.transport.send(request)
            context.logger.debug(
                "tradeogre call",
                metadata: [
                    "method": "\(endpoint.method)", "path": "\(Self.loggedPath(endpoint))", "status": "\(response.status)",
                    "ms": "\(Int((clock.now - start).milliseconds))",
                ])
            return response
        } catch var error as GatewayError {
            error.broker = error.broker ?? .tradeogre
            context.logger.debug(
                "tradeogre call failed",
                metadata: ["method": "\(endpoint.method)", "path": "\(Self.loggedPath(endpoint))", "code": "\(error.code)"])
            throw error
        }
    }

    /// Sends one call and decodes its answer: a non-2xx status or a body saying `"success": false` fails with the
    /// error table's verdict; a body that does not decode is `malformed_response`.
    func fetch<T: Decodable>(_ type: T.Type, _ endpoint: Endpoint, form: [(String, String)]? = nil) async throws -> T {
        let response = try await exchange(endpoint, form: form)
        guard (200..<300).contains(response.status) else { throw TradeOgreErrors.error(for: response) }
        if let envelope = try? JSONDecoder().decode(TradeOgreEnvelope.self, from: response.body),
            let succeeded = envelope.succeeded, !succeeded
        {
            throw TradeOgreErrors.error(message: envelope.error ?? "")
        }
        do {
            return try JSONDecoder().decode(type, from: response.body)
        } catch {
            throw TradeOgreErrors.malformed("\(TradeOgreErrors.describe(error)) for \(endpoint.method) \(Self.loggedPath(endpoint))")
        }
    }

    /// The path without order uuids (they identify an account's orders).
    static func loggedPath(_ endpoint: Endpoint) -> String {
        endpoint.path.hasPrefix("/account/order/") ? "/account/order/{uuid}" : endpoint.path
    }

    static func noKeys() -> GatewayError {
        GatewayError(
            .unauthorized,
            "this connection has no API keys: TradeOgre serves balances, positions and orders only with apiKey and apiSecret; market data works without them",
            broker: .tradeogre, retryable: false)
    }
}
