import Foundation
import GatewayCore
import GatewayModel

/// TradeIt's error codes → `GatewayError`, one table (TradeIt documents its codes in JavaApi `TradeItErrorCode` and
/// TradeItIosTicketSDK2 `TradeItErrorCode`; every business error is HTTP 200 with `"status":"ERROR"`).
///
/// | code | TradeIt name | gateway |
/// |---|---|---|
/// | 100 | SYSTEM_ERROR | upstream_unavailable (retryable) |
/// | 101 | CONCURRENT_AUTHENTICATION_ERROR | conflict (retryable) |
/// | 200 | BROKER_EXECUTION_ERROR | by its text (`executionRules`): insufficient_funds, unprocessable naming a field, conflict; else rejected |
/// | 300 | BROKER_AUTHENTICATION_ERROR | unauthorized |
/// | 301 | TOO_MANY_LOGIN_ATTEMPTS | rate_limited (retry after 300 s) |
/// | 400 | BROKER_ACCOUNT_ERROR | forbidden |
/// | 500 | PARAMETER_ERROR | invalid_request |
/// | 600 | SESSION_EXPIRED | handled: the session reopens once and the call is retried; unauthorized if it recurs |
/// | 700 | TOKEN_INVALID_OR_EXPIRED | unauthorized, and the connection is marked relink_required |
/// | 800 | BROKER_ACCOUNT_NOT_AVAILABLE | upstream_unavailable (retryable) |
/// | other | — | upstream_unavailable |
///
/// Code 200 is "user must fix the trade input" (JavaApi `TradeItErrorCode`): TradeIt gives no finer code, only the
/// broker's text in `longMessages`, so the gateway reads the text to answer the same mistake with the same code as the
/// other brokers (the README's "Errors" table):
///
/// | text contains | gateway |
/// |---|---|
/// | `buying power` | insufficient_funds |
/// | `you can sell at most`, `short sales are not available` (selling, or selling short, more than is held in an account that may not go short) | insufficient_funds |
/// | `symbol` … `not found` | unprocessable, field `symbol` |
/// | `minimum quantity`, `whole shares` | unprocessable, field `quantity` |
/// | `cannot be canceled` | conflict (the order already ended) |
///
/// An answer that is not JSON (or not the envelope) is malformed_response; so is a 3xx (no redirect is followed). A
/// 429 is rate_limited with its `Retry-After` (read by `BrokerNumber`). TradeIt's messages are passed on without
/// control characters and cut to `BrokerText.maximumLength`.
enum TradeItErrors {
    static func error(code: Int?, shortMessage: String?, longMessages: [String]?) -> GatewayError {
        let joined = [shortMessage, longMessages?.prefix(10).joined(separator: " ")].compactMap { $0 }
            .filter { !$0.isEmpty }.joined(separator: ": ")
        let text = BrokerText.sanitized(joined)
        let message = "TradeIt: " + (text.isEmpty ? "error \(code.map(String.init) ?? "without a code")" : text)
        let brokerCode = code.map(String.init)
        switch code {
        case 100: return GatewayError(.upstreamUnavailable, message, broker: .tradeit, retryable: true, brokerCode: brokerCode)
        case 101: return GatewayError(.conflict, message, broker: .tradeit, retryable: true, brokerCode: brokerCode)
        case 200:
            let rule = executionRule(joined.lowercased())
            let details = rule.field.map { [FieldProblem(field: $0, problem: BrokerText.sanitized(longMessages?.first ?? text))] } ?? []
            return GatewayError(rule.code, message, broker: .tradeit, retryable: false, details: details, brokerCode: brokerCode)
        case 300: return GatewayError(.unauthorized, message, broker: .tradeit, retryable: false, brokerCode: brokerCode)
        case 301:
            return GatewayError(.rateLimited, message, broker: .tradeit, retryable: true, retryAfter: 300, brokerCode: brokerCode)
        case 400: return GatewayError(.forbidden, message, broker: .tradeit, retryable: false, brokerCode: brokerCode)
        case 500: return GatewayError(.invalidRequest, message, broker: .tradeit, retryable: false, brokerCode: brokerCode)
        case 600: return GatewayError(.unauthorized, message, broker: .tradeit, retryable: true, brokerCode: brokerCode)
        case 700: return GatewayError(.unauthorized, message, broker: .tradeit, retryable: false, brokerCode: brokerCode)
        case 800: return GatewayError(.upstreamUnavailable, message, broker: .tradeit, retryable: true, brokerCode: brokerCode)
        default: return GatewayError(.upstreamUnavailable, message, broker: .tradeit, brokerCode: brokerCode)
        }
    }

    /// Execution-error texts → the gateway's code and the field at fault, first match wins (all lowercased). TradeIt
    /// relays the underlying broker's own wording, which differs from broker to broker; these are the phrasings of its
    /// `Dummy` broker as the sandbox gives them (`Sources/Sandboxes/TradeIt`). A text that matches none stays `rejected`,
    /// which is never wrong, only less specific.
    static let executionRules: [(all: [String], code: GatewayError.Code, field: String?)] = [
        (["buying power"], .insufficientFunds, nil),
        (["you can sell at most"], .insufficientFunds, nil),
        (["short sales are not available"], .insufficientFunds, nil),
        (["symbol", "not found"], .unprocessable, "symbol"),
        (["minimum quantity"], .unprocessable, "quantity"),
        (["whole shares"], .unprocessable, "quantity"),
        (["cannot be canceled"], .conflict, nil),
    ]

    static func executionRule(_ lowered: String) -> (code: GatewayError.Code, field: String?) {
        guard let rule = executionRules.first(where: { $0.all.allSatisfy(lowered.contains) }) else { return (.rejected, nil) }
        return (rule.code, rule.field)
    }

    /// The error for an HTTP status other than 200: a 429 is `rate_limited` whatever its body says (a throttled call
    /// may carry a SYSTEM_ERROR envelope, which would read as `upstream_unavailable` and lose the `Retry-After`);
    /// otherwise the envelope's code where the body is an ERROR envelope, else by the status.
    static func error(for response: BrokerResponse, path: String) -> GatewayError {
        if response.status == 429 {
            return GatewayError(
                .rateLimited,
                "TradeIt: too many requests",
                broker: .tradeit,
                retryAfter: BrokerNumber.retryAfter(response.header("Retry-After"), now: Date())
            )
        }
        if let envelope = try? JSONDecoder().decode(TradeItEnvelope.self, from: response.body), envelope.status == "ERROR",
            envelope.code != nil
        {
            return error(code: envelope.code, shortMessage: envelope.shortMessage, longMessages: envelope.longMessages)
        }
        switch response.status {
        case 300...399: return .redirect(status: response.status, broker: .tradeit)
        case 500...: return GatewayError(.upstreamUnavailable, "TradeIt answered HTTP \(response.status)", broker: .tradeit)
        default: return malformed("HTTP \(response.status) for \(path)")
        }
    }

    static func malformed(_ what: String) -> GatewayError {
        GatewayError(.malformedResponse, "TradeIt sent an answer that cannot be read: \(what)", broker: .tradeit)
    }

    /// A `DecodingError` explained without the payload.
    static func describe(_ error: any Error) -> String {
        DecodingFailure.describe(error)
    }
}
