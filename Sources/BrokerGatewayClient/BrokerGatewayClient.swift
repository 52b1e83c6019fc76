public import Foundation
public import GatewayModel
public import HTTPTypes
public import OpenAPIRuntime

#if canImport(OpenAPIURLSession)
import OpenAPIURLSession
#else
import OpenAPIAsyncHTTPClient
#endif

/// A Swift client of BrokerGateway's unified API, for the app backends and iOS apps that use the gateway.
///
/// The transport, the operations and every wire type are generated from the gateway's own OpenAPI document (the
/// one the server is generated from), with the canonical model types (`Position`, `Order`, …) where the document
/// names them. This type curates the everyday calls; `raw` reaches every operation of the document.
public struct BrokerGatewayClient: Sendable {
    /// The generated client: one method per operation of the document.
    public let raw: Client

    /// - Parameters:
    ///   - serverURL: The gateway, e.g. `http://127.0.0.1:8080`.
    ///   - apiKey: A tenant API key (or an end user's access token), sent as `Authorization: Bearer <key>`.
    ///   - userId: The user every request acts for (`X-User-ID`), for a key that is not bound to one user.
    ///   - transport: How requests travel; by default AsyncHTTPClient on Linux and URLSession on Apple platforms.
    public init(serverURL: URL, apiKey: String, actingFor userId: String? = nil, transport: (any ClientTransport)? = nil) {
        #if canImport(OpenAPIURLSession)
        let defaultTransport = URLSessionTransport()
        #else
        let defaultTransport = AsyncHTTPClientTransport()
        #endif
        raw = Client(
            serverURL: serverURL,
            configuration: Configuration(dateTranscoder: Timestamps()),
            transport: transport ?? defaultTransport,
            middlewares: [BearerAuthentication(apiKey: apiKey, userId: userId)]
        )
    }

    /// Net positions across every linked broker, with a line per broker saying whether it answered.
    public func positions(connection: String? = nil, account: String? = nil) async throws -> FanOutAnswer<Position> {
        switch try await raw.listPositions(query: .init(connection: connection, account: account)) {
        case .ok(let ok):
            let body = try ok.body.json
            return FanOutAnswer(data: body.data, sources: body.sources.map(SourceLine.init), partial: body.partial)
        case .default(let statusCode, let answer):
            throw BrokerGatewayError(statusCode: statusCode, body: try? answer.body.json)
        }
    }

    /// Accounts across every linked broker.
    public func accounts(connection: String? = nil) async throws -> FanOutAnswer<Account> {
        switch try await raw.listAccounts(query: .init(connection: connection)) {
        case .ok(let ok):
            let body = try ok.body.json
            return FanOutAnswer(data: body.data, sources: body.sources.map(SourceLine.init), partial: body.partial)
        case .default(let statusCode, let answer):
            throw BrokerGatewayError(statusCode: statusCode, body: try? answer.body.json)
        }
    }

    /// Places an order at most once for `idempotencyKey`: repeat the call with the same key after any failure
    /// and the gateway answers with the first outcome instead of placing it again.
    public func placeOrder(_ request: OrderRequest, idempotencyKey: String) async throws -> Placement {
        switch try await raw.placeOrder(headers: .init(idempotencyKey: idempotencyKey), body: .json(request)) {
        case .created(let created):
            return Placement(order: try created.body.json.data, outcomeKnown: true, replayed: created.headers.idempotentReplayed != nil)
        case .accepted(let accepted):
            return Placement(order: try accepted.body.json.data, outcomeKnown: false, replayed: accepted.headers.idempotentReplayed != nil)
        case .default(let statusCode, let answer):
            throw BrokerGatewayError(statusCode: statusCode, body: try? answer.body.json)
        }
    }

    /// One order by its gateway id, brought up to date from its broker.
    public func order(id: String) async throws -> Order {
        switch try await raw.getOrder(path: .init(id: id)) {
        case .ok(let ok): return try ok.body.json.data
        case .default(let statusCode, let answer): throw BrokerGatewayError(statusCode: statusCode, body: try? answer.body.json)
        }
    }

