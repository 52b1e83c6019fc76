import GatewayCore
import GatewayModel

/// Alpaca's order states, each mapped to exactly one canonical state. A string not in this table is a
/// `malformed_response`: a new broker state must be decided here, never defaulted.
///
/// Decisions (Alpaca's own definitions in quotes, from docs.alpaca.markets "Order Lifecycle"):
/// - `new`, `accepted_for_bidding` ("received by exchanges, evaluated for pricing") → `open`: working at the venue.
/// - `accepted` ("received by Alpaca, not yet routed"), `pending_new` ("routed, not yet accepted"),
///   `pending_review` (compliance review before routing), `held` (a bracket leg waiting for its parent) →
///   `pending_new`: acknowledged, not yet working.
/// - `done_for_day` (no more fills today, resumes next session), `stopped` ("a trade is guaranteed, not yet
///   occurred"), `suspended` ("not eligible for trading" for now), `calculated` ("completed for the day, settlement
///   calculations pending": it may still be either filled or done for day) and `pending_replace` (the order works
///   until the replacement lands) → `open`: still alive, so a client never assumes it done too early.
/// - `activated` (a stop order whose stop was hit; ccxt knows it, alpaca-py does not) → `open`.
/// - `pending_cancel` → `pending_cancel`; `partially_filled`, `filled`, `canceled`, `expired`, `replaced`,
///   `rejected` → their namesakes.
let alpacaOrderStatuses: [String: OrderStatus] = [
    "new": .open,
    "accepted_for_bidding": .open,
    "accepted": .pendingNew,
    "pending_new": .pendingNew,
    "pending_review": .pendingNew,
    "held": .pendingNew,
    "done_for_day": .open,
    "stopped": .open,
    "suspended": .open,
    "calculated": .open,
    "pending_replace": .open,
    "activated": .open,
    "partially_filled": .partiallyFilled,
    "filled": .filled,
    "canceled": .canceled,
    "expired": .expired,
    "replaced": .replaced,
    "pending_cancel": .pendingCancel,
    "rejected": .rejected,
]

extension OrderStatus {
    // "status": "accepted"
    init(alpaca raw: String) throws {
        guard let status = alpacaOrderStatuses[raw] else {
            throw AlpacaErrors.malformed("an order status the gateway does not know")
        }
        self = status
    }
}

extension OrderSide {
    /// Alpaca sides are `buy` and `sell`; a short sale is a sell without a position. `position_intent`, where
    /// present, tells the short cases apart.
    // "side": "sell", "position_intent": "sell_to_open"
    init(alpaca raw: String, positionIntent: String?) throws {
        switch (raw, positionIntent) {
        case ("buy", "buy_to_close"): self = .buyToCover
        case ("buy", _): self = .buy
        case ("sell", "sell_to_open"): self = .sellShort
        case ("sell", _): self = .sell
        default: throw AlpacaErrors.malformed("an order side the gateway does not know")
        }
    }

    /// What Alpaca is sent: it infers a short sale from the absence of a position.
    var alpaca: String { isBuy ? "buy" : "sell" }
}

extension OrderType {
    /// `trailing_stop` reads back as `stop`: it is a stop order whose stop price (`stop_price`, kept current by
    /// Alpaca) trails the market. The gateway cannot place one.
    // "type": "stop_limit"
    init(alpaca raw: String) throws {
        switch raw {
        case "market": self = .market
        case "limit": self = .limit
        case "stop", "trailing_stop": self = .stop
        case "stop_limit": self = .stopLimit
        default: throw AlpacaErrors.malformed("an order type the gateway does not know")
        }
    }

    var alpaca: String {
        switch self {
        case .market: "market"
        case .limit: "limit"
        case .stop: "stop"
        case .stopLimit: "stop_limit"
        }
    }
}

extension TimeInForce {
    /// `opg` (market/limit on open) and `cls` (on close) have no canonical counterpart; both live at most one
    /// session, so they read back as `day`. The gateway never sends them. Canonical `gtd` has no Alpaca counterpart.
    // "time_in_force": "day"
    init(alpaca raw: String) throws {
        switch raw {
        case "day", "opg", "cls": self = .day
        case "gtc": self = .gtc
        case "ioc": self = .ioc
        case "fok": self = .fok
        default: throw AlpacaErrors.malformed("a time in force the gateway does not know")
        }
    }

    /// `nil` for `gtd`, which Alpaca does not offer.
    var alpaca: String? {
        switch self {
        case .day: "day"
        case .gtc: "gtc"
        case .ioc: "ioc"
        case .fok: "fok"
        case .gtd: nil
        }
    }
}

extension AssetClass {
    /// Alpaca classes are descriptive: an unknown one becomes `other` (the asset id still identifies it).
    // "class": "us_equity"
    init(alpaca raw: String) {
        switch raw {
        case "us_equity": self = .equity
        case "crypto": self = .crypto
        case "us_option": self = .option
        case "crypto_perp": self = .future
        default: self = .other
        }
    }
}
