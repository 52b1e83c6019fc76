import Foundation
import SandboxKit

/// Order types a client may place (Saxo's spelling). Algorithmic, switch and trigger types are not simulated.
enum SaxoOrderType: String, Sendable, CaseIterable, Codable {
    case Market, Limit, Stop, StopIfTraded, StopLimit, TrailingStop, TrailingStopIfTraded

    var needsPrice: Bool { self != .Market }
}

/// `OrderDuration.DurationType` (Saxo's spelling).
enum SaxoDurationType: String, Sendable, CaseIterable, Codable {
    case DayOrder, GoodTillCancel, GoodTillDate, ImmediateOrCancel, FillOrKill, AtTheOpening, AtTheClose, GoodForPeriod

    var isImmediate: Bool { self == .ImmediateOrCancel || self == .FillOrKill }
}

/// An order's `OrderDuration` as sent, kept to echo it back as `Duration`.
struct SaxoDuration: Sendable, Equatable, Codable {
    var type: SaxoDurationType
    /// `ExpirationDateTime` as the client wrote it (GoodTillDate).
    var expirationText: String?
    var expirationDate: Date?
    var expirationContainsTime: Bool?
}

/// A working order as the simulator keeps it. Orders leave the book when they fill, expire or are cancelled,
/// which is why Saxo's `port/v1/orders` only ever lists working orders.
struct SaxoOrder: Sendable, Codable {
    var id: String
    var instrument: SaxoInstrument
    var side: TradeSide
    var amount: Decimal
    var type: SaxoOrderType
    /// `OrderPrice`: the limit, the stop, or the initial trailing stop. A market order may carry one too (the seed
    /// app sends it); it is ignored for execution and reused if the order is later changed to a limit.
    var price: Decimal?
    var stopLimitPrice: Decimal?
    var trailingStopDistance: Decimal?
    var trailingStopStep: Decimal?
    var duration: SaxoDuration
    var externalReference: String?
    var manualOrder: Bool
    var orderTime: Date
    /// The earliest time the order may execute (acceptance + ``SaxoSandboxConfiguration/executionLatency``).
    var eligibleAt: Date
    var expiresAt: Date?
    var matching = OrderMatching.RestingState()
    var correlationKey: String
    /// `FilledAmount`: what has filled so far when the market's depth filled the order in part ("the amount of the
    /// order, which has already been filled, in case of partial fills", Saxo's `OrderResponse`; typed in
    /// systematic-trader/saxobank-client `types/records/order-response.ts`). nil until the first fill, and in state
    /// files written before partial fills existed (an optional decodes from them).
    var filledAmount: Decimal?

    var executionTerms: ExecutionTerms {
        switch type {
        case .Market: .market
        case .Limit: .limit(price ?? 0)
        case .Stop, .StopIfTraded: .stop(price ?? 0)
        case .StopLimit: .stopLimit(stop: price ?? 0, limit: stopLimitPrice ?? price ?? 0)
        case .TrailingStop, .TrailingStopIfTraded: .trailingStop(.price(trailingStopDistance ?? 0))
        }
    }

    /// What has filled so far (0 before the first fill).
    var filled: Decimal { filledAmount ?? 0 }

    /// What is still to fill: the order's `Amount` less its `FilledAmount`.
    var remaining: Decimal { max(0, amount - filled) }
}

/// One open position (Saxo keeps individual positions under a net position until end-of-day netting).
struct SaxoPosition: Sendable, Codable {
    var id: String
    var instrument: SaxoInstrument
    /// Signed: negative is short.
    var amount: Decimal
    var openPrice: Decimal
    var openedAt: Date
    var sourceOrderID: String
    /// Quote currency → account currency when the position opened.
    var conversionRateOpen: Decimal
    var valueDate: Date
    var correlationKey: String
}

/// A price subscription: only the snapshot is served (updates would come over the streaming WebSocket).
struct SaxoPriceSubscription: Sendable {
    var contextID: String
    var referenceID: String
    var instrument: SaxoInstrument
}
