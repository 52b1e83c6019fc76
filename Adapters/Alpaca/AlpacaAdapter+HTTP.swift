import Foundation
import GatewayCore
import GatewayModel

extension AlpacaAdapter {
    /// Alpaca's side of `BrokerHTTPClient`: its timeouts, its error table and its wording of `malformed_response`.
    var http: BrokerHTTPClient {
        let configuration = configuration
        return BrokerHTTPClient(
            broker: .alpaca,
            transport: context.transport,
            logger: context.logger,
            readTimeout: configuration.readTimeout,
            writeTimeout: configuration.writeTimeout,
            errorTable: { response, _ in AlpacaErrors.error(for: response, now: configuration.now()) },
            malformed: { error, what in AlpacaErrors.malformed("\(AlpacaErrors.describe(error)) for \(what)") }
        )
    }

    /// One call: the endpoint under its host, with the keys (or OAuth token) that authenticate every Alpaca call, and
    /// the endpoint's answer cap unless the caller gives one (the position and asset lists, sized by configuration).
    func call(_ endpoint: Endpoint, body: Data? = nil, timeout: Duration? = nil, maxResponseBytes: Int? = nil) -> BrokerCall {
        BrokerCall(
            endpoint.method,
            url: endpoint.url(configuration),
            loggedPath: endpoint.path,
            headers: configuration.authHeaders,
            body: body,
            timeout: timeout,
            maxResponseBytes: maxResponseBytes ?? endpoint.maxResponseBytes
        )
    }

    /// The response whatever its status.
    func exchange(_ endpoint: Endpoint, body: Data? = nil) async throws -> BrokerResponse {
        try await http.exchange(call(endpoint, body: body))
    }

    /// The response, or the error table's verdict unless the status is 2xx.
    func send(_ endpoint: Endpoint) async throws -> BrokerResponse {
        try await http.send(call(endpoint))
    }

    /// The decoded 2xx body.
    func fetch<T: Decodable>(
        _ type: T.Type,
        _ endpoint: Endpoint,
        body: Data? = nil,
        timeout: Duration? = nil,
        maxResponseBytes: Int? = nil
    ) async throws -> T {
        try await http.fetch(type, call(endpoint, body: body, timeout: timeout, maxResponseBytes: maxResponseBytes))
    }

    func decode<T: Decodable>(_ type: T.Type, from response: BrokerResponse, what: String) throws -> T {
        try http.decode(type, from: response.body, what: what)
    }

    func encode(_ value: some Encodable) throws -> Data {
        try BrokerHTTPClient.json(value)
    }
}
