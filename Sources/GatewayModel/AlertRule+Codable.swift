extension AlertRule: Codable {
    /// The flat wire form of `AlertRuleInput`.
    public var input: AlertRuleInput {
        switch self {
        case .price(let rule):
            AlertRuleInput(
                type: .price,
                instrument: rule.instrument,
                connectionId: rule.connectionId,
                condition: rule.condition,
                threshold: rule.threshold,
                windowSeconds: rule.windowSeconds
            )
        case .order(let rule):
            AlertRuleInput(type: .order, connectionId: rule.connectionId, on: rule.on, unknownForSeconds: rule.unknownForSeconds)
        }
    }

    /// Reads the flat wire form and checks it: a rule that is not valid is a decoding error that lists its problems.
    public init(from decoder: any Decoder) throws {
        let input = try AlertRuleInput(from: decoder)
        switch input.checked() {
        case .success(let rule): self = rule
        case .failure(let problems):
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: problems.problems.map(\.description).joined(separator: "; ")
                )
            )
        }
    }

    /// Writes the flat wire form, ``input``.
    public func encode(to encoder: any Encoder) throws {
        try input.encode(to: encoder)
    }
}
