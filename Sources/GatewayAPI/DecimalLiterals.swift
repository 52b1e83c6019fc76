import Foundation
import GatewayCore
import GatewayModel
import HTTPTypes
import OpenAPIRuntime

/// Refuses a body whose decimals, written as JSON numbers, `Decimal` would not hold exactly, before the generated
/// server decodes it: 422 `unprocessable` naming the field, where the JSON reader would have rounded the number
/// without a word. Decimals written as strings are checked by the model's own decoding (``DecimalText``), and each
/// field's bounds by the application (``DecimalBounds``).
struct DecimalLiterals: ServerMiddleware {
    /// The operations whose request bodies hold decimals (`DecimalInput` in the document; a test keeps this in step).
    static let operationIDs: Set<String> = ["placeOrder", "previewOrder", "modifyOrder", "createGoal", "updateGoal", "createAlert", "updateAlert"]

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard Self.operationIDs.contains(operationID), let body else { return try await next(request, body, metadata) }
        // The body was collected within the API's body limit before it got here (`BodyLimitMiddleware`).
        let data = try await Data(collecting: body, upTo: .max)
        let problems = Self.problems(in: data)
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        return try await next(request, HTTPBody(data), metadata)
    }

    /// A field problem for each number literal that `Decimal` cannot hold exactly. Literals that are not plain
    /// decimals at all are left to the decoder, which refuses what is not JSON.
    static func problems(in json: Data) -> [FieldProblem] {
        JSONNumberLiterals.all(in: json).compactMap { literal in
            guard case .failure(.inexact(let problem)) = DecimalText.read(literal.text) else { return nil }
            return FieldProblem(field: literal.path, problem: problem)
        }
    }
}
