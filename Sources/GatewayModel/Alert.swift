public import Foundation

/// A user's alert: a rule watched by the gateway and the channels a firing is delivered on.
///
/// A price alert watches the quotes of one instrument (at one connection, or at any of the user's); an order alert
/// watches the user's orders (at one connection, or all of them). Every firing goes on the user's stream; it is also
/// POSTed to the alert's webhook and pushed through APNs (to the token it names, or to the user's devices' active push
/// tokens) when those are set.
///
/// Re-arming (`rearm`, price alerts): an alert is armed when created. `above` fires when the price is at or above
/// the threshold while armed, `below` when at or below it, `percent_move` when the price has moved by at least the
/// threshold percent from any price seen within the window; firing disarms it. With `cross_back` (the default) it
/// re-arms once the condition no longer holds (the price crosses back), so it fires once per crossing; with `once`
/// a firing disables the alert. Order alerts fire once for each matching order, whatever `rearm` says.
public struct Alert: Codable, Sendable, Hashable {
    public var id: String
    public var name: String?
    public var rule: AlertRule
    public var channels: AlertChannels
    public var enabled: Bool
    public var rearm: AlertRearm
    /// Whether a price alert would fire on its condition now (`false` between a firing and the price crossing back).
    public var armed: Bool
    public var createdAt: Date?
    public var updatedAt: Date?
    public var lastFiredAt: Date?

    public init(
        id: String,
        name: String? = nil,
        rule: AlertRule,
        channels: AlertChannels = AlertChannels(),
        enabled: Bool = true,
        rearm: AlertRearm = .crossBack,
        armed: Bool = true,
        createdAt: Date? = nil,
        updatedAt: Date? = nil,
        lastFiredAt: Date? = nil
    ) {
        self.id = id
        self.name = name
        self.rule = rule
        self.channels = channels
        self.enabled = enabled
        self.rearm = rearm
        self.armed = armed
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastFiredAt = lastFiredAt
    }
}

/// What a price alert compares.
public enum AlertCondition: String, WireEnum {
    case above
    case below
    /// The price moved by at least `threshold` percent (up or down) from a price seen within `windowSeconds`.
    case percentMove = "percent_move"
}

/// What an order alert waits for.
public enum AlertOrderEvent: String, WireEnum {
    /// The order was filled (an update `filled`, or `reconciled` with status filled).
    case filled
    /// The broker rejected the order (an update `rejected`, or `reconciled` with status rejected).
    case rejected
    /// The order's outcome stayed unknown for longer than `unknownForSeconds`.
    case unknown
}

public enum AlertRuleType: String, WireEnum {
    case price
    case order
}

/// After a price alert fires: `cross_back` re-arms it when the price crosses back, `once` disables it.
public enum AlertRearm: String, WireEnum {
    case crossBack = "cross_back"
    case once
}

/// The rule of an alert, checked: a price rule or an order rule.
public enum AlertRule: Sendable, Hashable {
    case price(PriceRule)
    case order(OrderRule)

    public struct PriceRule: Sendable, Hashable {
        public var instrument: InstrumentReference
        /// Only quotes of this connection count; `nil`: quotes of any of the user's connections.
        public var connectionId: String?
        public var condition: AlertCondition
        /// A price (`above`, `below`) or a percent (`percent_move`: 5 is 5 %).
        public var threshold: Decimal
        /// `percent_move` only: how far back the prices compared reach.
        public var windowSeconds: Int?

        public init(
            instrument: InstrumentReference,
            connectionId: String? = nil,
            condition: AlertCondition,
            threshold: Decimal,
            windowSeconds: Int? = nil
        ) {
            self.instrument = instrument
            self.connectionId = connectionId
            self.condition = condition
            self.threshold = threshold
            self.windowSeconds = windowSeconds
        }
    }

    public struct OrderRule: Sendable, Hashable {
        public var on: AlertOrderEvent
        /// Only orders of this connection; `nil`: all the user's orders.
        public var connectionId: String?
        /// `unknown` only: how long an order may stay unknown before the alert fires.
        public var unknownForSeconds: Int?

        public init(on: AlertOrderEvent, connectionId: String? = nil, unknownForSeconds: Int? = nil) {
            self.on = on
            self.connectionId = connectionId
            self.unknownForSeconds = unknownForSeconds
        }
    }

