import Foundation
public import GatewayCore
import GatewayModel
import Hummingbird
import Logging
import OpenAPIRuntime

/// How the unified API reports an error of the request itself:
/// `{"error":{"code":"…","message":"…","details":[{"field":"…","problem":"…"}],"requestId":"…"}}`.
struct ErrorBody: Encodable {
    struct Payload: Encodable {
        var code: String
        var message: String
        var details: [FieldProblem]?
        var broker: String?
        var retryable: Bool
        var retryAfter: Double?
        /// The order the error is about, where the journal keeps one (a placement the broker refused).
        var orderId: String?
        var requestId: String
    }
    var error: Payload
}

/// The API's own errors, the ones the HTTP layer raises before any service runs (the services' errors are
/// `GatewayError`s of their own).
public enum APIError {
    /// The request carries no credential, or one no tenant holds: a 401 that says how to authenticate.
    public static let unauthenticated = GatewayError(
        .unauthorized,
        "a valid API key is required: send 'Authorization: Bearer <key>'"
    )
    /// A body in a content type the document allows but the handler does not read (none today).
    static let unsupportedBody = GatewayError(
        .invalidRequest,
        "the body must be JSON (Content-Type: application/json)",
        details: [FieldProblem(field: "Content-Type", problem: "must be application/json")]
    )

