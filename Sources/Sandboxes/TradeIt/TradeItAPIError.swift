import Hummingbird
import SandboxKit

/// A TradeIt business error: HTTP 200 (the iOS SDK treats any other status as a transport failure) with
/// `{"status":"ERROR","code":600,"shortMessage":"...","longMessages":["..."],"token":null}`.
///
/// The codes are TradeIt's own (JavaApi `TradeItErrorCode`, TradeItIosTicketSDK2 `TradeItErrorCode`): 100 SYSTEM_ERROR,
/// 101 CONCURRENT_AUTHENTICATION_ERROR, 200 BROKER_EXECUTION_ERROR, 300 BROKER_AUTHENTICATION_ERROR,
/// 301 TOO_MANY_LOGIN_ATTEMPTS, 400 BROKER_ACCOUNT_ERROR, 500 PARAMETER_ERROR, 600 SESSION_EXPIRED,
/// 700 TOKEN_INVALID_OR_EXPIRED, 800 BROKER_ACCOUNT_NOT_AVAILABLE.
struct TradeItAPIError: Error, HTTPResponseError, Sendable {
    var code: Int
    var shortMessage: String
    var longMessages: [String]
    /// 200 for business errors; 400 only for a body that is not JSON at all.
    var httpStatus: HTTPResponse.Status = .ok

    var status: HTTPResponse.Status { httpStatus }

    var body: JSON {
        [
            "status": "ERROR",
            "code": .int(code),
            "shortMessage": .string(shortMessage),
            "longMessages": .array(longMessages.map(JSON.string)),
            "token": nil,
        ]
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        .json(body, status: httpStatus)
    }

    static func parameter(_ message: String) -> TradeItAPIError {
        TradeItAPIError(code: 500, shortMessage: "Invalid parameter", longMessages: [message])
    }

    static let notJSON = TradeItAPIError(
        code: 500,
        shortMessage: "Invalid request",
        longMessages: ["The request body must be a JSON object."],
        httpStatus: .badRequest
    )

    static let sessionExpired = TradeItAPIError(
        code: 600,
        shortMessage: "Session Expired",
        longMessages: ["Your session has expired. Please try again."]
    )

    static let tokenExpired = TradeItAPIError(
        code: 700,
        shortMessage: "Token invalid or expired",
        longMessages: ["Your broker login has expired. Please relink your account."]
    )

    static let invalidAPIKey = TradeItAPIError(
        code: 300,
        shortMessage: "Invalid API key",
        longMessages: ["The API key is not valid."]
    )

    static func brokerAuthentication(_ message: String) -> TradeItAPIError {
        TradeItAPIError(code: 300, shortMessage: "Could Not Login", longMessages: [message])
    }

    static func execution(_ message: String) -> TradeItAPIError {
        TradeItAPIError(code: 200, shortMessage: "Could Not Complete Your Order", longMessages: [message])
    }

    static func system(_ message: String) -> TradeItAPIError {
        TradeItAPIError(code: 100, shortMessage: "System Error", longMessages: [message])
    }
}

extension TradeItAPIError: SandboxWireError {
    func wireResponse() -> Response { .json(body, status: httpStatus) }

    static func framework(status: HTTPResponse.Status, request: Request) -> TradeItAPIError {
        var error =
            status == .notFound
            ? parameter("No such endpoint: \(request.method) \(request.uri.path)") : system("HTTP \(status.code)")
        error.httpStatus = status
        return error
    }

    static var unexpected: TradeItAPIError {
        var error = system("Internal error.")
        error.httpStatus = .internalServerError
        return error
    }
}
