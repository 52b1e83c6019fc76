import Foundation
import GatewayCore
import GatewayModel

/// Kraken's failures → `GatewayError`, as one table.
///
/// Kraken answers almost every failure with HTTP 200 and `{"error": ["<severity><category>:<text>[:<extra>]"]}`
/// ("HTTP status codes are generally not used by our API to convey information about the state of requests",
/// Spot REST Introduction). The first `E…` string decides, by its longest known prefix:
///
/// | `error` string | GatewayError |
/// |---|---|
/// | `EAPI:Invalid key`, `EAPI:Invalid signature`, `EAPI:Bad request` (no key), `ESession:Invalid session` | `unauthorized` (final: the connection needs new keys) |
/// | `EAPI:Invalid nonce` | `unauthorized`, retryable (the next nonce can pass; the connection is not marked for relinking) |
/// | `EGeneral:Permission denied`, `EAPI:Feature disabled` | `forbidden` |
/// | `EOrder:Insufficient funds`, `EOrder:Insufficient margin` | `insufficient_funds` |
/// | `EOrder:Unknown order`, `EOrder:Invalid order` (Kraken's SDK: the same string for gone and never-valid ids) | `not_found` |
/// | `EGeneral:Invalid arguments[:field]` | `unprocessable` (the field when Kraken names it) |
/// | `EQuery:Unknown asset pair`, `EQuery:Invalid asset pair` | `unprocessable`, field `symbol` |
/// | `EOrder:Order minimum not met`, `EOrder:Cost minimum not met`, `EOrder:Tick size check failed`, `EOrder:Invalid price` | `unprocessable` |
/// | `EAPI:Rate limit exceeded`, `EOrder:Rate limit exceeded`, `EOrder:Domain rate limit exceeded`, `EGeneral:Temporary lockout`, `EService: Throttled: <ts>` | `rate_limited` |
/// | `EService:Unavailable`, `EService:Busy`, `EService:Market in cancel_only mode`, `EService:Market in post_only mode`, `EGeneral:Internal error` | `upstream_unavailable` |
/// | `EService:Deadline elapsed`, `EService:Timeout` | `upstream_timeout` |
/// | `EOrder:Orders limit exceeded`, `EOrder:Positions limit exceeded`, any other `E…` | `rejected` |
///
/// | HTTP | GatewayError |
/// |---|---|
/// | 2xx, body not Kraken's JSON | `malformed_response` |
/// | 3xx | `malformed_response` (no redirect is followed) |
/// | 429 | `rate_limited` (`Retry-After` honoured) |
/// | 504 | `upstream_timeout` |
/// | 5xx (Cloudflare's 520 included) | `upstream_unavailable` |
/// | other 4xx with an `error` array | the string's row above |
/// | 401, 403 | `unauthorized` |
/// | 404 | `not_found` |
/// | other | `rejected` |
///
/// `brokerCode` is Kraken's string (or the HTTP status). Messages never carry a credential.
enum KrakenErrors {
    static func malformed(_ what: String) -> GatewayError {
        GatewayError(.malformedResponse, "Kraken sent \(what)", broker: .kraken, retryable: false)
    }

