import Foundation
public import GatewayCore
import GatewayModel
public import Hummingbird

/// `{"data": …}`: a single resource or a list that comes from the gateway alone.
struct DataEnvelope<Value: Encodable>: Encodable {
    var data: Value
}

/// `{"data":[…], "sources":[…], "partial":…}`: a fan-out read.
struct FanOutEnvelope<Item: Encodable & Sendable>: Encodable {
    var data: [Item]
    var sources: [SourceReport]
    var partial: Bool

    init(_ fanOut: FanOut<Item>) {
        data = fanOut.data
        sources = fanOut.sources
        partial = fanOut.partial
    }
}

/// Reading requests and writing responses the same way on every route.
public struct HTTPBodies: Sendable {
    /// The largest request body the API reads.
    public var maxBodyBytes: Int

    public init(maxBodyBytes: Int = 64 * 1024) {
        self.maxBodyBytes = maxBodyBytes
    }

    /// Decodes a JSON body, turning every failure into a 400/413 with the field at fault.
    func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: maxBodyBytes)
        } catch {
            throw GatewayError(.payloadTooLarge, "the body is larger than \(maxBodyBytes) bytes")
        }
        if buffer.readableBytes == 0 {
            throw GatewayError.invalid("body", "is required (a JSON object)")
        }
        if let contentType = request.headers[.contentType], !contentType.lowercased().contains("json") {
            throw GatewayError(
                .invalidRequest, "the body must be JSON (Content-Type: application/json)",
                details: [FieldProblem(field: "Content-Type", problem: "must be application/json")])
        }
        do {
            return try APIJSON.decoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            let (message, details) = APIJSON.problems(from: error)
            throw GatewayError(.invalidRequest, message, details: details)
        } catch let error as GatewayError {
            throw error
        } catch {
            throw GatewayError.invalid("body", "is not valid JSON")
        }
    }

    func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try APIJSON.encoder().encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Query-string parameters, validated.
struct QueryReader {
    let parameters: [String: String]

    init(_ request: Request) {
        var parameters: [String: String] = [:]
        for (key, value) in request.uri.queryParameters {
            parameters[String(key)] = String(value).removingPercentEncoding ?? String(value)
        }
        self.parameters = parameters
    }

    func string(_ name: String, maxLength: Int = 128) throws -> String? {
        guard let value = parameters[name] else { return nil }
        if value.isEmpty { throw GatewayError.invalid(name, "must not be empty") }
        if value.count > maxLength { throw GatewayError.invalid(name, "must be at most \(maxLength) characters") }
        return value
    }

    func int(_ name: String, range: ClosedRange<Int>) throws -> Int? {
        guard let text = try string(name, maxLength: 12) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw GatewayError.invalid(name, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    func wireEnum<E: WireEnum>(_ name: String, _ type: E.Type) throws -> E? {
        guard let text = try string(name, maxLength: 64) else { return nil }
        guard let value = E(rawValue: text) else { throw GatewayError.invalid(name, "must be one of: \(E.allowedValues)") }
        return value
    }

    func date(_ name: String) throws -> Date? {
        guard let text = try string(name, maxLength: 40) else { return nil }
        guard let date = APIJSON.parseTimestamp(text) else {
            throw GatewayError.invalid(name, "must be an RFC 3339 timestamp such as 2026-01-31T15:04:05Z")
        }
        return date
    }

    /// A comma-separated list of symbols.
    func symbols(_ name: String, maxCount: Int = 50) throws -> [String]? {
        guard let text = try string(name, maxLength: 2048) else { return nil }
        let symbols = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if symbols.isEmpty { throw GatewayError.invalid(name, "must name at least one symbol") }
        if symbols.count > maxCount { throw GatewayError.invalid(name, "must name at most \(maxCount) symbols") }
        if let bad = symbols.first(where: { $0.count > 32 || !$0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "./-_:".contains($0)) } }) {
            throw GatewayError.invalid(name, "has an invalid symbol '\(bad.prefix(32))'")
        }
        return symbols
    }
}
