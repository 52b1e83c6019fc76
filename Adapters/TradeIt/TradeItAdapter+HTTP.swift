import Foundation
import GatewayCore
import GatewayModel
import Logging

extension TradeItAdapter {
    /// One `POST /api/v2/<path>` with a JSON body: the envelope and the raw body. HTTP statuses other than 200 and
    /// bodies that are not JSON fail here; `"status":"ERROR"` is left to the caller (it decides about 600 and 700).
    /// Logs the path, status and duration; never bodies (they carry tokens).
    func exchange(_ path: String, _ body: some Encodable, write: Bool = false) async throws -> (TradeItEnvelope, Data) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let request = BrokerRequest(
            method: "POST", url: configuration.url(path),
            headers: [("Accept", "application/json"), ("Content-Type", "application/json")],
            body: try encoder.encode(body), timeout: write ? configuration.writeTimeout : configuration.readTimeout)
        let clock = ContinuousClock()
        let start = clock.now
        let response: BrokerResponse
        do {
            response = try await context.transport.send(request)
        } catch var error as GatewayError {
            error.broker = error.broker ?? .tradeit
            context.logger.debug("tradeit call failed", metadata: ["path": "\(path)", "code": "\(error.code)"])
            throw error
        }
        context.logger.debug(
            "tradeit call",
            metadata: ["path": "\(path)", "status": "\(response.status)", "ms": "\(Int((clock.now - start).milliseconds))"])
        let envelope = try? JSONDecoder().decode(TradeItEnvelope.self, from: response.body)
        guard response.status == 200 else {
            if let envelope, envelope.status == "ERROR", envelope.code != nil {
                throw TradeItErrors.error(code: envelope.code, shortMessage: envelope.shortMessage, longMessages: envelope.longMessages)
            }
            switch response.status {
            case 429: throw GatewayError(.rateLimited, "TradeIt: too many requests", broker: .tradeit)
            case 500...: throw GatewayError(.upstreamUnavailable, "TradeIt answered HTTP \(response.status)", broker: .tradeit)
            default: throw TradeItErrors.malformed("HTTP \(response.status) for \(path)")
            }
        }
        guard let envelope, envelope.status != nil else { throw TradeItErrors.malformed("the body of \(path) is not TradeIt's JSON envelope") }
        return (envelope, response.body)
    }

    func decode<T: Decodable>(_ type: T.Type, _ data: Data, what: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw TradeItErrors.malformed("\(TradeItErrors.describe(error)) in \(what)")
        }
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
        _ type: T.Type, _ path: String, write: Bool = false, expecting status: String = "SUCCESS",
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
