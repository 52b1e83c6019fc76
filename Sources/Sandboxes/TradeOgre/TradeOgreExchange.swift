import Foundation
import SandboxKit

/// A market the TradeOgre sandbox lists: a crypto pair of the shared market and its wire name.
struct TradeOgreListing: Sendable {
    var instrument: MarketInstrument
    var base: String
    var quote: String
    /// `XMR-BTC` (or `BTC-XMR` with the older naming).
    var wireName: String
    /// The shared market's price path for this instrument, for prices in the past (history, charts).
    var path: PricePath
    var symbol: String { instrument.symbol }
}

/// An order an account placed, as the venue remembers it.
struct TradeOgreOrderRecord: Sendable, Hashable, Codable {
    enum State: Sendable, Hashable, Codable { case open, filled, cancelled }

    var id: UUID
    var account: String
    var symbol: String
    var side: TradeSide
    var price: Decimal
    var quantity: Decimal
    var filled: Decimal
    var date: Date
    var state: State

    var remaining: Decimal { quantity - filled }
}

/// One execution in a market's public history; `side` is the side of the order that arrived (the taker).
struct TradeOgreTrade: Sendable, Hashable, Codable {
    var date: Date
    var side: TradeSide
    var price: Decimal
    var quantity: Decimal
}

/// Everything the TradeOgre sandbox keeps: books, wallets, the accounts' orders and the public trade history.
/// Guarded by one lock in ``TradeOgreSandbox``; every method here runs inside it.
struct TradeOgreExchange: Sendable, Codable {
    var books: [String: TradeOgreOrderBook] = [:]
    /// Account key → currency → total (held amounts included).
    var wallets: [String: [String: Decimal]] = [:]
    var orders: [UUID: TradeOgreOrderRecord] = [:]
    /// Oldest first, at most ``historyLimit`` per market.
    var trades: [String: [TradeOgreTrade]] = [:]
    /// The shared market's quote the synthetic maker last quoted around, per market.
    var quoted: [String: MarketQuote] = [:]
    var sequence: UInt64 = 0

    static let historyLimit = 500
    static let scale = 8

    mutating func nextSequence() -> UInt64 {
        sequence += 1
        return sequence
    }

    // MARK: Balances

    /// What the account's open orders hold in `currency`: the quote amount of buys (rounded up to 8 decimals), the
    /// base amount of sells.
    func held(account: String, currency: String, listings: [String: TradeOgreListing]) -> Decimal {
        var held: Decimal = 0
        for order in orders.values where order.account == account && order.state == .open {
            guard let listing = listings[order.symbol] else { continue }
            switch order.side {
            case .buy where listing.quote == currency:
                held += DecimalText.round(order.remaining * order.price, scale: Self.scale, .up)
            case .sell where listing.base == currency:
                held += order.remaining
            default: break
            }
        }
        return held
    }

    func total(account: String, currency: String) -> Decimal {
        wallets[account]?[currency] ?? 0
    }

    func available(account: String, currency: String, listings: [String: TradeOgreListing]) -> Decimal {
        total(account: account, currency: currency) - held(account: account, currency: currency, listings: listings)
    }

    // MARK: Orders

    /// Checks funds, records the order, matches it and rests what is left. Returns the order's uuid.
    mutating func place(
        account: String,
        listing: TradeOgreListing,
        side: TradeSide,
        price: Decimal,
        quantity: Decimal,
        now: Date,
        listings: [String: TradeOgreListing]
    ) throws(TradeOgreAPIError) -> UUID {
        switch side {
        case .buy:
            let cost = DecimalText.round(quantity * price, scale: Self.scale, .up)
            guard cost <= available(account: account, currency: listing.quote, listings: listings) else {
                throw .insufficientFunds
            }
        case .sell:
            guard quantity <= available(account: account, currency: listing.base, listings: listings) else {
                throw .insufficientFunds
            }
        }
        let id = UUID()
        orders[id] = TradeOgreOrderRecord(
            id: id,
            account: account,
            symbol: listing.symbol,
            side: side,
            price: price,
            quantity: quantity,
            filled: 0,
            date: now,
            state: .open
        )
        submit(
            TradeOgreBookOrder(
                id: id,
                owner: .account(account),
                side: side,
                price: price,
                remaining: quantity,
                sequence: nextSequence()
            ),
            listing: listing,
            now: now
        )
        return id
    }

    /// Cancels one open order of the account.
    mutating func cancel(account: String, id: UUID) throws(TradeOgreAPIError) {
        guard var order = orders[id], order.account == account, order.state == .open else { throw .orderNotFound }
        books[order.symbol]?.remove(id: id)
        order.state = .cancelled
        orders[id] = order
    }

    /// Cancels every open order of the account in every market.
    mutating func cancelAll(account: String) {
        for (id, order) in orders where order.account == account && order.state == .open {
            books[order.symbol]?.remove(id: id)
            orders[id]?.state = .cancelled
        }
    }

    /// Puts an order on its book and settles whatever it trades.
    mutating func submit(_ order: TradeOgreBookOrder, listing: TradeOgreListing, now: Date) {
        var book = books[listing.symbol] ?? TradeOgreOrderBook()
        let fills = book.submit(order)
        books[listing.symbol] = book
        for fill in fills { settle(fill, listing: listing, now: now) }
    }

