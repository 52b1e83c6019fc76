import Foundation
import GatewayCore
import GatewayModel

/// TradeOgre's failures → `GatewayError`, as one table.
///
/// TradeOgre answers failures as `{"success":false,"error":"<text>"}`, with HTTP 200 as far as any client shows
/// (ccxt reads only the body). The text decides:
///
/// | `error` text | GatewayError |
/// |---|---|
/// | `Must be authorized` | `unauthorized` |
/// | `Market not found` | `unprocessable`, field `symbol`: the market named does not exist (an unknown symbol answers the same at every broker; reads that find no market leave it out) |
/// | `Insufficient funds` | `insufficient_funds` (either side: the quote currency to buy, the base currency to sell) |
/// | `Order not found` | `not_found` (the order) |
/// | anything else | `rejected`, with the text |
///
/// | HTTP | body | GatewayError |
/// |---|---|---|
/// | 2xx | not the expected JSON | `malformed_response` |
/// | 3xx | any | `malformed_response` (no redirect is followed) |
/// | 429 | any | `rate_limited` (`Retry-After`, seconds or HTTP date, read by `BrokerNumber`) |
/// | 504 | any | `upstream_timeout` |
/// | 5xx | any | `upstream_unavailable` |
/// | other 4xx | a failure body | the text's row above |
/// | 401, 403 | no failure body | `unauthorized` |
/// | 404 | no failure body | `not_found` |
/// | other | no failure body | `rejected` |
///
/// `brokerCode` is TradeOgre's text (or the HTTP status). Messages never contain a credential; TradeOgre's text is
/// passed on without control characters and cut to `BrokerText.maximumLength`.
enum TradeOgreErrors {
    static func malformed(_ what: String) -> GatewayError {
        GatewayError(.malformedResponse, "TradeOgre sent \(what)", broker: .tradeogre, retryable: false)
    }

    /// The error for one of TradeOgre's failure texts.
    static func error(message raw: String) -> GatewayError {
        let text = BrokerText.sanitized(raw)
        switch text {
        case "Must be authorized":
            return GatewayError(
                .unauthorized,
                "TradeOgre: Must be authorized (the API key and secret were refused)",
                broker: .tradeogre,
                retryable: false,
                brokerCode: text
            )
        case "Market not found":
            return GatewayError(
                .unprocessable,
                "TradeOgre: Market not found",
                broker: .tradeogre,
                retryable: false,
                details: [FieldProblem(field: "symbol", problem: "TradeOgre has no such market")],
                brokerCode: text
            )
        case "Insufficient funds":
            return GatewayError(
                .insufficientFunds,
                "TradeOgre: Insufficient funds",
                broker: .tradeogre,
                retryable: false,
                brokerCode: text
            )
        case "Order not found":
            return GatewayError(.notFound, "TradeOgre: Order not found", broker: .tradeogre, retryable: false, brokerCode: text)
        case "":
            return GatewayError(.rejected, "TradeOgre refused the request without saying why", broker: .tradeogre, retryable: false)
        default:
            return GatewayError(.rejected, "TradeOgre: \(text)", broker: .tradeogre, retryable: false, brokerCode: text)
        }
    }

    /// The error for a response whose HTTP status is not 2xx.
    static func error(for response: BrokerResponse) -> GatewayError {
        let failure = try? JSONDecoder().decode(TradeOgreEnvelope.self, from: response.body)
        let text = failure.flatMap { $0.succeeded == false ? BrokerText.sanitized($0.error ?? "") : nil }
        let status = response.status
        func make(_ code: GatewayError.Code, _ message: String) -> GatewayError {
            GatewayError(code, message, broker: .tradeogre, brokerCode: text ?? String(status))
        }
        switch status {
        case 300...399:
            return .redirect(status: status, broker: .tradeogre)
        case 429:
            var error = make(.rateLimited, "TradeOgre: too many requests (HTTP 429)")
            error.retryAfter = BrokerNumber.retryAfter(response.header("Retry-After"), now: Date())
            return error
        case 504:
            return make(.upstreamTimeout, "TradeOgre's gateway timed out (HTTP 504)")
        case 500...599:
            return make(.upstreamUnavailable, "TradeOgre is unavailable (HTTP \(status))")
        default:
            if let text { return error(message: text) }
            switch status {
            case 401, 403:
                return GatewayError(
                    .unauthorized,
                    "TradeOgre refused the credentials (HTTP \(status))",
                    broker: .tradeogre,
                    retryable: false,
                    brokerCode: String(status)
                )
            case 404:
                return GatewayError(.notFound, "TradeOgre has no such endpoint (HTTP 404)", broker: .tradeogre, retryable: false, brokerCode: "404")
            default:
                return GatewayError(.rejected, "TradeOgre answered HTTP \(status)", broker: .tradeogre, retryable: false, brokerCode: String(status))
            }
        }
    }

    /// A `DecodingError` explained without the payload (which may carry account data).
    static func describe(_ error: any Error) -> String {
        DecodingFailure.describe(error)
    }
}
