import Foundation
import GatewayCore
import GatewayModel
import HTTPTypes

/// Saxo's errors → `GatewayError`, as one table.
///
/// | HTTP | Saxo `ErrorCode` (top level, in `ErrorInfo`, or on a leg) | GatewayError |
/// |---|---|---|
/// | 401 | (after one token refresh and one retry) | `unauthorized` |
/// | 400 from `/token` | `invalid_grant` and the like: the refresh token is dead | `unauthorized`, connection marked `relink_required` |
/// | 403 | | `forbidden` (the app or account lacks a permission, e.g. trading) |
/// | 404 | | `not_found` (callers that change or cancel an order turn it into `conflict`: "already filled or gone") |
/// | 409 | | `conflict`: an identical order was sent within 15 s without a distinct `X-Request-ID` |
/// | 429 | `RateLimitExceeded` | `rate_limited`, `retryAfter` = `X-RateLimit-*-Reset` (seconds) of the exhausted dimension |
/// | any | `InsufficentCash` (sic), `InsufficientCash`, `WouldExceedMargin`, `WouldExceedMarginCeiling`, `InsufficientMargin`, `ShortTradeDisabled` (selling more than is held where the account may not go short) | `insufficient_funds` |
/// | any | `MarketClosed` | `market_closed` |
/// | any | `OrderNotFound` | `not_found` |
/// | any | `TooLateToCancelOrder` | `conflict` (the order already ended) |
/// | 400 | `InvalidModelState` with `ModelState`, `InvalidRequest`, `InvalidQueryParameters`, `TypeConversionError` | `unprocessable`, one detail per `ModelState` message |
/// | 400, other 4xx, 200 with `ErrorInfo` | trading rules that name a field (`IllegalAmount`, `AmountBelowMinimumLotSize`, `AmountNotInLotSize`, `PriceNotInTickSizeIncrements`, `IllegalPrice`, `OnWrongSideOfMarket`, `TooFarFromMarket`, `IllegalInstrumentId`, `IllegalDuration`, `IllegalAccount`) | `unprocessable`, with that field (`fieldOfCode`) |
/// | 400, other 4xx, 200 with `ErrorInfo` | any other trading rule | `rejected` |
///
/// The codes and their meanings are Saxo's `TradingErrorCode` list, as the developer portal gives it for
/// `POST /trade/v2/orders` (https://www.developer.saxo/openapi/referencedocs/trade/v2/orders/post__trade, "Error
/// Code"): e.g. `AmountBelowMinimumLotSize` "Order size is below the minimum exchange lot size", `AmountNotInLotSize`
/// "Order size is not a valid exchange lot order size"; `TooLateToCancelOrder` is in the list for
/// `DELETE /trade/v2/orders/{OrderIds}`. The gateway answers the same mistake with the same code at every broker (the
/// README's "Errors" table).
/// | 3xx | | `malformed_response` (no redirect is followed) |
/// | 504 | | `upstream_timeout` |
/// | 5xx | | `upstream_unavailable` |
/// | 2xx with a body that is not the expected JSON | | `malformed_response` |
///
/// Messages quote Saxo's own `Message` (which never echoes credentials), without control characters and cut to
/// `BrokerText.maximumLength`; numbers in headers are read by `BrokerNumber`.
enum SaxoErrors {
    static let insufficientFundsCodes: Set<String> = [
        "InsufficentCash", "InsufficientCash", "WouldExceedMargin", "WouldExceedMarginCeiling", "InsufficientMargin",
        "ShortTradeDisabled",
    ]
    /// The market is not trading: the same order may succeed later.
    static let marketClosedCodes: Set<String> = ["MarketClosed"]
    /// The order already ended (filled, cancelled) or is past changing.
    static let endedCodes: Set<String> = ["TooLateToCancelOrder"]
    static let requestShapeCodes: Set<String> = [
        "InvalidModelState", "InvalidRequest", "InvalidQueryParameters", "TypeConversionError",
    ]
    /// Trading codes that name the field at fault.
    static let fieldOfCode: [String: String] = [
        "IllegalAmount": "quantity",
        "AmountBelowMinimumLotSize": "quantity",
        "AmountNotInLotSize": "quantity",
        "PriceNotInTickSizeIncrements": "limitPrice",
        "IllegalPrice": "limitPrice",
        "OnWrongSideOfMarket": "limitPrice",
        "TooFarFromMarket": "limitPrice",
        "IllegalInstrumentId": "symbol",
        "IllegalDuration": "timeInForce",
        "IllegalAccount": "accountId",
    ]
    /// Saxo request fields → the canonical fields a caller sent.
    static let canonicalField: [String: String] = [
        "Amount": "quantity", "OrderPrice": "limitPrice", "StopLimitPrice": "limitPrice", "Uic": "symbol",
        "AssetType": "assetClass", "OrderDuration": "timeInForce", "OrderType": "type", "BuySell": "side",
        "AccountKey": "accountId",
    ]

    static func malformed(_ what: String) -> GatewayError {
        GatewayError(.malformedResponse, "Saxo sent \(what)", broker: .saxo, retryable: false)
    }

