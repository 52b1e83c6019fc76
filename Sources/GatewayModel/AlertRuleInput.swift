public import Foundation

/// A rule on the wire: one flat object whose `type` says which fields apply. Decoding never fails on a missing or
/// misplaced field (that is a rule of the request, a 422 from `AlertInput.problems`); only an unknown field, a
/// wrong type or an unknown enum value is a decoding error.
public struct AlertRuleInput: Codable, Sendable, Hashable {
    /// Which kind of rule: it decides which of the other fields apply.
    public var type: AlertRuleType
    /// Price rules: the instrument watched (symbol, and asset class when ambiguous).
    public var instrument: InstrumentReference?
    /// Watch only this connection (one of the user's); `nil` for all of the user's connections.
    public var connectionId: String?
    /// Price rules: `above`, `below` or `percent_move`.
    public var condition: AlertCondition?
    /// Price rules: the price to cross (greater than 0, within ``DecimalBounds/price``), or for `percent_move` the
    /// percent (greater than 0, at most ``maximumPercent``).
    @OptionalDecimalString public var threshold: Decimal?
    /// `percent_move` only: how far back, in seconds, the prices compared reach (``windowSecondsRange``).
    public var windowSeconds: Int?
    /// Order rules: which outcome fires the alert.
    public var on: AlertOrderEvent?
    /// Order rules on `unknown` only: how many seconds an order's outcome may stay unknown before the alert fires
    /// (``unknownForSecondsRange``).
    public var unknownForSeconds: Int?

    /// A rule as a client writes it; ``checked(field:)`` says whether it is valid.
    public init(
        type: AlertRuleType,
        instrument: InstrumentReference? = nil,
        connectionId: String? = nil,
        condition: AlertCondition? = nil,
        threshold: Decimal? = nil,
        windowSeconds: Int? = nil,
        on: AlertOrderEvent? = nil,
        unknownForSeconds: Int? = nil
    ) {
        self.type = type
        self.instrument = instrument
        self.connectionId = connectionId
        self.condition = condition
        self.threshold = threshold
        self.windowSeconds = windowSeconds
        self.on = on
        self.unknownForSeconds = unknownForSeconds
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case type, instrument, connectionId, condition, threshold, windowSeconds, on, unknownForSeconds
    }

    /// Hand-written to refuse unknown fields (``StrictKeys``); the encoding is synthesized.
    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownKeysIn: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = try c.decode(AlertRuleType.self, forKey: .type)
        instrument = try c.decodeIfPresent(InstrumentReference.self, forKey: .instrument)
        connectionId = try c.decodeIfPresent(String.self, forKey: .connectionId)
        condition = try c.decodeIfPresent(AlertCondition.self, forKey: .condition)
        threshold = try c.decodeDecimalIfPresent(forKey: .threshold)
        windowSeconds = try c.decodeIfPresent(Int.self, forKey: .windowSeconds)
        on = try c.decodeIfPresent(AlertOrderEvent.self, forKey: .on)
        unknownForSeconds = try c.decodeIfPresent(Int.self, forKey: .unknownForSeconds)
    }

    /// The longest `percent_move` window: a day.
    public static let windowSecondsRange = 1...86_400
    /// The longest an order may stay unknown before an `unknown` alert fires: a day.
    public static let unknownForSecondsRange = 1...86_400
    /// Percent thresholds: above 0, at most 1000.
    public static let maximumPercent: Decimal = 1000

    /// 1 to 32 of `A-Z a-z 0-9 . / : _ -`, as every symbol the API takes.
    static func isSymbol(_ text: String) -> Bool {
        (1...32).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || Array("./:_-".utf8).contains(byte)
            }
    }

    /// The checked rule, or what is wrong with it, field by field (under `field`).
    public func checked(field: String = "rule") -> Result<AlertRule, AlertProblems> {
        var problems: [FieldProblem] = []
        func problem(_ name: String, _ text: String) { problems.append(FieldProblem(field: "\(field).\(name)", problem: text)) }
        if let connectionId, connectionId.isEmpty || connectionId.count > 128 {
            problem("connectionId", "must be 1 to 128 characters")
        }
        switch type {
        case .price:
            if on != nil { problem("on", "applies to order rules only") }
            if unknownForSeconds != nil { problem("unknownForSeconds", "applies to order rules only") }
            if let instrument {
                if !Self.isSymbol(instrument.symbol) {
                    problem("instrument.symbol", "must be 1 to 32 of A-Z a-z 0-9 . / : _ -")
                }
            } else {
                problem("instrument", "is required for a price rule")
            }
            guard let condition else {
                problem("condition", "is required for a price rule (above, below, percent_move)")
                break
            }
            if let threshold {
                if threshold <= 0 {
                    problem("threshold", "must be greater than 0")
                } else if condition == .percentMove {
                    if threshold > Self.maximumPercent {
                        problem("threshold", "must be a percent of at most \(Self.maximumPercent)")
                    } else if let bound = DecimalBounds.price.problem(threshold) {
                        problem("threshold", bound)
                    }
                } else if let bound = DecimalBounds.price.problem(threshold) {
                    problem("threshold", bound)
                }
            } else {
                problem("threshold", "is required for a price rule")
            }
            if condition == .percentMove {
                if let windowSeconds {
                    if !Self.windowSecondsRange.contains(windowSeconds) {
                        problem("windowSeconds", "must be from \(Self.windowSecondsRange.lowerBound) to \(Self.windowSecondsRange.upperBound)")
                    }
                } else {
                    problem("windowSeconds", "is required for percent_move")
                }
            } else if windowSeconds != nil {
                problem("windowSeconds", "applies to percent_move only")
            }
            if problems.isEmpty, let instrument, let threshold {
                var reference = instrument
                reference.symbol = instrument.symbol.uppercased()
                return .success(
                    .price(
                        .init(
                            instrument: reference,
                            connectionId: connectionId,
                            condition: condition,
                            threshold: threshold,
                            windowSeconds: windowSeconds
                        )
                    )
                )
            }
        case .order:
            if instrument != nil { problem("instrument", "applies to price rules only") }
            if condition != nil { problem("condition", "applies to price rules only") }
            if threshold != nil { problem("threshold", "applies to price rules only") }
            if windowSeconds != nil { problem("windowSeconds", "applies to price rules only") }
            guard let on else {
                problem("on", "is required for an order rule (filled, rejected, unknown)")
                break
            }
            if on == .unknown {
                if let unknownForSeconds {
                    if !Self.unknownForSecondsRange.contains(unknownForSeconds) {
                        problem(
                            "unknownForSeconds",
                            "must be from \(Self.unknownForSecondsRange.lowerBound) to \(Self.unknownForSecondsRange.upperBound)"
                        )
                    }
                } else {
                    problem("unknownForSeconds", "is required when on is unknown")
                }
            } else if unknownForSeconds != nil {
                problem("unknownForSeconds", "applies when on is unknown only")
            }
            if problems.isEmpty {
                return .success(.order(.init(on: on, connectionId: connectionId, unknownForSeconds: unknownForSeconds)))
            }
        }
        return .failure(AlertProblems(problems: problems))
    }
}
