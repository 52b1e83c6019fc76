public import AsyncHTTPClient
import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1

/// `BrokerTransport` over one shared AsyncHTTPClient (pooled connections), with a deadline and a response-size
/// limit on every call.
public struct HTTPClientTransport: BrokerTransport {
    let client: HTTPClient

    public init(client: HTTPClient) {
        self.client = client
    }

    public func send(_ request: BrokerRequest) async throws -> BrokerResponse {
        var prepared = HTTPClientRequest(url: request.url)
        prepared.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headers { prepared.headers.add(name: field.name.rawName, value: field.value) }
        if let body = request.body { prepared.body = .bytes(ByteBuffer(bytes: body)) }
        let outbound = prepared
        let limit = request.maxResponseBytes
        let host = URL(string: request.url)?.host ?? "broker"
        do {
            return try await withDeadline(request.timeout) {
                let response = try await client.execute(outbound, deadline: .now() + .nanoseconds(request.timeout.nanoseconds))
                let buffer = try await response.body.collect(upTo: limit)
                return BrokerResponse(
                    status: Int(response.status.code),
                    headers: HTTPFields(pairs: response.headers.map { (name: $0.name, value: $0.value) }),
                    body: Data(buffer.readableBytesView))
            }
        } catch let error as GatewayError {
            throw error
        } catch is NIOTooManyBytesError {
            throw GatewayError(.malformedResponse, "\(host) sent a response larger than \(limit) bytes")
        } catch let error as HTTPClientError {
            if [.deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout].contains(error) {
                throw GatewayError(.upstreamTimeout, "\(host) did not answer within \(request.timeout)")
            }
            if error == .cancelled { throw CancellationError() }
            if [.invalidURL, .emptyHost, .emptyScheme].contains(error) {
                throw GatewayError(.invalidRequest, "the broker URL \(host) is not usable", retryable: false)
            }
            throw GatewayError(.upstreamUnavailable, "\(host) could not be reached (\(error.shortDescription))")
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw GatewayError(.upstreamUnavailable, "\(host) could not be reached (\(type(of: error)))")
        }
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Whole milliseconds, for reporting.
    public var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