    /// The error for a non-2xx response.
    static func error(for response: BrokerResponse) -> GatewayError {
        let body = try? JSONDecoder().decode(SaxoErrorBody.self, from: response.body)
        let info = body?.effective
        switch response.status {
        case 300...399:
            return .redirect(status: response.status, broker: .saxo)
        case 401:
            return make(.unauthorized, info, fallback: "Saxo rejected the access token (HTTP 401)")
        case 403:
            return make(.forbidden, info, fallback: "Saxo refused the request (HTTP 403): the app or account lacks a permission")
        case 404:
            if let info, info.errorCode != nil { return error(for: info, status: 404) }
            return make(.notFound, info, fallback: "Saxo has no such resource (HTTP 404)")
        case 409:
            return make(
                .conflict,
                info,
                fallback: "Saxo refused a duplicate order (HTTP 409): an identical order was sent within 15 seconds"
            )
        case 429:
            var error = make(.rateLimited, info, fallback: "Saxo: rate limit exceeded (HTTP 429)")
            error.retryAfter = retryAfter(response)
            return error
        case 504:
            return make(.upstreamTimeout, info, fallback: "Saxo's gateway timed out (HTTP 504)")
        case 500...599:
            return make(.upstreamUnavailable, info, fallback: "Saxo is unavailable (HTTP \(response.status))")
        default:
            if let info { return error(for: info, status: response.status) }
            return make(.rejected, nil, fallback: "Saxo answered HTTP \(response.status)")
        }
    }

    /// The error for a Saxo error object (a 4xx body, a precheck `Error`, or a failing leg).
    static func error(for info: SaxoErrorInfo, status: Int) -> GatewayError {
        let code = info.errorCode ?? ""
        if insufficientFundsCodes.contains(code) {
            return make(.insufficientFunds, info, fallback: "Saxo: insufficient funds")
        }
        if marketClosedCodes.contains(code) {
            return make(.marketClosed, info, fallback: "Saxo: the market is closed")
        }
        if code == "OrderNotFound" {
            return make(.notFound, info, fallback: "Saxo has no such order")
        }
        if endedCodes.contains(code) {
            return make(.conflict, info, fallback: "Saxo: the order can no longer be changed or cancelled")
        }
        if code == "RateLimitExceeded" {
            return make(.rateLimited, info, fallback: "Saxo: rate limit exceeded")
        }
        let problems = details(of: info)
        if requestShapeCodes.contains(code) || (info.modelState?.isEmpty == false) || fieldOfCode[code] != nil {
            return make(.unprocessable, info, fallback: "Saxo could not process the request (HTTP \(status))", details: problems)
        }
        return make(.rejected, info, fallback: "Saxo rejected the request (HTTP \(status))", details: problems)
    }

    /// One problem per `ModelState` message (fields renamed to the canonical ones where known), or the field a
    /// trading code names.
    static func details(of info: SaxoErrorInfo) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        for (key, messages) in (info.modelState ?? [:]).sorted(by: { $0.key < $1.key }) {
            let field = canonicalField[key] ?? BrokerText.sanitized(key, limit: 64)
            for message in messages.prefix(20) {
                problems.append(FieldProblem(field: field, problem: BrokerText.sanitized(message)))
            }
        }
        if problems.isEmpty, let code = info.errorCode, let field = fieldOfCode[code] {
            problems.append(FieldProblem(field: field, problem: BrokerText.sanitized(info.message ?? code)))
        }
        return problems
    }

    static func make(
        _ code: GatewayError.Code,
        _ info: SaxoErrorInfo?,
        fallback: String,
        details: [FieldProblem] = []
    ) -> GatewayError {
        let text = info?.message.map { BrokerText.sanitized($0) }
        let message = text.map { "Saxo: \($0)" } ?? fallback
        return GatewayError(
            code,
            message,
            broker: .saxo,
            details: details,
            brokerCode: info?.errorCode.map { BrokerText.sanitized($0, limit: 64) }
        )
    }

    /// Seconds to wait: the `Reset` of each `X-RateLimit-{Dimension}-…` whose `Remaining` is 0 (the longest of
    /// them); if none says 0, the longest `Reset`; else `Retry-After`.
    static func retryAfter(_ response: BrokerResponse, now: Date = Date()) -> Double? {
        var resets: [String: Double] = [:]
        var remaining: [String: Int] = [:]
        for header in response.headers {
            let name = header.name.canonicalName
            guard name.hasPrefix("x-ratelimit-") else { continue }
            let rest = name.dropFirst("x-ratelimit-".count)
            if rest.hasSuffix("-reset"), let seconds = BrokerNumber.resetSeconds(header.value, kind: .secondsFromNow, now: now) {
                resets[String(rest.dropLast("-reset".count))] = seconds
            } else if rest.hasSuffix("-remaining"), let count = BrokerNumber.count(header.value) {
                remaining[String(rest.dropLast("-remaining".count))] = count
            }
        }
        let exhausted = resets.filter { remaining[$0.key] == 0 }.values
        if let seconds = exhausted.max() ?? resets.values.max() { return seconds }
        return BrokerNumber.retryAfter(response.header("Retry-After"), now: now)
    }

    /// A `DecodingError` explained without the payload (which may carry account data).
    static func describe(_ error: any Error) -> String {
        DecodingFailure.describe(error)
    }
}

extension GatewayError {
    func with(broker: BrokerKind) -> GatewayError {
        var copy = self
        copy.broker = broker
        return copy
    }
}
