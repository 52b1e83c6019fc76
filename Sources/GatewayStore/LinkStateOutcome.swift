/// What spending a link's state nonce came to. Exactly one caller of a live state gets `consumed`; everyone after it
/// learns why they cannot complete the link, so the callback page and `/link` can say so.
public enum LinkStateOutcome: Sendable, Hashable {
    /// The state was live and is now spent by this caller: go on and complete the link at the broker.
    case consumed(tenantId: String, connectionId: String)
    /// No link in progress has this state (never issued, issued for another connection, or replaced by a newer link).
    case unknown
    /// The link was started too long ago.
    case expired
    /// Another completion spent it first.
    case alreadyUsed
}
