import Foundation

/// Where an alert is delivered besides the user's stream (which always carries it).
public struct AlertChannels: Codable, Sendable, Hashable {
    /// POST every firing's notification to this webhook; `nil` for none.
    public var webhook: Webhook?
    /// Push every firing through APNs; `nil` for none.
    public var apns: APNs?

    /// Channels; none at all leaves the user's stream as the only one.
    public init(webhook: Webhook? = nil, apns: APNs? = nil) {
        self.webhook = webhook
        self.apns = apns
    }

    /// A webhook: each notification is POSTed as JSON to `url`, signed with the alert's secret
    /// (`BrokerGateway-Signature`), and retried with backoff on network errors, 5xx, 408 and 429.
    public struct Webhook: Codable, Sendable, Hashable {
        /// An http(s) URL on a public address (the gateway's egress policy).
        public var url: String

        /// A webhook to `url` (checked with the alert's input, not here).
        public init(url: String) { self.url = url }

        enum CodingKeys: String, CodingKey, CaseIterable { case url }

        /// Closed, as every request body: an unknown field is refused (``StrictKeys``).
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

        /// Push to one device token, as hex.
        public init(deviceToken: String) {
            self.deviceToken = deviceToken
            self.devices = nil
        }

        /// Push to the active push tokens of the user's devices.
        public init(devices: Devices) {
            self.deviceToken = nil
            self.devices = devices
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case deviceToken, devices }

        /// Closed: an unknown field or `devices` value is refused. That exactly one of the two is given is the input's
        /// rule (a 422 naming `channels.apns`), not a decoding error.
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

    /// Closed, as every request body: an unknown field is refused (``StrictKeys``).
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
