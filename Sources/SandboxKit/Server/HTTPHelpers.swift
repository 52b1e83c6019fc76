import Foundation
public import Hummingbird
public import NIOCore

extension Response {
    /// A JSON response with the given body.
    public static func json(_ value: JSON, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=UTF-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: value.serializedBytes)))
    }
}

/// Query parameters decoded the way HTML forms and Python's `requests` encode them (`+` is a space).
public struct QueryParameters: Sendable {
    /// Every parameter, decoded, in the order written; a name may repeat (`symbols=A&symbols=B`), and `flag` without `=`
    /// has the value "".
    public private(set) var items: [(name: String, value: String)] = []

    /// Decodes a query string or an `application/x-www-form-urlencoded` body (without the `?`); nil or "" has no items.
    public init(_ query: String?) {
        guard let query, !query.isEmpty else { return }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            items.append((name, value))
        }
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// The first value of `name`, nil when absent.
    public subscript(_ name: String) -> String? {
        items.first(where: { $0.name == name })?.value
    }

    /// Whether `name` is present at all, even with an empty value.
    public func contains(_ name: String) -> Bool { items.contains { $0.name == name } }
}

extension Request {
    /// The URI's query, decoded as a form would encode it.
    public var queryParameters: QueryParameters { QueryParameters(uri.query) }

    /// The whole body, up to the context's upload limit (a larger one is refused with 413).
    public func body(in context: SandboxRequestContext) async throws -> ByteBuffer {
        var request = self
        return try await request.collectBody(upTo: context.maxUploadSize)
    }
}

extension SandboxRequestContext {
    /// A path parameter, percent-decoded.
    public func pathParameter(_ name: String) -> String? {
        guard let raw = parameters.get(name) else { return nil }
        return raw.removingPercentEncoding ?? raw
    }
}

/// Header names more than one simulator uses (`HTTPField` itself is not re-exported by Hummingbird); each broker
/// adds its own in an extension.
public enum HeaderName {
    /// A header field name (`HTTPField.Name`), for a simulator's own `static let`s: `Name("APCA-API-KEY-ID")!`.
    public typealias Name = HTTPFields.Element.Name
    /// `X-Request-ID`, the request id a broker echoes or assigns.
    public static let requestID = Name("X-Request-ID")!
}