    /// Moves the base and quote amounts of one execution between the accounts involved (the maker and the
    /// participants have unlimited wallets), advances both orders and writes the trade into the history.
    /// The quote amount is rounded down to 8 decimals for both sides, so a buyer never pays more than its order held.
    mutating func settle(_ fill: TradeOgreFill, listing: TradeOgreListing, now: Date) {
        let amount = DecimalText.round(fill.quantity * fill.price, scale: Self.scale, .down)
        let buyer = fill.taker.side == .buy ? fill.taker : fill.maker
        let seller = fill.taker.side == .buy ? fill.maker : fill.taker
        if case .account(let key) = buyer.owner {
            wallets[key, default: [:]][listing.base, default: 0] += fill.quantity
            wallets[key, default: [:]][listing.quote, default: 0] -= amount
        }
        if case .account(let key) = seller.owner {
            wallets[key, default: [:]][listing.base, default: 0] -= fill.quantity
            wallets[key, default: [:]][listing.quote, default: 0] += amount
        }
        for id in [fill.taker.id, fill.maker.id] {
            guard var record = orders[id] else { continue }
            record.filled += fill.quantity
            if record.remaining <= 0 { record.state = .filled }
            orders[id] = record
        }
        var history = trades[listing.symbol] ?? []
        history.append(TradeOgreTrade(date: now, side: fill.taker.side, price: fill.price, quantity: fill.quantity))
        if history.count > Self.historyLimit { history.removeFirst(history.count - Self.historyLimit) }
        trades[listing.symbol] = history
    }

    // MARK: Synthetic liquidity

    /// Replaces the synthetic maker's orders with fresh ones around `quote`: `levels` sells from the ask upwards and
    /// `levels` buys from the bid downwards, spaced by `spacing` of the mid price. The new orders arrive like any
    /// other, so they trade with resting orders the market has moved through (at those orders' prices).
    mutating func requote(listing: TradeOgreListing, quote: MarketQuote, levels: Int, spacing: Decimal, now: Date) {
        books[listing.symbol, default: TradeOgreOrderBook()].removeAll { $0.owner == .maker }
        quoted[listing.symbol] = quote
        guard levels > 0 else { return }
        let tick = listing.instrument.tickSize
        let step = max(tick, DecimalText.round(quote.mid * spacing, toMultipleOf: tick))
        func size(_ base: Decimal, level: Int) -> Decimal {
            max(listing.instrument.lotSize, DecimalText.round(base * Decimal(level + 1) / 2, scale: Self.scale))
        }
        for level in 0..<levels {
            let price = quote.ask + Decimal(level) * step
            submit(
                TradeOgreBookOrder(
                    id: UUID(),
                    owner: .maker,
                    side: .sell,
                    price: price,
                    remaining: size(quote.askSize, level: level),
                    sequence: nextSequence()
                ),
                listing: listing,
                now: now
            )
        }
        for level in 0..<levels {
            let price = quote.bid - Decimal(level) * step
            guard price >= tick else { break }
            submit(
                TradeOgreBookOrder(
                    id: UUID(),
                    owner: .maker,
                    side: .buy,
                    price: price,
                    remaining: size(quote.bidSize, level: level),
                    sequence: nextSequence()
                ),
                listing: listing,
                now: now
            )
        }
    }

    /// Orders of other participants at fixed offsets from the price when the sandbox starts.
    mutating func seedParticipants(listing: TradeOgreListing, reference: Decimal, offsets: [Decimal], now: Date) {
        let tick = listing.instrument.tickSize
        for (index, offset) in offsets.enumerated() where offset != 0 {
            let price = max(tick, DecimalText.round(reference * (1 + offset), toMultipleOf: tick))
            let quantity = listing.instrument.sizeUnit * Decimal(2 + index % 3)
            submit(
                TradeOgreBookOrder(
                    id: UUID(),
                    owner: .participant,
                    side: offset < 0 ? .buy : .sell,
                    price: price,
                    remaining: quantity,
                    sequence: nextSequence()
                ),
                listing: listing,
                now: now
            )
        }
    }

    /// A deterministic past: one trade a minute for `count` minutes before `now`, at the shared market's price then.
    mutating func seedHistory(listing: TradeOgreListing, count: Int, seed: UInt64, bucketSeconds: Int, now: Date) {
        guard count > 0 else { return }
        let nowSeconds = Timestamp.unixSeconds(now)
        var history: [TradeOgreTrade] = []
        for index in 0..<count {
            let seconds = nowSeconds - Int64(count - index) * 60
            let bucket = Timestamp.floorDiv(seconds, Int64(bucketSeconds))
            let word = StableHash.combine(seed, StableHash.fnv1a(listing.symbol), UInt64(bitPattern: seconds))
            let quantity = DecimalText.round(
                listing.instrument.sizeUnit * Decimal(1 + Int(word % 9)) / 10,
                scale: Self.scale
            )
            history.append(
                TradeOgreTrade(
                    date: Date(timeIntervalSince1970: Double(seconds)),
                    side: word & 0x100 == 0 ? .buy : .sell,
                    price: listing.path.price(bucket: bucket),
                    quantity: max(listing.instrument.lotSize, quantity)
                )
            )
        }
        trades[listing.symbol] = history + (trades[listing.symbol] ?? [])
    }
}
