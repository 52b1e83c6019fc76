import CoreMetrics
import Foundation
import GatewayCore
import HTTPTypes
import Hummingbird

/// Every request of the unified API: its id (the caller's `X-Request-ID` when it is a short safe token, else a new
/// one), set as the `RequestScope` task-local for the log lines and broker calls it causes and echoed in the answer;
/// and the HTTP server's metrics.
///
/// Metrics are labelled by method, the matched route's pattern (`/v1/orders/{id}`, never the id itself; `unmatched`
/// when no route matched) and status, so their label sets stay bounded whatever clients send.
struct ObservabilityMiddleware<Context: RequestContext>: RouterMiddleware {
    let factory: any MetricsFactory

    static var requestIDHeader: HTTPField.Name { HTTPField.Name("X-Request-ID")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let id = Self.acceptable(request.headers[Self.requestIDHeader]) ?? RandomIdentifier.prefixed("req_", byteCount: 8)
        let start = ContinuousClock.now
        let method = Self.method(request.method)
        do {
            var response = try await RequestScope.$requestId.withValue(id) { try await next(request, context) }
            response.headers[Self.requestIDHeader] = id
            record(method: method, route: context.endpointPath, status: response.status.code, since: start)
            return response
        } catch {
            // The error middleware outside this one answers; count it with the status it will give.
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(method: method, route: context.endpointPath, status: status, since: start)
            throw error
        }
    }

    private func record(method: String, route: String?, status: Int, since start: ContinuousClock.Instant) {
        let route = route ?? "unmatched"
        Counter(
            label: "brokergateway_http_requests_total",
            dimensions: [("method", method), ("route", route), ("status", String(status))],
            factory: factory
        ).increment()
        Timer(
            label: "brokergateway_http_request_duration_seconds",
            dimensions: [("method", method), ("route", route)],
            factory: factory
        ).recordNanoseconds(Self.nanoseconds(ContinuousClock.now - start))
    }

    /// A request id worth keeping: 1…64 characters of letters, digits, `-`, `_` and `.`.
    static func acceptable(_ value: String?) -> String? {
        guard let value, (1...64).contains(value.utf8.count),
            value.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 45 || $0 == 95 || $0 == 46 })
        else { return nil }
        return value
    }

    /// Standard methods by name; anything else as `other`, so a client cannot add label values.
    static func method(_ method: HTTPRequest.Method) -> String {
        switch method {
        case .get, .head, .post, .put, .patch, .delete, .options: method.rawValue
        default: "other"
        }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue + attoseconds / 1_000_000_000
    }
}
