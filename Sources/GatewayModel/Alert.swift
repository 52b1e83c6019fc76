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
    /// The gateway's id for the alert.
    public var id: String
    /// A name for people (trimmed of surrounding spaces, not unique); `nil` when none was given.
    public var name: String?
    /// What the alert watches and when it fires.
    public var rule: AlertRule
    /// Where a firing is delivered besides the user's stream.
    public var channels: AlertChannels
    /// Whether the alert may fire: a disabled alert never does (a `once` alert disables itself when it fires).
    public var enabled: Bool
    /// What a price alert does after it fires (see above).
    public var rearm: AlertRearm
    /// Whether a price alert would fire on its condition now (`false` between a firing and the price crossing back).
    public var armed: Bool
    /// When the alert was created.
    public var createdAt: Date?
    /// When the alert was last changed.
    public var updatedAt: Date?
    /// When the alert last fired; `nil` before its first firing.
    public var lastFiredAt: Date?

    /// An alert; a new one is enabled, armed and re-arms on `cross_back`.
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
