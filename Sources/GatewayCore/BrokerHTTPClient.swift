public import Foundation
public import GatewayModel
import HTTPTypes
public import Logging

/// The one way an adapter calls its broker: every call of every adapter passes through ``exchange(_:)``, which
/// sets the common headers, picks the deadline and the body limit, sends through the `BrokerTransport` (in
/// production the connection's `BrokerPipeline` chain, which logs, measures, paces, retries reads and breaks the
/// circuit), and tags transport failures with the broker.
///
/// What differs between brokers comes in as values: the read and write timeouts, the error table (a non-2xx
/// response → `GatewayError`) and the wording of `malformed_response`. The adapter keeps its own authentication,
/// URLs and error table, and nothing else about HTTP.
public struct BrokerHTTPClient: Sendable {
    /// The broker every transport failure is tagged with (`GatewayError.broker`), so a source line names it.
    public var broker: BrokerKind
    /// Where calls go: the connection's `BrokerPipeline` chain in production, a replay transport in contract tests.
    public var transport: any BrokerTransport
    /// The adapter's logger (the connection and broker as metadata), for what the adapter logs itself; each call's
    /// log line comes from the pipeline.
    public var logger: Logger
    /// The deadline of a call that does not write (`BrokerCall.isWrite` false), unless the call sets its own.
    public var readTimeout: Duration
    /// The deadline of a write (placement, change, cancel), unless the call sets its own; usually longer than
    /// `readTimeout`, since a write cut short leaves its outcome unknown.
    public var writeTimeout: Duration
    /// The broker's error table: the error for a response whose status is not 2xx.
    public var errorTable: @Sendable (_ response: BrokerResponse, _ call: BrokerCall) -> GatewayError
    /// The broker's `malformed_response` for a body that did not decode (`what` names the call or the part read).
    public var malformed: @Sendable (_ error: any Error, _ what: String) -> GatewayError
    /// A response header worth logging with each call (Saxo's `X-Correlation`, which Saxo's support asks for); the
    /// pipeline logs it.
    public var correlationHeader: String?
    /// Signs calls whose credentials change (an OAuth access token); `nil` where the adapter's headers suffice.
    public var authenticator: (any BrokerAuthenticator)?

    /// A client with the broker's timeouts, error table and `malformed_response` wording; an adapter makes one per
    /// connection from its `AdapterContext`.
    public init(
        broker: BrokerKind,
        transport: any BrokerTransport,
        logger: Logger,
        readTimeout: Duration,
        writeTimeout: Duration,
        correlationHeader: String? = nil,
        authenticator: (any BrokerAuthenticator)? = nil,
        errorTable: @escaping @Sendable (_ response: BrokerResponse, _ call: BrokerCall) -> GatewayError,
        malformed: @escaping @Sendable (_ error: any Error, _ what: String) -> GatewayError
    ) {
        self.broker = broker
        self.transport = transport
        self.logger = logger
        self.readTimeout = readTimeout
        self.writeTimeout = writeTimeout
        self.correlationHeader = correlationHeader
        self.authenticator = authenticator
        self.errorTable = errorTable
        self.malformed = malformed
    }

    /// Sends one call and returns the response whatever its status. Transport failures come back as `GatewayError`
    /// tagged with the broker. With an authenticator, the call is signed first, and a 401 gets one re-signing and
    /// one retry when the authenticator has fresh credentials (a 401 means the broker did not act on the call).
    public func exchange(_ call: BrokerCall) async throws -> BrokerResponse {
        guard let authenticator else { return try await exchangeOnce(call) }
        var call = call
        try await authenticator.sign(&call)
        let first = try await exchangeOnce(call)
        guard first.status == 401, try await authenticator.signAgain(&call, after: first) else { return first }
        return try await exchangeOnce(call)
    }

    func exchangeOnce(_ call: BrokerCall) async throws -> BrokerResponse {
        do {
            return try await transport.send(request(for: call))
        } catch var error as GatewayError {
            error.broker = error.broker ?? broker
            throw error
        }
    }

    /// Sends one call and fails with the error table's verdict unless the status is 2xx.
    public func send(_ call: BrokerCall) async throws -> BrokerResponse {
        let response = try await exchange(call)
        guard (200..<300).contains(response.status) else { throw errorTable(response, call) }
        return response
    }

    /// Sends one call and decodes its 2xx body.
    public func fetch<T: Decodable>(_ type: T.Type, _ call: BrokerCall) async throws -> T {
        let response = try await send(call)
        return try decode(type, from: response.body, what: call.loggedPath)
    }

    /// Decodes a body, or fails with the broker's `malformed_response` (which never quotes the payload).
    public func decode<T: Decodable>(_ type: T.Type, from body: Data, what: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch {
            throw malformed(error, what)
        }
    }

    /// The transport's request for a call: `Accept: application/json`, the body's `Content-Type`, then the call's
    /// own headers; the call's timeout, else the read or write timeout.
    public func request(for call: BrokerCall) -> BrokerRequest {
        var headers: HTTPFields = [.accept: "application/json"]
        if call.body != nil { headers.set("Content-Type", call.contentType) }
        headers.append(contentsOf: call.headers)
        return BrokerRequest(
            method: call.method,
            url: call.url,
            headers: headers,
            body: call.body,
            timeout: call.timeout ?? (call.isWrite ? writeTimeout : readTimeout),
            maxResponseBytes: call.maxResponseBytes ?? BrokerRequest.defaultMaxResponseBytes,
            loggedPath: call.loggedPath,
            idempotent: !call.isWrite
        )
    }

    /// A JSON body as brokers are sent it: keys sorted (stable bodies for contract cases), slashes unescaped.
    public static func json(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}

/// Signs calls with credentials that change (an OAuth access token), in the manner of ccxt's `sign`.
public protocol BrokerAuthenticator: Sendable {
    /// Adds the current credentials to a call.
    func sign(_ call: inout BrokerCall) async throws
    /// After the broker answered 401 to a signed call: re-signs it with fresh credentials and returns `true` to send it
    /// once more, or returns `false` to let the 401 stand.
    func signAgain(_ call: inout BrokerCall, after response: BrokerResponse) async throws -> Bool
}