    /// The error body's JSON.
    static func json(_ error: GatewayError, requestId: String) -> Data {
        let body = ErrorBody(
            error: .init(
                code: error.code.rawValue,
                message: error.message,
                details: error.details.isEmpty ? nil : error.details,
                broker: error.broker?.rawValue,
                retryable: error.retryable,
                retryAfter: error.retryAfter,
                orderId: error.orderId,
                requestId: requestId
            )
        )
        // Encoding cannot fail (strings, a bool and a finite bounded number); the fallback keeps the shape anyway.
        return (try? APIJSON.encoder().encode(body)) ?? Data(#"{"error":{"code":"internal","message":"error"}}"#.utf8)
    }

    static func render(_ error: GatewayError, requestId: String) -> Response {
        let data = json(error, requestId: requestId)
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let retryAfter = error.retryAfter {
            // Finite and bounded by construction (GatewayError.saneRetryAfter); `exactly` keeps it a non-trap anyway.
            headers[.retryAfter] = Int(exactly: retryAfter.rounded(.up)).map(String.init) ?? "86400"
        }
        if error.code == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        return Response(
            status: .init(code: error.code.httpStatus),
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

/// Renders every error as the API's JSON error body, so no client ever sees a bare 500 or HTML.
/// Errors that are neither `GatewayError` nor Hummingbird's HTTP errors are logged and answered as `internal`.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let document: OpenAPIDocument

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The observability middleware outside this one has set the request's id (echoed as `X-Request-ID`); an error
        // body names the same one.
        let requestId = RequestScope.requestId ?? context.logger[metadataKey: "hb.request.id"]?.description ?? RandomIdentifier.uuid()
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as GatewayError {
            if error.code == .internalError {
                context.logger.error("internal error", metadata: ["error": .string(error.message)])
            }
            response = APIError.render(error, requestId: requestId)
        } catch let error as ServerError {
            let translated = Self.translate(error, document: document)
            if translated.code == .internalError {
                context.logger.error("internal error", metadata: ["operation": .string(error.operationID), "error": .string(translated.message)])
            }
            response = APIError.render(translated, requestId: requestId)
        } catch let error as HTTPError {
            if error.status.code == 404, let allowed = document.allowedMethods(forPath: request.uri.path),
                !allowed.isEmpty
            {
                // A documented path asked with a method it does not have: 405 with the methods it has.
                response = APIError.render(
                    GatewayError(
                        .methodNotAllowed,
                        "\(request.method) is not allowed on \(request.uri.path); it allows \(allowed.joined(separator: ", "))"
                    ),
                    requestId: requestId
                )
                response.headers[.allow] = allowed.joined(separator: ", ")
            } else {
                response = APIError.render(Self.translate(error, request: request), requestId: requestId)
            }
        } catch let error as any HTTPResponseError {
            let status = Int(error.status.code)
            let code: GatewayError.Code =
                status == 404 ? .notFound : status == 413 ? .payloadTooLarge : status < 500 ? .invalidRequest : .internalError
            response = APIError.render(GatewayError(code, error.status.reasonPhrase), requestId: requestId)
        } catch is CancellationError {
            response = APIError.render(GatewayError(.upstreamTimeout, "the request was cancelled"), requestId: requestId)
        } catch {
            context.logger.error("unexpected error", metadata: ["error": .string(String(describing: type(of: error)))])
            response = APIError.render(GatewayError(.internalError, "unexpected error"), requestId: requestId)
        }
        response.headers[.init("X-Request-ID")!] = requestId
        return response
    }

    /// What the generated server reports: a handler's own `GatewayError`, a body or parameter that did not decode
    /// (named by its field), or a request the document does not allow (missing parameter, wrong content type).
    static func translate(_ error: ServerError, document: OpenAPIDocument) -> GatewayError {
        switch error.underlyingError {
        case let gatewayError as GatewayError:
            return gatewayError
        case let decodingError as DecodingError:
            // A decimal that reads but that `Decimal` cannot hold exactly breaks a rule (never rounded): 422.
            if case .dataCorrupted(let context) = decodingError, case .inexact(let problem)? = context.underlyingError as? DecimalText.Refusal {
                let (_, details) = APIJSON.problems(from: decodingError)
                let field = details.first?.field ?? "body"
                return GatewayError.unprocessable([FieldProblem(field: field, problem: problem)])
            }
            // A query parameter that did not decode comes without its name: the document says which one it was.
            if error.operationInput == nil, let query = error.request.path?.split(separator: "?", maxSplits: 1).dropFirst().first,
                let problem = document.queryProblem(operationID: error.operationID, query: query)
            {
                return GatewayError(.invalidRequest, problem.description, details: [problem])
            }
            let (message, details) = APIJSON.problems(from: decodingError)
            return GatewayError(.invalidRequest, message, details: details)
        case is CancellationError:
            return GatewayError(.upstreamTimeout, "the request was cancelled")
        default:
            break
        }
        let status = Int(error.httpStatus.code)
        if status == 415 {
            return GatewayError(
                .invalidRequest,
                "the body must be JSON (Content-Type: application/json)",
                details: [FieldProblem(field: "Content-Type", problem: "must be application/json")]
            )
        }
        guard (400..<500).contains(status) else {
            return GatewayError(.internalError, "unexpected error")
        }
        // The runtime names a missing parameter as "… named: <name>" or "… named '<name>' …".
        let cause = error.causeDescription
        var details: [FieldProblem] = []
        if let range = cause.range(of: "named: ") {
            details = [FieldProblem(field: String(cause[range.upperBound...]), problem: "is required")]
        } else if let start = cause.range(of: "named '"), let end = cause[start.upperBound...].firstIndex(of: "'") {
            details = [FieldProblem(field: String(cause[start.upperBound..<end]), problem: "is required")]
        }
        return GatewayError(.invalidRequest, details.isEmpty ? cause : "\(details[0].field) is required", details: details)
    }

    static func translate(_ error: HTTPError, request: Request) -> GatewayError {
        switch error.status.code {
        case 404: GatewayError(.notFound, "no route for \(request.method) \(request.uri.path)")
        case 405: GatewayError(.methodNotAllowed, "\(request.method) is not allowed on \(request.uri.path)")
        case 413: GatewayError(.payloadTooLarge, "the body is larger than the limit")
        case 400..<500: GatewayError(.invalidRequest, error.body ?? error.status.reasonPhrase)
        default: GatewayError(.internalError, "unexpected error")
        }
    }
}
