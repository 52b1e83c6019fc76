import Foundation
import SandboxKit

/// Alpaca's order status values (wire spelling).
enum AlpacaOrderStatus: String, Sendable, Codable {
    case new, partially_filled, filled, done_for_day, canceled, expired, replaced, pending_cancel, pending_replace
    case pending_review, accepted, pending_new, accepted_for_bidding, stopped, rejected, suspended, calculated, held

    /// Whether `GET /v2/orders?status=open` lists it, and it may still be cancelled or replaced.
    var isOpen: Bool {
        switch self {
        case .filled, .canceled, .expired, .replaced, .rejected, .done_for_day, .stopped, .suspended: false
        default: true
        }
    }
}

enum AlpacaOrderType: String, Sendable, Codable {
    case market, limit, stop, stop_limit, trailing_stop
}

enum AlpacaTimeInForce: String, Sendable, Codable {
    case day, gtc, opg, cls, ioc, fok
}

enum AlpacaPositionIntent: String, Sendable, Codable {
    case buy_to_open, buy_to_close, sell_to_open, sell_to_close
}

/// An order as the simulator keeps it.
struct AlpacaOrder: Sendable, Codable {
    var id: UUID
    var clientOrderID: String
    var createdAt: Date
    var updatedAt: Date
    var submittedAt: Date
    var filledAt: Date?
    var expiredAt: Date?
    var canceledAt: Date?
    var failedAt: Date?
    var replacedAt: Date?
    var expiresAt: Date?
    var replacedBy: UUID?
    var replaces: UUID?
    var instrument: MarketInstrument
    var notional: Decimal?
    var qty: Decimal?
    /// The quantity filled so far (cumulative over partial fills).
    var filledQty: Decimal = 0
    /// The volume-weighted average price of the fills so far (`filled_avg_price`).
    var filledAvgPrice: Decimal?
    /// What the fills so far cost (Σ qty × price), kept exactly so the average and a notional order's remainder never
    /// drift with rounding. Absent in state saved before partial fills: such an order filled at most once, at
    /// `filledAvgPrice`, so ``filledValue`` recomputes it.
    var filledNotional: Decimal?
    var type: AlpacaOrderType
    var side: TradeSide
    var positionIntent: AlpacaPositionIntent?
    var timeInForce: AlpacaTimeInForce
    var limitPrice: Decimal?
    var stopPrice: Decimal?
    var trailPrice: Decimal?
    var trailPercent: Decimal?
    var status: AlpacaOrderStatus
    var extendedHours: Bool
    var matching = OrderMatching.RestingState()

    var executionTerms: ExecutionTerms {
        switch type {
        case .market: .market
        case .limit: .limit(limitPrice ?? 0)
        case .stop: .stop(stopPrice ?? 0)
        case .stop_limit: .stopLimit(stop: stopPrice ?? 0, limit: limitPrice ?? 0)
        case .trailing_stop: .trailingStop(trailPrice.map(TrailingOffset.price) ?? .percent(trailPercent ?? 0))
        }
    }

    /// What the fills so far cost.
    var filledValue: Decimal {
        filledNotional ?? filledQty * (filledAvgPrice ?? 0)
    }

    /// The quantity still to fill of an order placed by quantity (nil for a notional order, whose remainder depends
    /// on the price it fills at).
    var remainingQty: Decimal? {
        qty.map { max(0, $0 - filledQty) }
    }

    /// The stop price a trailing stop currently has, from its watermark.
    var currentTrailingStop: Decimal? {
        guard type == .trailing_stop, let mark = matching.watermark else { return nil }
        let offset = trailPrice.map(TrailingOffset.price) ?? .percent(trailPercent ?? 0)
        return OrderMatching.trailingStopPrice(side: side, offset: offset, watermark: mark, tickSize: instrument.tickSize)
    }
}

/// A position as the simulator keeps it (always long: the simulated account is a cash account).
struct AlpacaPosition: Sendable, Codable {
    var instrument: MarketInstrument
    var qty: Decimal
    /// What was paid for the current quantity (reduced pro rata on sells).
    var costBasis: Decimal
    /// When the position was opened, for the intraday P&L.
    var openedAt: Date

    var averageEntryPrice: Decimal { averageEntryPrice(math: .fast) }

    /// `avg_entry_price`: the cost basis over the quantity, to nine places, in the given arithmetic.
    func averageEntryPrice(math: DecimalMath) -> Decimal {
        qty.isZero ? 0 : math.quotient(costBasis, qty, scale: 9)
    }
}

struct AlpacaWatchlist: Sendable, Codable {
    var id: UUID
    var name: String
    var createdAt: Date
    var updatedAt: Date
    var symbols: [String]
}

/// Everything the simulator knows about one account.
struct AlpacaAccountBook: Sendable, Codable {
    let id: UUID
    let accountNumber: String
    let createdAt: Date
    var cash: Decimal
    var positions: [String: AlpacaPosition] = [:]
    var orders: [AlpacaOrder] = []
    var orderIndex: [UUID: Int] = [:]
    var clientOrderIDs: [String: UUID] = [:]
    var watchlists: [AlpacaWatchlist] = []
    /// Equity at the previous close, rolled over on the first request of each UTC day.
    var lastEquity: Decimal = 0
    var lastEquityDay: Int64 = .min
    var configurations: [JSON.Member] = AlpacaAccountBook.defaultConfigurations
    /// Trade updates noted by `insert` and `update` and not yet handed to the trading streams.
    var pendingUpdates: [AlpacaTradeUpdate] = []

    /// Everything but the pending trade updates, which are handed to the streams under the same lock they are made in.
    private enum CodingKeys: String, CodingKey {
        case id, accountNumber, createdAt, cash, positions, orders, orderIndex, clientOrderIDs, watchlists, lastEquity
        case lastEquityDay, configurations
    }

    static let defaultConfigurations: [JSON.Member] = [
        .init(key: "dtbp_check", value: "entry"),
        .init(key: "trade_confirm_email", value: "all"),
        .init(key: "suspend_trade", value: false),
        .init(key: "no_shorting", value: true),
        .init(key: "fractional_trading", value: true),
        .init(key: "max_margin_multiplier", value: "1"),
        .init(key: "max_options_trading_level", value: 0),
        .init(key: "pdt_check", value: "entry"),
        .init(key: "ptp_no_exception_entry", value: false),
    ]

    init(id: UUID, accountNumber: String, createdAt: Date, cash: Decimal) {
        self.id = id
        self.accountNumber = accountNumber
        self.createdAt = createdAt
        self.cash = cash
    }

    func order(_ id: UUID) -> AlpacaOrder? {
        orderIndex[id].map { orders[$0] }
    }

    mutating func insert(_ order: AlpacaOrder) {
        orderIndex[order.id] = orders.count
        clientOrderIDs[order.clientOrderID] = order.id
        orders.append(order)
        recordChange(of: order, from: nil)
    }

    mutating func update(_ order: AlpacaOrder) {
        guard let index = orderIndex[order.id] else { return }
        let old = orders[index]
        orders[index] = order
        recordChange(of: order, from: old)
    }
}
