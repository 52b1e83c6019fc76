public import Foundation

extension OrderRequest {
    /// The request as canonical JSON: keys sorted, decimals as text, times in milliseconds since 1970. Two requests
    /// with the same fields give the same bytes whatever order their fields came in, so an idempotency key's request
    /// digest is computed over this.
    ///
    /// Throws when the request cannot be encoded (a time that is not finite), so that a digest is never computed over
    /// nothing: a digest of empty data would match every other unencodable request and switch off the check that a
    /// retried key carries the same order.
    public func canonicalJSON() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return try encoder.encode(self)
    }
}
