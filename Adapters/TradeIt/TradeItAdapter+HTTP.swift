import Foundation
import GatewayCore
import GatewayModel
import HTTPTypes
import Logging

extension TradeItAdapter {
    /// TradeIt's side of `BrokerHTTPClient`: its timeouts, its table for HTTP failures and its wording of
    /// `malformed_response`. (Business errors come as HTTP 200 with `"status":"ERROR"`: see ``exchange(_:_:write:)``.)
    var http: BrokerHTTPClient {
        BrokerHTTPClient(
            broker: .tradeit,
            transport: context.transport,
            logger: context.logger,
            readTimeout: configuration.readTimeout,
            writeTimeout: configuration.writeTimeout,
            errorTable: { response, call in TradeItErrors.error(for: response, path: call.loggedPath) },
            malformed: { error, what in TradeItErrors.malformed("\(TradeItErrors.describe(error)) in \(what)") }
        )
    }

    /// One `POST /api/v2/<path>` with a JSON body: the envelope and the raw body. HTTP statuses other than 200 and
    /// bodies that are not JSON fail here; `"status":"ERROR"` is left to the caller (it decides about 600 and 700).
    func exchange(_ path: String, _ body: some Encodable, write: Bool = false) async throws -> (TradeItEnvelope, Data) {
        let call = BrokerCall(
            .post,
            url: configuration.url(path),
            loggedPath: path,
            body: try BrokerHTTPClient.json(body),
            isWrite: write
        )
        let response = try await http.exchange(call)
        guard response.status == 200 else { throw http.errorTable(response, call) }
        guard let envelope = try? JSONDecoder().decode(TradeItEnvelope.self, from: response.body), envelope.status != nil
        else { throw TradeItErrors.malformed("the body of \(path) is not TradeIt's JSON envelope") }
        return (envelope, response.body)
    }

    func decode<T: Decodable>(_ type: T.Type, _ data: Data, what: String) throws -> T {
        try http.decode(type, from: data, what: what)
    }

    /// A call that needs no session (`apiKey` calls): any ERROR is the table's verdict.
    func call<T: Decodable>(_ type: T.Type, _ path: String, _ body: some Encodable) async throws -> T {
        let (envelope, data) = try await exchange(path, body)
        guard envelope.status != "ERROR" else { throw tableError(envelope) }
        return try decode(type, data, what: path)
    }

    func tableError(_ envelope: TradeItEnvelope) -> GatewayError {
        TradeItErrors.error(code: envelope.code, shortMessage: envelope.shortMessage, longMessages: envelope.longMessages)
    }

    /// A call inside the session: opens it if needed, and on code 600 reopens it once and sends the call again, so
    /// the caller never sees an expired session.
    func sessionCall<T: Decodable>(
        _ type: T.Type,
        _ path: String,
        write: Bool = false,
        expecting status: String = "SUCCESS",
        _ body: @Sendable (TradeItOpenSession) -> some Encodable
    ) async throws -> T {
        var session = try await openSession()
        for attempt in 0..<2 {
            let (envelope, data) = try await exchange(path, body(session), write: write)
            if envelope.status == "ERROR" {
                if envelope.code == 600, attempt == 0 {
                    context.logger.debug("tradeit session expired; reopening", metadata: ["path": "\(path)"])
                    session = try await openSession(stale: session.token)
                    continue
                }
                if envelope.code == 700 { try await markRelinkRequired(envelope) }
                throw tableError(envelope)
            }
            return try decode(type, data, what: path)
        }
        throw GatewayError(.unauthorized, "TradeIt: the session expired again right after it was reopened", broker: .tradeit)
    }
}
