/// One thing wrong with one field of a request.
public struct FieldProblem: Codable, Sendable, Hashable, CustomStringConvertible {
    public var field: String
    public var problem: String

    public init(field: String, problem: String) {
        self.field = field
        self.problem = problem
    }

    public var description: String { "\(field): \(problem)" }
}
