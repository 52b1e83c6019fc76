/// Field problems of an alert input, as an error (so `checked` can be a `Result`).
public struct AlertProblems: Error, Sendable, Hashable {
    /// What is wrong, field by field, each field under the rule's path (`rule.threshold`).
    public var problems: [FieldProblem]
    /// The problems of one input.
    public init(problems: [FieldProblem]) { self.problems = problems }
}