    /// The error for Kraken's `E…` strings (the first decides; the rest are kept in the message).
    static func error(strings raw: [String]) -> GatewayError {
        let strings = raw.map { BrokerText.sanitized($0) }
        guard let first = strings.first else {
            return GatewayError(.rejected, "Kraken refused the request without saying why", broker: .kraken, retryable: false)
        }
        let message = "Kraken: " + strings.joined(separator: "; ")
        func make(_ code: GatewayError.Code, details: [FieldProblem] = [], retryable: Bool? = nil) -> GatewayError {
            GatewayError(code, message, broker: .kraken, retryable: retryable, details: details, brokerCode: first)
        }
        let table: [(prefix: String, code: GatewayError.Code)] = [
            ("EAPI:Invalid key", .unauthorized), ("EAPI:Invalid signature", .unauthorized),
            ("EAPI:Invalid nonce", .unauthorized), ("EAPI:Bad request", .unauthorized),
            ("ESession:Invalid session", .unauthorized),
            ("EGeneral:Permission denied", .forbidden), ("EAPI:Feature disabled", .forbidden),
            ("EOrder:Insufficient funds", .insufficientFunds), ("EOrder:Insufficient margin", .insufficientFunds),
            ("EOrder:Unknown order", .notFound), ("EOrder:Invalid order", .notFound),
            ("EAPI:Rate limit exceeded", .rateLimited), ("EOrder:Rate limit exceeded", .rateLimited),
            ("EOrder:Domain rate limit exceeded", .rateLimited), ("EGeneral:Temporary lockout", .rateLimited),
            ("EService: Throttled", .rateLimited), ("EService:Throttled", .rateLimited),
            ("EService:Unavailable", .upstreamUnavailable), ("EService:Busy", .upstreamUnavailable),
            ("EService:Market in cancel_only mode", .upstreamUnavailable),
            ("EService:Market in post_only mode", .upstreamUnavailable),
            ("EGeneral:Internal error", .upstreamUnavailable),
            ("EService:Deadline elapsed", .upstreamTimeout), ("EService:Timeout", .upstreamTimeout),
        ]
        if let row = table.first(where: { first.hasPrefix($0.prefix) }) {
            // A nonce refused is not a credential refused: the next call, with a new nonce, can pass. Retryable, so the
            // gateway does not mark the connection for relinking (a retried call whose first attempt reached Kraken
            // meets this too: its body, and so its nonce, is the same).
            return make(row.code, retryable: first.hasPrefix("EAPI:Invalid nonce") ? true : nil)
        }
        if first.hasPrefix("EGeneral:Invalid arguments") {
            let field = first.split(separator: ":").dropFirst(2).first.map(String.init) ?? "request"
            return make(.unprocessable, details: [FieldProblem(field: field, problem: "Kraken refused it: \(first)")])
        }
        if first.hasPrefix("EQuery:Unknown asset pair") || first.hasPrefix("EQuery:Invalid asset pair") {
            return make(.unprocessable, details: [FieldProblem(field: "symbol", problem: "Kraken has no such pair")])
        }
        for prefix in ["EOrder:Order minimum not met", "EOrder:Cost minimum not met", "EOrder:Tick size check failed", "EOrder:Invalid price"]
        where first.hasPrefix(prefix) {
            let field = prefix.contains("price") || prefix.contains("Tick") ? "limitPrice" : "quantity"
            return make(.unprocessable, details: [FieldProblem(field: field, problem: "Kraken refused it: \(first)")])
        }
        return make(.rejected, retryable: false)
    }

    /// The error for a response whose HTTP status is not 2xx.
    static func error(for response: BrokerResponse) -> GatewayError {
        let strings = (try? JSONDecoder().decode(KrakenErrorsOnly.self, from: response.body))?.error?.filter { $0.hasPrefix("E") } ?? []
        let status = response.status
        let brokerCode = strings.first.map { BrokerText.sanitized($0) } ?? String(status)
        func make(_ code: GatewayError.Code, _ message: String) -> GatewayError {
            GatewayError(code, message, broker: .kraken, brokerCode: brokerCode)
        }
        switch status {
        case 300...399:
            return .redirect(status: status, broker: .kraken)
        case 429:
            var error = make(.rateLimited, "Kraken: too many requests (HTTP 429)")
            error.retryAfter = BrokerNumber.retryAfter(response.header("Retry-After"), now: Date())
            return error
        case 504:
            return make(.upstreamTimeout, "Kraken's gateway timed out (HTTP 504)")
        case 500...599:
            return make(.upstreamUnavailable, "Kraken is unavailable (HTTP \(status))")
        default:
            if !strings.isEmpty { return error(strings: strings) }
            switch status {
            case 401, 403:
                return GatewayError(
                    .unauthorized,
                    "Kraken refused the credentials (HTTP \(status))",
                    broker: .kraken,
                    retryable: false,
                    brokerCode: brokerCode
                )
            case 404:
                return GatewayError(.notFound, "Kraken has no such endpoint (HTTP 404)", broker: .kraken, retryable: false, brokerCode: brokerCode)
            default:
                return GatewayError(.rejected, "Kraken answered HTTP \(status)", broker: .kraken, retryable: false, brokerCode: brokerCode)
            }
        }
    }

    static func isNotFound(_ error: GatewayError) -> Bool {
        error.code == .notFound && (error.brokerCode?.hasPrefix("EOrder:") ?? false)
    }
}