    public var type: AlertRuleType {
        switch self {
        case .price: .price
        case .order: .order
        }
    }

    public var connectionId: String? {
        switch self {
        case .price(let rule): rule.connectionId
        case .order(let rule): rule.connectionId
        }
    }
}

/// A rule on the wire: one flat object whose `type` says which fields apply. Decoding never fails on a missing or
/// misplaced field (that is a rule of the request, a 422 from `AlertInput.problems`); only an unknown field, a
/// wrong type or an unknown enum value is a decoding error.
public struct AlertRuleInput: Codable, Sendable, Hashable {
    public var type: AlertRuleType
    public var instrument: InstrumentReference?
    public var connectionId: String?
    public var condition: AlertCondition?
    public var threshold: Decimal?
    public var windowSeconds: Int?
    public var on: AlertOrderEvent?
    public var unknownForSeconds: Int?

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

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(type, forKey: .type)
        try c.encodeIfPresent(instrument, forKey: .instrument)
        try c.encodeIfPresent(connectionId, forKey: .connectionId)
        try c.encodeIfPresent(condition, forKey: .condition)
        try c.encodeDecimalIfPresent(threshold, forKey: .threshold)
        try c.encodeIfPresent(windowSeconds, forKey: .windowSeconds)
        try c.encodeIfPresent(on, forKey: .on)
        try c.encodeIfPresent(unknownForSeconds, forKey: .unknownForSeconds)
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

/// Field problems of an alert input, as an error (so `checked` can be a `Result`).
public struct AlertProblems: Error, Sendable, Hashable {
    public var problems: [FieldProblem]
    public init(problems: [FieldProblem]) { self.problems = problems }
}

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

    public func encode(to encoder: any Encoder) throws {
        try input.encode(to: encoder)
    }
}

/// Where an alert is delivered besides the user's stream (which always carries it).
public struct AlertChannels: Codable, Sendable, Hashable {
    public var webhook: Webhook?
    public var apns: APNs?

    public init(webhook: Webhook? = nil, apns: APNs? = nil) {
        self.webhook = webhook
        self.apns = apns
    }

    public struct Webhook: Codable, Sendable, Hashable {
        /// An http(s) URL on a public address (the gateway's egress policy).
        public var url: String

        public init(url: String) { self.url = url }

        enum CodingKeys: String, CodingKey, CaseIterable { case url }

        public init(from decoder: any Decoder) throws {
            try StrictKeys.reject(unknownKeysIn: decoder, known: CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            url = try c.decode(String.self, forKey: .url)
        }
    }

    /// An APNs push: to one device token the alert names (`{"deviceToken": "<hex>"}`), or to every active push
    /// token of the user's devices (`{"devices": "all"}`, the tokens registered with
    /// `POST /v1/devices/current/push-token`), read when the alert fires. Exactly one of the two.
    public struct APNs: Codable, Sendable, Hashable {
        /// The device token iOS gave the app, as hex.
        public var deviceToken: String?
        /// Push to the user's devices instead of one token.
        public var devices: Devices?

        /// Which of the user's devices an alert pushes to. Only `all` for now; a closed set, so a later selection
        /// (trusted devices, one device) is an addition, not a change of meaning.
        public enum Devices: String, Codable, Sendable, Hashable, CaseIterable {
            case all
        }

        public init(deviceToken: String) {
            self.deviceToken = deviceToken
            self.devices = nil
        }

        public init(devices: Devices) {
            self.deviceToken = nil
            self.devices = devices
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case deviceToken, devices }

        public init(from decoder: any Decoder) throws {
            try StrictKeys.reject(unknownKeysIn: decoder, known: CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            deviceToken = try c.decodeIfPresent(String.self, forKey: .deviceToken)
            if let text = try c.decodeIfPresent(String.self, forKey: .devices) {
                guard let devices = Devices(rawValue: text) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .devices,
                        in: c,
                        debugDescription: "must be one of: \(Devices.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                self.devices = devices
            } else {
                devices = nil
            }
        }

        /// Whether `token` is an APNs device token as the gateway accepts one: hex, an even number of 32 to 200
        /// digits (APNs tokens are 32 bytes today; Apple warns they may grow, hence the room).
        public static func isDeviceToken(_ token: String) -> Bool {
            (32...200).contains(token.count) && token.count % 2 == 0
                && token.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) || ("A"..."F").contains($0) })
        }

