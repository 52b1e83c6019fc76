import Foundation
import SandboxKit

/// Who placed a resting order on a TradeOgre sandbox book.
enum TradeOgreOwner: Hashable, Sendable, Codable {
    /// An API account (its key).
    case account(String)
    /// The synthetic market maker that quotes around the shared market's price.
    case maker
    /// Another simulated market participant (orders placed when the sandbox starts).
    case participant
}

/// A limit order resting on (or arriving at) a book.
struct TradeOgreBookOrder: Sendable, Hashable, Codable {
    var id: UUID
    var owner: TradeOgreOwner
    var side: TradeSide
    var price: Decimal
    var remaining: Decimal
    /// Arrival order on the venue: earlier wins at the same price.
    var sequence: UInt64
}

/// One execution between an arriving order (the taker) and a resting one (the maker), at the resting price.
struct TradeOgreFill: Sendable, Hashable {
    var taker: TradeOgreBookOrder
    var maker: TradeOgreBookOrder
    var price: Decimal
    var quantity: Decimal
}

/// A limit order book with price-time priority.
///
/// An arriving order trades with the best opposite orders while their price is at or better than its limit, each at
/// the resting order's price (the arriving order gets any price improvement), oldest first within a price; whatever
/// is left rests on the book. Quantities are never split finer than the venue's 8 decimals because every input is.
struct TradeOgreOrderBook: Sendable, Codable {
    /// Best first: highest price, then earliest.
    private(set) var bids: [TradeOgreBookOrder] = []
    /// Best first: lowest price, then earliest.
    private(set) var asks: [TradeOgreBookOrder] = []

    var bestBid: Decimal? { bids.first?.price }
    var bestAsk: Decimal? { asks.first?.price }

    /// Matches `order`, rests the remainder, and returns the fills in execution order.
    mutating func submit(_ order: TradeOgreBookOrder) -> [TradeOgreFill] {
        var incoming = order
        var fills: [TradeOgreFill] = []
        while incoming.remaining > 0 {
            let crosses: Bool
            switch incoming.side {
            case .buy: crosses = asks.first.map { $0.price <= incoming.price } ?? false
            case .sell: crosses = bids.first.map { $0.price >= incoming.price } ?? false
            }
            guard crosses else { break }
            var resting = incoming.side == .buy ? asks[0] : bids[0]
            let quantity = min(resting.remaining, incoming.remaining)
            let fillRecord = TradeOgreFill(taker: incoming, maker: resting, price: resting.price, quantity: quantity)
            fills.append(fillRecord)
            incoming.remaining -= quantity
            resting.remaining -= quantity
            if incoming.side == .buy {
                if resting.remaining > 0 { asks[0] = resting } else { asks.removeFirst() }
            } else {
                if resting.remaining > 0 { bids[0] = resting } else { bids.removeFirst() }
            }
        }
        if incoming.remaining > 0 { rest(incoming) }
        return fills
    }

    /// Takes an order off the book.
    @discardableResult
    mutating func remove(id: UUID) -> TradeOgreBookOrder? {
        if let index = bids.firstIndex(where: { $0.id == id }) { return bids.remove(at: index) }
        if let index = asks.firstIndex(where: { $0.id == id }) { return asks.remove(at: index) }
        return nil
    }

    mutating func removeAll(where predicate: (TradeOgreBookOrder) -> Bool) {
        bids.removeAll(where: predicate)
        asks.removeAll(where: predicate)
    }

    func order(id: UUID) -> TradeOgreBookOrder? {
        bids.first { $0.id == id } ?? asks.first { $0.id == id }
    }

    /// Quantity per price, best price first.
    func levels(_ side: TradeSide) -> [(price: Decimal, quantity: Decimal)] {
        var levels: [(price: Decimal, quantity: Decimal)] = []
        for order in side == .buy ? bids : asks {
            if let last = levels.last, last.price == order.price {
                levels[levels.count - 1].quantity += order.remaining
            } else {
                levels.append((order.price, order.remaining))
            }
        }
        return levels
    }

    private mutating func rest(_ order: TradeOgreBookOrder) {
        switch order.side {
        case .buy:
            let index = bids.firstIndex { $0.price < order.price || ($0.price == order.price && $0.sequence > order.sequence) }
            bids.insert(order, at: index ?? bids.endIndex)
        case .sell:
            let index = asks.firstIndex { $0.price > order.price || ($0.price == order.price && $0.sequence > order.sequence) }
            asks.insert(order, at: index ?? asks.endIndex)
        }
    }
}
