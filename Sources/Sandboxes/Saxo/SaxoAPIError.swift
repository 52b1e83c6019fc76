import Hummingbird
import SandboxKit

/// An error answered the way Saxo's OpenAPI answers.
///
/// Most endpoints send `{"ErrorCode":"InvalidModelState","Message":"One or more properties of the request are invalid!",
/// "ModelState":{"$skip":["Invalid $skip query parameter value: 2s"]}}` (`ModelState` only when there is one).
/// The order endpoints wrap the same members in `ErrorInfo` (`{"ErrorInfo":{"ErrorCode":"IllegalAmount",...}}`),
/// which Saxo's own samples call out for a single order's 400 (e.g. a missing `ManualOrder`).
/// A 401 has an empty body, as Saxo's gateway sends it.
struct SaxoAPIError: Error, HTTPResponseError, Sendable {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    /// Field (or query parameter) → problems.
    var modelState: [(field: String, problems: [String])] = []
    /// Whether the members are nested in `ErrorInfo` (order endpoints).
    var wrapped = false
    /// Extra top-level members besides `ErrorInfo` (e.g. `OrderId` on a failed change).
    var extra: [JSON.Member] = []

    var errorInfo: JSON {
        var members: [JSON.Member] = [
            .init(key: "ErrorCode", value: .string(code)),
            .init(key: "Message", value: .string(message)),
        ]
        if !modelState.isEmpty {
            members.append(
                .init(key: "ModelState", value: .object(modelState.map { .init(key: $0.field, value: .array($0.problems.map(JSON.string))) }))
            )
        }
        return .object(members)
    }

    var body: JSON? {
        if status == .unauthorized { return nil }
        if wrapped { return .object([.init(key: "ErrorInfo", value: errorInfo)] + extra) }
        return errorInfo
    }

    /// The same error, nested in `ErrorInfo` (used by the order endpoints).
    var asOrderError: SaxoAPIError {
        var copy = self
        copy.wrapped = true
        return copy
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        render()
    }

    func render(headers: HTTPFields = [:]) -> Response {
        guard let body else { return Response(status: status, headers: headers) }
        return .json(body, status: status, headers: headers)
    }

    // MARK: Common errors

    static let invalidModelStateMessage = "One or more properties of the request are invalid!"

    /// 400 `InvalidModelState` with the given field problems.
    static func invalidModelState(_ problems: [(field: String, problems: [String])]) -> SaxoAPIError {
        SaxoAPIError(status: .badRequest, code: "InvalidModelState", message: invalidModelStateMessage, modelState: problems)
    }

    static func invalidModelState(_ field: String, _ problem: String) -> SaxoAPIError {
        invalidModelState([(field, [problem])])
    }

    /// 400 for a body that is not JSON.
    static func malformedBody(_ reason: String) -> SaxoAPIError {
        invalidModelState("request", "The request body is not valid JSON: \(reason)")
    }

    /// 400 for an invalid query option such as `$top`.
    static func invalidQuery(_ name: String, _ value: String) -> SaxoAPIError {
        invalidModelState(name, "Invalid \(name) query parameter value: \(value)")
    }

    /// 400 with a trading error code (order endpoints wrap it).
    static func trading(_ code: String, _ message: String) -> SaxoAPIError {
        SaxoAPIError(status: .badRequest, code: code, message: message)
    }

    static let unauthorized = SaxoAPIError(status: .unauthorized, code: "Unauthorized", message: "Unauthorized")

    static let rateLimited = SaxoAPIError(
        status: .tooManyRequests,
        code: "RateLimitExceeded",
        message: "Request rate limit exceeded. Wait for the time given in X-RateLimit-*-Reset."
    )

    static func notFound(_ message: String, code: String = "NotFound") -> SaxoAPIError {
        SaxoAPIError(status: .notFound, code: code, message: message)
    }

    static func orderNotFound(_ orderID: String) -> SaxoAPIError {
        SaxoAPIError(
            status: .notFound,
            code: "OrderNotFound",
            message: "Order \(orderID) was not found: it may have been filled, cancelled or never existed."
        )
    }

    /// 409 for an identical order request inside the duplicate window (the body is not documented by Saxo).
    static let duplicateOrder = SaxoAPIError(
        status: .conflict,
        code: "DuplicateOperation",
        message: "An identical request was received within the last 15 seconds. Send a unique X-Request-ID header to place it anyway."
    )

    /// The body for a bare status (fault injection, unmatched routes, framework errors).
    static func forStatus(_ status: Int) -> SaxoAPIError {
        let (code, message): (String, String) =
            switch status {
            case 400: ("InvalidRequest", "The request is invalid.")
            case 401: ("Unauthorized", "Unauthorized")
            case 403: ("Forbidden", "The app or user is not allowed to perform this request.")
            case 404: ("NotFound", "No resource was found that matches the request URI.")
            case 405: ("MethodNotAllowed", "The requested resource does not support this HTTP method.")
            case 409: ("Conflict", "The request conflicts with the current state.")
            case 413: ("RequestTooLarge", "The request body is too large.")
            case 429: ("RateLimitExceeded", "Request rate limit exceeded.")
            case 502: ("BadGateway", "Bad gateway.")
            case 503: ("ServiceUnavailable", "The service is temporarily unavailable.")
            case 504: ("GatewayTimeout", "The upstream service did not answer in time.")
            default: (400..<500).contains(status) ? ("InvalidRequest", "The request failed.") : ("InternalServerError", "An error occurred.")
            }
        return SaxoAPIError(status: .init(code: status), code: code, message: message)
    }
}

extension SaxoAPIError: SandboxWireError {
    func wireResponse() -> Response { render() }

    static func framework(status: HTTPResponse.Status, request: Request) -> SaxoAPIError { forStatus(Int(status.code)) }

    static var unexpected: SaxoAPIError { forStatus(500) }
}
