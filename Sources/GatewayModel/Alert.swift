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
