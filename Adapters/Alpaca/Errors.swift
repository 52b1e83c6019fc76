import Foundation
import GatewayCore
import GatewayModel

/// Alpaca's errors → `GatewayError`, as one table.
///
/// | HTTP | Alpaca code / message | GatewayError |
/// |---|---|---|
/// | 401 | none or 40110000 | `unauthorized` |
/// | 403 | 40310000 `insufficient buying power`, `insufficient day trading buying power`, `insufficient balance for …` (crypto, either side) | `insufficient_funds` |
/// | 403 | 40310000 `insufficient qty available for order …` (selling more than is held) | `insufficient_funds` |
/// | 403 | anything else (account not allowed to trade, options level, …) | `forbidden` |
/// | 404 | 40410000 or none | `not_found` |
/// | 422 | 40010001 `client_order_id must be unique` | `conflict` |
/// | 422 | 42210000 `… is already in "filled" state` and other state complaints | `conflict` |
/// | 422, 400 | 42210000 / 40010001 / none: validation (`invalid crypto time_in_force`, `asset "X" not found`, `qty must be >= 0.0001`, `… sub-penny increment …`) | `unprocessable`, naming the canonical field the message names (`fieldOfMessage`) |
/// | 429 | 42910000 | `rate_limited`, `retryAfter` from `Retry-After` (seconds or HTTP date), else `X-RateLimit-Reset` (unix seconds), read by `BrokerNumber` |
/// | 3xx | | `malformed_response` (no redirect is followed) |
/// | 504 | | `upstream_timeout` |
/// | 5xx | | `upstream_unavailable` |
/// | other 4xx | | `rejected` |
/// | 2xx with a body that is not the expected JSON | | `malformed_response` |
///
/// Messages quote Alpaca's own message (which never echoes credentials), without control characters and cut to
/// `BrokerText.maximumLength`.
enum AlpacaErrors {
    static func malformed(_ what: String) -> GatewayError {
        GatewayError(.malformedResponse, "Alpaca sent \(what)", broker: .alpaca, retryable: false)
    }

    /// The error for a non-2xx response.
    static func error(for response: BrokerResponse, now: Date) -> GatewayError {
        let body = try? JSONDecoder().decode(AlpacaErrorBody.self, from: response.body)
        let code = body?.code
        let text = body?.message.map { BrokerText.sanitized($0) }
        let brokerCode = code.map(String.init) ?? text
        func make(_ gatewayCode: GatewayError.Code, _ fallback: String, details: [FieldProblem] = []) -> GatewayError {
            let message = text.map { "Alpaca: \($0)" } ?? fallback
            return GatewayError(gatewayCode, message, broker: .alpaca, details: details, brokerCode: brokerCode)
        }
        let lowered = text?.lowercased() ?? ""
        switch response.status {
        case 300...399:
            return .redirect(status: response.status, broker: .alpaca)
        case 401:
            return make(.unauthorized, "Alpaca rejected the credentials (HTTP 401)")
        case 403:
            if lowered.contains("insufficient buying power") || lowered.contains("insufficient balance")
                || lowered.contains("insufficient day trading buying power")
            {
                return make(.insufficientFunds, "Alpaca: insufficient buying power")
            }
            if lowered.contains("insufficient qty") {
                return make(.insufficientFunds, "Alpaca: insufficient quantity available")
            }
            return make(.forbidden, "Alpaca refused the request (HTTP 403)")
        case 404:
            return make(.notFound, "Alpaca has no such resource (HTTP 404)")
        case 400, 422:
            if lowered.contains("client_order_id must be unique") {
                return make(.conflict, "Alpaca: client_order_id must be unique")
            }
            if lowered.contains("already in") && lowered.contains("state") {
                return make(.conflict, "Alpaca: the order is not in a state that allows this")
            }
            let details = fieldOfMessage(lowered).map { [FieldProblem(field: $0, problem: text ?? "is refused by Alpaca")] } ?? []
            return make(.unprocessable, "Alpaca could not process the request (HTTP \(response.status))", details: details)
        case 429:
            var error = make(.rateLimited, "Alpaca: rate limit exceeded")
            error.retryAfter = retryAfter(response, now: now)
            return error
        case 504:
            return make(.upstreamTimeout, "Alpaca's gateway timed out (HTTP 504)")
        case 500...599:
            return make(.upstreamUnavailable, "Alpaca is unavailable (HTTP \(response.status))")
        default:
            return make(.rejected, "Alpaca answered HTTP \(response.status)")
        }
    }

    /// Alpaca's validation messages → the canonical field they are about, first match wins. Alpaca names its request
    /// parameters in the text (`qty must be >= 0.0001`, `invalid limit_price 150.001. sub-penny increment does not
    /// fulfill minimum pricing criteria`, `invalid crypto time_in_force`; docs.alpaca.markets "Orders at Alpaca" and
    /// the 422 messages quoted in the wire reference); an unknown asset is `asset "X" not found`, or `could not find
    /// us_equity 'X'` (40010001, alpacahq/Alpaca-API issue #184); a fractional quantity of an asset that is not
    /// fractionable is `fractional orders are not supported for X`.
    static let messageFields: [(text: String, field: String)] = [
        ("asset \"", "symbol"), ("could not find", "symbol"), ("fractional orders are not supported", "quantity"),
        ("fractional orders must be day", "timeInForce"), ("fractional orders must be market or limit", "type"),
        ("limit_price", "limitPrice"), ("limit price", "limitPrice"), ("stop_price", "stopPrice"),
        ("stop price", "stopPrice"), ("time_in_force", "timeInForce"), ("notional", "notional"), ("qty", "quantity"),
        ("client_order_id", "clientOrderId"), ("side", "side"), ("symbol", "symbol"), ("order type", "type"),
    ]

    /// The canonical field a lowercased Alpaca validation message is about, if it names one.
    static func fieldOfMessage(_ lowered: String) -> String? {
        messageFields.first { lowered.contains($0.text) }?.field
    }

    /// Seconds to wait: `Retry-After` (seconds or an HTTP date), else `X-RateLimit-Reset` (unix seconds) minus now;
    /// finite and bounded, whatever was sent.
    static func retryAfter(_ response: BrokerResponse, now: Date) -> Double? {
        BrokerNumber.retryAfter(response.header("Retry-After"), now: now)
            ?? BrokerNumber.resetSeconds(response.header("X-RateLimit-Reset"), kind: .unixSeconds, now: now)
    }

    /// A `DecodingError` explained without the payload (which may carry account data).
    static func describe(_ error: any Error) -> String {
        DecodingFailure.describe(error)
    }
}