    /// Cancels a working order.
    public func cancelOrder(id: String) async throws -> Order {
        switch try await raw.cancelOrder(path: .init(id: id)) {
        case .ok(let ok): return try ok.body.json.data
        case .default(let statusCode, let answer): throw BrokerGatewayError(statusCode: statusCode, body: try? answer.body.json)
        }
    }
}

/// A fan-out read's answer: what arrived, and a line per broker connection.
public struct FanOutAnswer<Item: Sendable>: Sendable {
    /// Every item that arrived in time, grouped by connection.
    public var data: [Item]
    /// One line per connection asked, failed ones included, so an app can say which broker is missing.
    public var sources: [SourceLine]
    /// True when any broker failed or was too slow: `data` lacks its part.
    public var partial: Bool
}

/// How one broker connection did in a fan-out read.
public struct SourceLine: Sendable, Hashable {
    /// The connection's id (`conn_…`).
    public var connection: String
    /// The connection's broker.
    public var broker: BrokerKind
    /// Whether the connection answered; when false, `data` has nothing from it.
    public var ok: Bool
    /// How long the connection took, in milliseconds.
    public var latencyMs: Int
    /// The API's error code when the connection failed (`upstream_timeout`, `unauthorized`, …); `nil` when `ok`.
    public var errorCode: String?
    /// The gateway's explanation of the failure, safe to show a user; `nil` when `ok`.
    public var errorMessage: String?

    init(_ report: Components.Schemas.SourceReport) {
        connection = report.connection
        broker = report.broker
        ok = report.status == .ok
        latencyMs = report.latencyMs
        errorCode = report.error?.code
        errorMessage = report.error?.message
    }
}

/// The answer to a placement.
public struct Placement: Sendable, Hashable {
    /// The order the placement made, under the gateway's `id`, which ``BrokerGatewayClient/order(id:)`` reads again.
    public var order: Order
    /// False when the gateway could not learn whether the broker took the order (HTTP 202): read it again later,
    /// never place it again.
    public var outcomeKnown: Bool
    /// True when this answer repeats an earlier request with the same idempotency key.
    public var replayed: Bool
}

/// An error answer of the gateway: its HTTP status and the API's error code, message and field problems.
public struct BrokerGatewayError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status (400, 401, 404, 409, 422, 429, 503, …).
    public var statusCode: Int
    /// The API's error code (`invalid_request`, `rate_limited`, …); `nil` when the body was not the API's error.
    public var code: String?
    /// The gateway's message, safe to show a user; `nil` when the body was not the API's error.
    public var message: String?
    /// The fields at fault and what is wrong with each, for 400 and 422 answers; empty otherwise.
    public var details: [FieldProblem]

    init(statusCode: Int, body: Components.Schemas._Error?) {
        self.statusCode = statusCode
        code = body?.error.code
        message = body?.error.message
        details = body?.error.details ?? []
    }

    /// Status, code, message and field problems in one line, for logs.
    public var description: String {
        "BrokerGateway answered \(statusCode) \(code ?? "?"): \(message ?? "no message")"
            + (details.isEmpty ? "" : " (" + details.map(\.description).joined(separator: "; ") + ")")
    }
}

/// Sends the API key on every request, and the user it acts for, unless the request names one itself.
struct BearerAuthentication: ClientMiddleware {
    static let userHeader = HTTPField.Name("X-User-ID")!
    let apiKey: String
    let userId: String?

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(apiKey)"
        if let userId, request.headerFields[Self.userHeader] == nil { request.headerFields[Self.userHeader] = userId }
        return try await next(request, body, baseURL)
    }
}

/// The gateway's timestamps: RFC 3339, with or without fractional seconds.
struct Timestamps: DateTranscoder {
    func encode(_ date: Date) throws -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    func decode(_ text: String) throws -> Date {
        if let date = RFC3339Timestamp.parse(text) { return date }
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "'\(text)' is not an RFC 3339 timestamp"))
    }
}
