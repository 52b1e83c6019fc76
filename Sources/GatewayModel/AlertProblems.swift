/// Field problems of an alert input, as an error (so `checked` can be a `Result`).
public struct AlertProblems: Error, Sendable, Hashable {
    public var problems: [FieldProblem]
    public init(problems: [FieldProblem]) { self.problems = problems }
}
