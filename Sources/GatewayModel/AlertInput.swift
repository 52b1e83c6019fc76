import Foundation

/// An alert as a client creates (`POST`: `rule` required) or changes it (`PATCH`: what is given replaces, what is
/// absent is kept; `channels` given replaces all of them). Closed: an unknown field is refused.
public struct AlertInput: Codable, Sendable, Hashable {
    /// A name for people: 1 to ``maximumNameLength`` characters once trimmed of surrounding spaces; not unique.
    public var name: String?
    /// What the alert watches: required to create, replaced whole when given to a change.
    public var rule: AlertRuleInput?
    /// Where firings are delivered besides the stream; given to a change, it replaces every channel.
    public var channels: AlertChannels?
    /// Whether the alert may fire; a new alert is enabled unless this says `false`.
    public var enabled: Bool?
    /// What a price alert does after it fires; `cross_back` unless given.
    public var rearm: AlertRearm?

    /// An input as a client builds it; ``problems(creating:)`` says whether it is valid.
    public init(
        name: String? = nil,
        rule: AlertRuleInput? = nil,
        channels: AlertChannels? = nil,
        enabled: Bool? = nil,
        rearm: AlertRearm? = nil
    ) {
        self.name = name
        self.rule = rule
        self.channels = channels
        self.enabled = enabled
        self.rearm = rearm
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case name, rule, channels, enabled, rearm }

    /// Closed, as every request body: an unknown field is refused (``StrictKeys``).
    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownKeysIn: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        rule = try c.decodeIfPresent(AlertRuleInput.self, forKey: .rule)
        channels = try c.decodeIfPresent(AlertChannels.self, forKey: .channels)
        enabled = try c.decodeIfPresent(Bool.self, forKey: .enabled)
        rearm = try c.decodeIfPresent(AlertRearm.self, forKey: .rearm)
    }

    /// The longest alert name, in characters.
    public static let maximumNameLength = 100

    /// What is wrong with the input, field by field (a `PATCH` needs at least one field).
    public func problems(creating: Bool) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        if let name {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty || trimmed.count > Self.maximumNameLength {
                problems.append(FieldProblem(field: "name", problem: "must be 1 to \(Self.maximumNameLength) characters (surrounding spaces aside)"))
            }
        }
        if let rule {
            if case .failure(let found) = rule.checked() { problems += found.problems }
        } else if creating {
            problems.append(FieldProblem(field: "rule", problem: "is required"))
        }
        if let channels { problems += channels.problems(field: "channels") }
        if !creating, name == nil, rule == nil, channels == nil, enabled == nil, rearm == nil {
            problems.append(FieldProblem(field: "body", problem: "must change name, rule, channels, enabled or rearm"))
        }
        return problems
    }
}
