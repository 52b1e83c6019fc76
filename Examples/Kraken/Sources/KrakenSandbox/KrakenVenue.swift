import Foundation
import SandboxKit

/// One order as the sandbox keeps it.
struct KrakenSandboxOrder: Sendable {
    enum Status: String, Sendable { case open, closed, canceled, expired }

    var txid: String
    var account: String
    var pairId: String
    var side: TradeSide
    /// `market` or `limit`.
    var ordertype: String
    var volume: Decimal
    var executed: Decimal = 0
    /// What the fills cost, in the quote asset.
    var cost: Decimal = 0
    var limit: Decimal?
    var status: Status = .open
    var opened: Date
    var closed: Date?
    var clientOrderId: String?
    var userref: Int64?
    var reason: String?
    var trades: [String] = []
    var sequence: Int

    var average: Decimal? { executed > 0 ? cost / executed : nil }
    var remaining: Decimal { volume - executed }
}

/// The venue: wallets, orders and matching, apart from HTTP. Orders trade against the shared market's quote with
/// SandboxKit's rules (``OrderMatching``: a market order at the touch; a limit order at the touch once the touch
/// reaches its limit), whole. Open orders hold funds: a buy `limit × remaining` of the quote asset, a sell the
/// remaining volume of the base asset (what BalanceEx reports as `hold_trade`). There are no fees.
struct KrakenVenue: Sendable {
    var wallets: [String: [String: Decimal]] = [:]
    var orders: [String: KrakenSandboxOrder] = [:]
    var sequence = 0
    var random = SystemRandomNumberGenerator()

    /// What open orders of `account` hold of `asset`.
    func held(account: String, asset: String, listings: [String: KrakenListing]) -> Decimal {
        var total: Decimal = 0
        for order in orders.values where order.account == account && order.status == .open {
            guard let listing = listings[order.pairId] else { continue }
            switch order.side {
            case .buy where listing.quote == asset: total += (order.limit ?? 0) * order.remaining
            case .sell where listing.base == asset: total += order.remaining
            default: break
            }
        }
        return total
    }

    func available(account: String, asset: String, listings: [String: KrakenListing]) -> Decimal {
        (wallets[account]?[asset] ?? 0) - held(account: account, asset: asset, listings: listings)
    }

