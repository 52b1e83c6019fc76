/// Saxo's error body: `{"ErrorCode": "InvalidModelState", "Message": "…", "ModelState": {"Field": ["…"]}}`.
/// Order endpoints may wrap it as `{"ErrorInfo": {"ErrorCode", "Message"}}`, or report per leg in
/// `{"Orders": [{"ErrorInfo": …}]}`.
struct SaxoErrorBody: Decodable, Sendable {
    var errorCode: String?
    var message: String?
    var modelState: [String: [String]]?
    var errorInfo: SaxoErrorInfo?
    var orders: [SaxoOrderResponse]?

    enum CodingKeys: String, CodingKey {
        case errorCode = "ErrorCode"
        case message = "Message"
        case modelState = "ModelState"
        case errorInfo = "ErrorInfo"
        case orders = "Orders"
    }

    /// The innermost error: a wrapped `ErrorInfo`, else the first failing leg, else the body itself.
    var effective: SaxoErrorInfo {
        if let errorInfo { return errorInfo }
        if errorCode == nil, message == nil, let leg = orders?.compactMap(\.errorInfo).first { return leg }
        return SaxoErrorInfo(errorCode: errorCode, message: message, modelState: modelState)
    }
}

struct SaxoErrorInfo: Decodable, Sendable {
    var errorCode: String?
    var message: String?
    var modelState: [String: [String]]?

    enum CodingKeys: String, CodingKey {
        case errorCode = "ErrorCode"
        case message = "Message"
        case modelState = "ModelState"
    }

    init(errorCode: String?, message: String?, modelState: [String: [String]]? = nil) {
        self.errorCode = errorCode
        self.message = message
        self.modelState = modelState
    }
}
