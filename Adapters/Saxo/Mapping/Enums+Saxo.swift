import Foundation
import GatewayCore
import GatewayModel

/// Saxo's open-order states, each mapped to exactly one canonical state. A string not in this table (including
/// Saxo's own `Unknown`) is a `malformed_response`: a new broker state must be decided here, never defaulted.
///
/// Saxo lists *open* orders only (`port/v1/orders`); a filled or cancelled order leaves the list, so `Filled` is rare.
/// Decisions:
/// - `Working` → `open`, or `partially_filled` when `FilledAmount` > 0.
/// - `WorkingLockedChangePending` (a change is on its way; the order still works) → like `Working`.
/// - `NotWorking` (accepted, not active: an If-Done slave waiting for its master, an order waiting for its market)
///   → `pending_new`.
/// - `Parked` (kept by Saxo, inactive until the client reactivates it) → `pending_new`: it cannot fill as it is.
/// - `LockedPlacementPending` (placement on its way to the market) → `pending_new`.
/// - `NotWorkingLockedChangePending` → `pending_new`.
/// - `WorkingLockedCancelPending`, `NotWorkingLockedCancelPending` → `pending_cancel`.
/// - `Filled` → `filled`.
let saxoOrderStatuses: [String: OrderStatus] = [
    "Working": .open,
    "WorkingLockedChangePending": .open,
    "NotWorking": .pendingNew,
    "Parked": .pendingNew,
    "LockedPlacementPending": .pendingNew,
    "NotWorkingLockedChangePending": .pendingNew,
    "WorkingLockedCancelPending": .pendingCancel,
    "NotWorkingLockedCancelPending": .pendingCancel,
    "Filled": .filled,
]

extension OrderStatus {
    // "Status": "Working", "FilledAmount": 0
    init(saxo raw: String, filledAmount: Decimal) throws {
        guard let status = saxoOrderStatuses[raw] else {
            throw SaxoErrors.malformed("an order status the gateway does not know")
        }
        self = status == .open && filledAmount > 0 ? .partiallyFilled : status
    }
}

extension OrderSide {
    // "BuySell": "Buy"
    init(saxo raw: String) throws {
        switch raw {
        case "Buy": self = .buy
        case "Sell": self = .sell
        default: throw SaxoErrors.malformed("an order side the gateway does not know")
        }
    }

    /// Saxo has `Buy` and `Sell` only: a short sale is a sell without a position, a cover a buy against one.
    var saxo: String { isBuy ? "Buy" : "Sell" }
}

extension OrderType {
    /// Read side (`OpenOrderType`). Saxo's stop variants (`StopIfTraded` for exchange-traded instruments, trailing
    /// and guaranteed stops, `StopTrigger`/`BreakoutTrigger`) read as `stop`; `LimitTrigger` reads as `limit`.
    /// Algorithmic, switch and deal-capture orders have no canonical form.
    // "OpenOrderType": "Limit"
    init(saxo raw: String) throws {
        switch raw {
        case "Market": self = .market
        case "Limit", "LimitTrigger", "TriggerLimit": self = .limit
        case "Stop", "StopIfTraded", "TrailingStop", "TrailingStopIfTraded", "GuaranteedStop", "StopTrigger",
            "TriggerStop", "BreakoutTrigger", "TriggerBreakout":
            self = .stop
        case "StopLimit": self = .stopLimit
        default: throw SaxoErrors.malformed("an order type the gateway does not know")
        }
    }

    /// Write side. A stop is `Stop` for FX and `StopIfTraded` for exchange-traded instruments (Saxo refuses
    /// `Stop` there with `OrderTypeNotSupported`).
    func saxo(assetType: String) -> String {
        switch self {
        case .market: "Market"
        case .limit: "Limit"
        case .stop: assetType.hasPrefix("Fx") ? "Stop" : "StopIfTraded"
        case .stopLimit: "StopLimit"
        }
    }
}

extension TimeInForce {
    /// `AtTheOpening` and `AtTheClose` live at most one session: `day`. `GoodForPeriod` has no date the gateway can
    /// show: `gtc`.
    // "Duration": {"DurationType": "GoodTillCancel"}
    init(saxo raw: String) throws {
        switch raw {
        case "DayOrder", "AtTheOpening", "AtTheClose": self = .day
        case "GoodTillCancel", "GoodForPeriod": self = .gtc
        case "GoodTillDate": self = .gtd
        case "ImmediateOrCancel": self = .ioc
        case "FillOrKill": self = .fok
        default: throw SaxoErrors.malformed("an order duration the gateway does not know")
        }
    }

    /// `OrderDuration` for a request; `gtd` carries its expiry (sent as UTC; Saxo reads exchange-local time).
    func saxoDuration(expiresAt: Date?) -> SaxoDuration {
        switch self {
        case .day: SaxoDuration(durationType: "DayOrder")
        case .gtc: SaxoDuration(durationType: "GoodTillCancel")
        case .ioc: SaxoDuration(durationType: "ImmediateOrCancel")
        case .fok: SaxoDuration(durationType: "FillOrKill")
        case .gtd:
            SaxoDuration(
                durationType: "GoodTillDate",
                expirationDateTime: expiresAt.map(SaxoTimestamp.formatLocal),
                expirationDateContainsTime: true
            )
        }
    }
}