        func problems(field: String) -> [FieldProblem] {
            switch (deviceToken, devices) {
            case (nil, nil), (.some, .some):
                return [FieldProblem(field: field, problem: "must name either deviceToken or devices (\"all\"), one of them")]
            case (let token?, nil):
                guard Self.isDeviceToken(token) else {
                    return [FieldProblem(field: "\(field).deviceToken", problem: "must be the device token as hex (32 to 200 hex digits)")]
                }
                return []
            case (nil, .some):
                return []
            }
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case webhook, apns }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownKeysIn: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        webhook = try c.decodeIfPresent(Webhook.self, forKey: .webhook)
        apns = try c.decodeIfPresent(APNs.self, forKey: .apns)
    }

    /// The longest webhook URL.
    public static let maximumURLLength = 2048

    func problems(field: String) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        if let webhook {
            let url = webhook.url
            let lower = url.lowercased()
            if url.isEmpty || url.count > Self.maximumURLLength {
                problems.append(FieldProblem(field: "\(field).webhook.url", problem: "must be 1 to \(Self.maximumURLLength) characters"))
            } else if !(lower.hasPrefix("https://") || lower.hasPrefix("http://")) || URL(string: url)?.host == nil
                || url.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
            {
                problems.append(FieldProblem(field: "\(field).webhook.url", problem: "must be an absolute http(s) URL"))
            }
        }
        if let apns { problems += apns.problems(field: "\(field).apns") }
        return problems
    }
}

/// An alert as a client creates (`POST`: `rule` required) or changes it (`PATCH`: what is given replaces, what is
/// absent is kept; `channels` given replaces all of them). Closed: an unknown field is refused.
public struct AlertInput: Codable, Sendable, Hashable {
    public var name: String?
    public var rule: AlertRuleInput?
    public var channels: AlertChannels?
    public var enabled: Bool?
    public var rearm: AlertRearm?

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

/// An alert just created, with the secret its webhooks are signed with: shown once, here, and never again.
public struct CreatedAlert: Codable, Sendable, Hashable {
    public var alert: Alert
    /// `whsec_…`: the HMAC-SHA256 key of the `BrokerGateway-Signature` header (its UTF-8 bytes).
    public var webhookSecret: String

    public init(alert: Alert, webhookSecret: String) {
        self.alert = alert
        self.webhookSecret = webhookSecret
    }
}

/// The channel one delivery attempt used.
public enum AlertChannel: String, WireEnum {
    case webhook
    case apns
}

public enum AlertDeliveryOutcome: String, WireEnum {
    case delivered
    /// Failed and tried again (the next attempt has its own entry).
    case retrying
    /// Failed for good: no attempt follows.
    case failed
}

/// One attempt to deliver one notification of an alert on one channel: the alert's delivery log.
public struct AlertDeliveryAttempt: Codable, Sendable, Hashable {
    /// `dlv_…`
    public var id: String
    public var alertId: String
    /// The notification's event id (`BrokerGateway-Event-Id`): the same for every attempt of one notification.
    public var eventId: String
    public var channel: AlertChannel
    /// 1 for the first attempt of the notification on this channel.
    public var attempt: Int
    public var at: Date
    public var outcome: AlertDeliveryOutcome
    /// The receiver's HTTP status, when it answered.
    public var httpStatus: Int?
    /// What went wrong, in the gateway's words (never a secret nor the receiver's body).
    public var error: String?
    /// Whether the notification was a test (`POST /v1/alerts/{id}/test`).
    public var test: Bool
    /// The device an APNs push went to, when the alert targets the user's devices (`{"devices": "all"}`): each
    /// device's pushes are attempts of their own.
    public var deviceId: String?

    public init(
        id: String,
        alertId: String,
        eventId: String,
        channel: AlertChannel,
        attempt: Int,
        at: Date,
        outcome: AlertDeliveryOutcome,
        httpStatus: Int? = nil,
        error: String? = nil,
        test: Bool = false,
        deviceId: String? = nil
    ) {
        self.id = id
        self.alertId = alertId
        self.eventId = eventId
        self.channel = channel
        self.attempt = attempt
        self.at = at
        self.outcome = outcome
        self.httpStatus = httpStatus
        self.error = error
        self.test = test
        self.deviceId = deviceId
    }
}
