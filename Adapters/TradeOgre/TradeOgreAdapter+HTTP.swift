import Foundation
import GatewayCore
import GatewayModel
import HTTPTypes

extension TradeOgreAdapter {
    /// TradeOgre's side of `BrokerHTTPClient`: its timeouts, its error table and its wording of `malformed_response`.
    var http: BrokerHTTPClient {
        BrokerHTTPClient(
            broker: .tradeogre,
            transport: context.transport,
            logger: context.logger,
            readTimeout: configuration.readTimeout,
            writeTimeout: configuration.writeTimeout,
            errorTable: { response, _ in TradeOgreErrors.error(for: response) },
            malformed: { error, what in TradeOgreErrors.malformed("\(TradeOgreErrors.describe(error)) for \(what)") }
        )
    }

    /// One call. Private calls carry HTTP Basic; form fields travel as `application/x-www-form-urlencoded`. Only
    /// `/order/…` calls change anything (the account calls are POSTs that read).
    func call(_ endpoint: Endpoint, form: [(String, String)]? = nil) throws -> BrokerCall {
        var headers: HTTPFields = [:]
        if endpoint.access == .private {
            guard let authorization = configuration.authorization else { throw Self.noKeys() }
            headers[.authorization] = authorization
        }
        return BrokerCall(
            endpoint.method,
            url: configuration.baseURL + endpoint.path,
            loggedPath: Self.loggedPath(endpoint),
            headers: headers,
            body: form.map(BrokerURL.form),
            contentType: BrokerCall.form,
            isWrite: endpoint.isWrite
        )
    }

    /// Sends one call and decodes its answer: a non-2xx status or a body saying `"success": false` fails with the
    /// error table's verdict; a body that does not decode is `malformed_response`.
    func fetch<T: Decodable>(_ type: T.Type, _ endpoint: Endpoint, form: [(String, String)]? = nil) async throws -> T {
        let response = try await http.send(try call(endpoint, form: form))
        if let envelope = try? JSONDecoder().decode(TradeOgreEnvelope.self, from: response.body),
            let succeeded = envelope.succeeded, !succeeded
        {
            throw TradeOgreErrors.error(message: envelope.error ?? "")
        }
        return try http.decode(type, from: response.body, what: "\(endpoint.method.rawValue) \(Self.loggedPath(endpoint))")
    }

    /// The path without order uuids (they identify an account's orders).
    static func loggedPath(_ endpoint: Endpoint) -> String {
        endpoint.path.hasPrefix("/account/order/") ? "/account/order/{uuid}" : endpoint.path
    }

    static func noKeys() -> GatewayError {
        GatewayError(
            .unauthorized,
            "this connection has no API keys: TradeOgre serves balances, positions and orders only with apiKey and apiSecret; market data works without them",
            broker: .tradeogre,
            retryable: false
        )
    }
}