    /// A new txid in Kraken's shape (`OQCLML-BW3P3-BUCMWZ`: 6, 5 and 6 capitals and digits).
    mutating func txid(prefix: Character = "O") -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        func part(_ count: Int) -> String { String((0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }) }
        return "\(prefix)\(part(5))-\(part(5))-\(part(6))"
    }

    /// Places an order (already validated) and trades it at once where it can: checks the funds first.
    mutating func place(
        account: String,
        listing: KrakenListing,
        side: TradeSide,
        ordertype: String,
        volume: Decimal,
        limit: Decimal?,
        immediateOrCancel: Bool,
        clientOrderId: String?,
        userref: Int64?,
        quote: MarketQuote,
        now: Date,
        listings: [String: KrakenListing]
    ) throws(KrakenAPIError) -> String {
        let price = ordertype == "market" ? OrderMatching.marketPrice(side: side, quote: quote) : limit ?? 0
        switch side {
        case .buy:
            guard price * volume <= available(account: account, asset: listing.quote, listings: listings) else { throw .insufficientFunds }
        case .sell:
            guard volume <= available(account: account, asset: listing.base, listings: listings) else { throw .insufficientFunds }
        }
        sequence += 1
        var order = KrakenSandboxOrder(
            txid: txid(),
            account: account,
            pairId: listing.id,
            side: side,
            ordertype: ordertype,
            volume: volume,
            limit: limit,
            opened: now,
            clientOrderId: clientOrderId,
            userref: userref,
            sequence: sequence
        )
        let fill: Decimal? =
            ordertype == "market"
            ? OrderMatching.marketPrice(side: side, quote: quote)
            : OrderMatching.limitPrice(side: side, limit: limit ?? 0, quote: quote)
        if let fill {
            execute(&order, at: fill, listing: listing, now: now)
        } else if immediateOrCancel {
            order.status = .canceled
            order.closed = now
            order.reason = "Insufficient liquidity"
        }
        orders[order.txid] = order
        return order.txid
    }

    /// Fills what remains of `order` at `price`: the base asset moves one way, `price × volume` of the quote the other.
    mutating func execute(_ order: inout KrakenSandboxOrder, at price: Decimal, listing: KrakenListing, now: Date) {
        let volume = order.remaining
        let cost = price * volume
        var wallet = wallets[order.account] ?? [:]
        switch order.side {
        case .buy:
            wallet[listing.quote, default: 0] -= cost
            wallet[listing.base, default: 0] += volume
        case .sell:
            wallet[listing.base, default: 0] -= volume
            wallet[listing.quote, default: 0] += cost
        }
        wallets[order.account] = wallet
        order.executed += volume
        order.cost += cost
        order.status = .closed
        order.closed = now
        order.trades.append(txid(prefix: "T"))
    }

    /// Fills every open limit order the market's touch has reached (the lazy tick, at the start of each request).
    mutating func match(quotes: (String) -> MarketQuote?, listings: [String: KrakenListing], now: Date) {
        for txid in orders.keys.sorted() {
            guard var order = orders[txid], order.status == .open, let listing = listings[order.pairId],
                let quote = quotes(listing.symbol), let limit = order.limit,
                let price = OrderMatching.limitPrice(side: order.side, limit: limit, quote: quote)
            else { continue }
            execute(&order, at: price, listing: listing, now: now)
            orders[txid] = order
        }
    }

    /// Amends an open limit order of `account` in place (AmendOrder): a new total quantity and/or limit price, the
    /// funds checked for the new hold, then traded at once if the new limit crosses the touch. A quantity at or below
    /// what already filled cancels the rest (SPEC). Returns the amend id.
    mutating func amend(
        account: String,
        txid: String,
        quantity: Decimal?,
        limit: Decimal?,
        quote: MarketQuote?,
        now: Date,
        listings: [String: KrakenListing]
    ) throws(KrakenAPIError) -> String {
        guard var order = orders[txid], order.account == account, order.status == .open, let listing = listings[order.pairId] else {
            throw .unknownOrder
        }
        guard order.ordertype == "limit" else { throw .invalidArguments("limit_price") }
        let newQuantity = quantity ?? order.volume
        let newLimit = limit ?? order.limit ?? 0
        let remaining = newQuantity - order.executed
        switch order.side {
        case .buy:
            let spare = available(account: account, asset: listing.quote, listings: listings) + (order.limit ?? 0) * order.remaining
            guard newLimit * max(0, remaining) <= spare else { throw .insufficientFunds }
        case .sell:
            let spare = available(account: account, asset: listing.base, listings: listings) + order.remaining
            guard max(0, remaining) <= spare else { throw .insufficientFunds }
        }
        order.volume = newQuantity
        order.limit = newLimit
        if remaining <= 0 {
            order.volume = order.executed
            order.status = order.executed > 0 ? .closed : .canceled
            order.closed = now
            order.reason = "Order quantity reduced below filled quantity"
        } else if let quote, let price = OrderMatching.limitPrice(side: order.side, limit: newLimit, quote: quote) {
            execute(&order, at: price, listing: listing, now: now)
        }
        orders[txid] = order
        return self.txid(prefix: "T")
    }

    /// Cancels an open order of `account`; `EOrder:Unknown order` for any other.
    mutating func cancel(account: String, txid: String, now: Date) throws(KrakenAPIError) {
        guard var order = orders[txid], order.account == account, order.status == .open else { throw .unknownOrder }
        order.status = .canceled
        order.closed = now
        order.reason = "User requested"
        orders[txid] = order
    }
}
