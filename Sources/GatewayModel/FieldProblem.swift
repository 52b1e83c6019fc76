/// One thing wrong with one field of a request.
public struct FieldProblem: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The field, as a path where it is nested (`allocations[1].quantity`, `channels.webhook.url`), or `body` for the
    /// body as a whole.
    public var field: String
    /// What is wrong with it, in words a client developer can act on (`must be greater than 0`).
    public var problem: String

    /// A problem of `field`.
    public init(field: String, problem: String) {
        self.field = field
        self.problem = problem
    }

    /// `field: problem`, as messages join them.
    public var description: String { "\(field): \(problem)" }
}
