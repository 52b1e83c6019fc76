import Foundation
import SandboxKit

/// What trading operations need besides the account itself.
struct AlpacaTradingEnvironment {
    let market: MarketEngine
    let assets: AlpacaAssets
    let configuration: AlpacaSandboxConfiguration
    let now: Date

    func quote(_ instrument: MarketInstrument) -> MarketQuote? {
        market.quote(symbol: instrument.symbol, at: now)
    }

    /// The last price and the previous close, for valuing a position (cheaper than a quote).
    func valuation(_ instrument: MarketInstrument) -> (last: Decimal, previousClose: Decimal)? {
        market.valuation(symbol: instrument.symbol, at: now)
    }

    /// Whether an order for `instrument` may execute now.
    func canExecute(_ instrument: MarketInstrument, extendedHours: Bool) -> Bool {
        guard instrument.assetClass == .equity, configuration.marketHours == .regular else { return true }
        return USEquityHours.isRegularSessionOpen(at: now) || (extendedHours && USEquityHours.isExtendedSessionOpen(at: now))
    }
}

extension AlpacaAccountBook {
    // MARK: Balances

    /// Cash set aside for open buy orders: limit price for limit-style orders, the current ask otherwise.
    func reservedCash(excluding excluded: UUID? = nil, env: AlpacaTradingEnvironment) -> Decimal {
        var total: Decimal = 0
        for order in orders where order.status.isOpen && order.side == .buy && order.id != excluded {
            // What is still to buy: a partly filled order has paid for its fills already.
            total += estimatedCost(
                of: order.remainingQty,
                notional: order.notional.map { max(0, $0 - order.filledValue) },
                type: order.type,
                limit: order.limitPrice,
                stop: order.stopPrice,
                instrument: order.instrument,
                env: env
            )
        }
        return total
    }

    func estimatedCost(
        of qty: Decimal?,
        notional: Decimal?,
        type: AlpacaOrderType,
        limit: Decimal?,
        stop: Decimal?,
        instrument: MarketInstrument,
        env: AlpacaTradingEnvironment
    ) -> Decimal {
        if let notional { return notional }
        guard let qty else { return 0 }
        let ask = env.quote(instrument)?.ask ?? instrument.referencePrice
        let price: Decimal =
            switch type {
            case .limit, .stop_limit: limit ?? ask
            case .stop: max(stop ?? ask, ask)
            case .market, .trailing_stop: ask
            }
        return qty * price
    }

    func buyingPower(env: AlpacaTradingEnvironment) -> Decimal {
        max(0, cash - reservedCash(env: env))
    }

    /// Quantity of `instrument` committed to open sell orders.
    func heldForOrders(_ instrument: MarketInstrument, excluding excluded: UUID? = nil) -> Decimal {
        orders.filter { $0.status.isOpen && $0.side == .sell && $0.instrument.id == instrument.id && $0.id != excluded }
            .reduce(0) { $0 + ($1.remainingQty ?? 0) }
    }

    /// ``heldForOrders(_:excluding:)`` for every instrument with an open sell order, in one pass over the orders (the
    /// same sums in the same order), for listing all positions at once.
    func heldForOrdersByInstrument(math: DecimalMath = .fast) -> [UUID: Decimal] {
        var held: [UUID: Decimal] = [:]
        for order in orders where order.status.isOpen && order.side == .sell {
            held[order.instrument.id] = math.sum(held[order.instrument.id] ?? 0, order.remainingQty ?? 0)
        }
        return held
    }

    // MARK: Submitting

    mutating func submit(_ request: AlpacaOrderRequest, env: AlpacaTradingEnvironment) throws(AlpacaAPIError) -> AlpacaOrder {
        let clientOrderID = request.clientOrderID ?? RandomID.uuid()
        guard clientOrderIDs[clientOrderID] == nil else { throw .invalid("client_order_id must be unique") }
        try checkFunds(
            side: request.side,
            qty: request.qty,
            notional: request.notional,
            type: request.type,
            limit: request.limitPrice,
            stop: request.stopPrice,
            instrument: request.instrument,
            excluding: nil,
            env: env
        )

        let now = env.now
        let intent = request.positionIntent ?? (request.side == .buy ? .buy_to_open : .sell_to_close)
        let order = AlpacaOrder(
            id: UUID(),
            clientOrderID: clientOrderID,
            createdAt: now,
            updatedAt: now,
            submittedAt: now,
            expiresAt: expiry(for: request.timeInForce, instrument: request.instrument, env: env),
            instrument: request.instrument,
            notional: request.notional,
            qty: request.qty,
            type: request.type,
            side: request.side,
            positionIntent: request.instrument.assetClass == .crypto ? nil : intent,
            timeInForce: request.timeInForce,
            limitPrice: request.limitPrice,
            stopPrice: request.stopPrice,
            trailPrice: request.trailPrice,
            trailPercent: request.trailPercent,
            status: env.canExecute(request.instrument, extendedHours: request.extendedHours) ? .new : .accepted,
            extendedHours: request.extendedHours
        )
        insert(order)
        if env.configuration.fillsOnSubmission || order.timeInForce == .ioc || order.timeInForce == .fok {
            evaluate(orderID: order.id, env: env)
        }
        return self.order(order.id)!
    }

    /// 403s for orders the account cannot pay for or deliver.
    func checkFunds(
        side: TradeSide,
        qty: Decimal?,
        notional: Decimal?,
        type: AlpacaOrderType,
        limit: Decimal?,
        stop: Decimal?,
        instrument: MarketInstrument,
        excluding: UUID?,
        env: AlpacaTradingEnvironment
    ) throws(AlpacaAPIError) {
        switch side {
        case .buy:
            let cost = estimatedCost(of: qty, notional: notional, type: type, limit: limit, stop: stop, instrument: instrument, env: env)
            let available = max(0, cash - reservedCash(excluding: excluding, env: env))
            guard cost <= available else {
                if instrument.assetClass == .crypto {
                    let availableText = DecimalText.format(DecimalText.round(available, scale: 2, .down))
                    throw .forbidden(
                        "insufficient balance for \(instrument.currency) (requested: \(DecimalText.format(DecimalText.round(cost, scale: 2, .up))), available: \(availableText))",
                        [
                            .init(key: "available", value: .string(availableText)),
                            .init(key: "balance", value: .string(DecimalText.format(DecimalText.round(cash, scale: 2, .down)))),
                            .init(key: "symbol", value: .string(instrument.currency)),
                        ]
                    )
                }
                throw .forbidden(
                    "insufficient buying power",
                    [
                        .init(key: "buying_power", value: .string(DecimalText.format(DecimalText.round(available, scale: 2, .down)))),
                        .init(key: "cost_basis", value: .string(DecimalText.format(DecimalText.round(cost, scale: 2, .up)))),
                    ]
                )
            }
        case .sell:
            let existing = positions[instrument.symbol]?.qty ?? 0
            let held = heldForOrders(instrument, excluding: excluding)
            let available = max(0, existing - held)
            let requested =
                qty
                ?? {
                    // A notional sell asks for the quantity worth that much at the bid.
                    let bid = env.quote(instrument)?.bid ?? instrument.referencePrice
                    return DecimalText.round((notional ?? 0) / bid, scale: 9, .up)
                }()
            guard requested <= available else {
                if instrument.assetClass == .crypto {
                    throw .forbidden(
                        "insufficient balance for \(instrument.baseCurrency ?? instrument.symbol) (requested: \(DecimalText.format(requested)), available: \(DecimalText.format(available)))",
                        [
                            .init(key: "available", value: .string(DecimalText.format(available))),
                            .init(key: "balance", value: .string(DecimalText.format(existing))),
                            .init(key: "symbol", value: .string(instrument.baseCurrency ?? instrument.symbol)),
                        ]
                    )
                }
                throw .forbidden(
                    "insufficient qty available for order (requested: \(DecimalText.format(requested)), available: \(DecimalText.format(available)))",
                    [
                        .init(key: "available", value: .string(DecimalText.format(available))),
                        .init(key: "existing_qty", value: .string(DecimalText.format(existing))),
                        .init(key: "held_for_orders", value: .string(DecimalText.format(held))),
                        .init(key: "symbol", value: .string(instrument.symbol)),
                    ]
                )
            }
        }
    }

    /// When an order lapses: day orders at the next regular close, GTC after 90 days, IOC/FOK never rest.
    func expiry(for timeInForce: AlpacaTimeInForce, instrument: MarketInstrument, env: AlpacaTradingEnvironment) -> Date? {
        switch timeInForce {
        case .day, .opg, .cls: USEquityHours.nextClose(after: env.now)
        case .gtc: env.now.addingTimeInterval(90 * 86_400)
        case .ioc, .fok: nil
        }
    }

    // MARK: Matching

    /// The lazy "tick": expires and fills every open order against the current market.
    mutating func evaluateAll(env: AlpacaTradingEnvironment) {
        rollLastEquity(env: env)
        for order in orders where order.status.isOpen {
            evaluate(orderID: order.id, env: env)
        }
    }

    mutating func evaluate(orderID: UUID, env: AlpacaTradingEnvironment) {
        guard var order = self.order(orderID), order.status.isOpen else { return }
        let now = env.now
        if let expiresAt = order.expiresAt, now >= expiresAt {
            order.status = .expired
            order.expiredAt = now
            order.updatedAt = now
            update(order)
            return
        }
        guard env.canExecute(order.instrument, extendedHours: order.extendedHours) else { return }
        if order.status == .accepted {
            order.status = .new
            order.updatedAt = now
        }
        guard let quote = env.quote(order.instrument) else {
            update(order)
            return
        }
        var matching = order.matching
        let price = OrderMatching.evaluate(order.executionTerms, side: order.side, quote: quote, state: &matching)
        if matching != order.matching {
            order.matching = matching
            order.updatedAt = now
        }
        if let price {
            fill(&order, at: price, env: env)
        }
        // An IOC order cancels what the touch could not fill at once (a FOK one fills all of it or nothing).
        if order.status.isOpen, order.timeInForce == .ioc || order.timeInForce == .fok {
            order.status = .canceled
            order.canceledAt = now
            order.updatedAt = now
        }
        update(order)
    }

    /// What an order still has to fill at `price`: the rest of its quantity, or for a notional order the quantity the
    /// rest of its amount buys at that price (to 9 decimal places, rounded down).
    static func remainingQuantity(of order: AlpacaOrder, at price: Decimal) -> Decimal {
        if let remaining = order.remainingQty { return remaining }
        let amount = max(0, (order.notional ?? 0) - order.filledValue)
        return DecimalText.round(amount / price, scale: 9, .down)
    }

    /// The average price of `qty` units that cost `value`, to 9 decimal places (exact for a single price).
    static func averagePrice(value: Decimal, qty: Decimal) -> Decimal {
        DecimalText.round(value / qty, scale: 9)
    }

    /// Fills what the venue has of the order at `price`: all of it when the market's depth is unlimited, else what
    /// ``MarketEngine/take(upTo:of:)`` gives (nothing this tick when the touch is empty). A part fill leaves the order
    /// `partially_filled` with its cumulative `filled_qty` and volume-weighted `filled_avg_price`, and `filled_at`
    /// still null: Alpaca's order object sets `filled_at` when the order is filled, and reports each part on
    /// `trade_updates` as a `partial_fill` event whose `qty` and `price` are that execution's (docs.alpaca.markets,
    /// "Websocket Streaming: Order Updates"; alpaca-py `TradeUpdate`, `TradeEvent.PARTIAL_FILL`). A FOK order takes
    /// nothing unless its whole remainder is there.
    private mutating func fill(_ order: inout AlpacaOrder, at price: Decimal, env: AlpacaTradingEnvironment) {
        let now = env.now
        let instrument = order.instrument
        let wanted = Self.remainingQuantity(of: order, at: price)
        let existing = positions[instrument.symbol]
        if wanted <= 0 || (order.side == .sell && wanted > (existing?.qty ?? 0)) {
            // Nothing (left) to trade: the venue rejects it.
            order.status = .rejected
            order.failedAt = now
            order.updatedAt = now
            return
        }
        if order.timeInForce == .fok, let depth = env.market.depth(for: instrument.symbol), depth < wanted { return }
        let qty = env.market.take(upTo: wanted, of: instrument.symbol)
        guard qty > 0 else { return }
        let amount = qty * price
        switch order.side {
        case .buy:
            cash -= amount
            if var position = existing {
                position.qty += qty
                position.costBasis += amount
                positions[instrument.symbol] = position
            } else {
                positions[instrument.symbol] = AlpacaPosition(instrument: instrument, qty: qty, costBasis: amount, openedAt: now)
            }
        case .sell:
            guard var position = existing else { return }
            cash += amount
            let remaining = position.qty - qty
            if remaining.isZero {
                positions.removeValue(forKey: instrument.symbol)
            } else {
                position.costBasis = DecimalText.round(position.costBasis * remaining / position.qty, scale: 9)
                position.qty = remaining
                positions[instrument.symbol] = position
            }
        }
        let value = order.filledValue + amount
        order.filledQty += qty
        order.filledNotional = value
        order.filledAvgPrice = Self.averagePrice(value: value, qty: order.filledQty)
        order.updatedAt = now
        if qty < wanted {
            order.status = .partially_filled
        } else {
            order.filledAt = now
            order.status = .filled
        }
    }

    /// `last_equity`: equity at the previous close, snapshotted once per UTC day.
    mutating func rollLastEquity(env: AlpacaTradingEnvironment) {
        let day = Timestamp.floorDiv(Timestamp.unixSeconds(env.now), 86_400)
        guard day != lastEquityDay else { return }
        lastEquityDay = day
        let math = DecimalMath.fast
        var value = cash
        for position in positions.values {
            value = math.sum(
                value,
                math.product(position.qty, env.valuation(position.instrument)?.previousClose ?? position.instrument.referencePrice)
            )
        }
        lastEquity = value
    }

    // MARK: Replacing and cancelling

    mutating func replace(
        orderID: UUID,
        with request: AlpacaReplaceRequest,
        env: AlpacaTradingEnvironment
    ) throws(AlpacaAPIError)
        -> AlpacaOrder
    {
        guard var old = order(orderID) else { throw .notFound("order not found") }
        guard old.status.isOpen else { throw .unprocessable("order is already in \"\(old.status.rawValue)\" state") }

        var new = old
        if let qty = request.qty {
            guard old.notional == nil else { throw .unprocessable("cannot replace the qty of a notional order") }
            if old.instrument.assetClass == .equity, !DecimalText.isMultiple(qty, of: old.instrument.lotSize), new.timeInForce != .day {
                throw .unprocessable("fractional orders must be DAY orders")
            }
            new.qty = qty
        }
        if let tif = request.timeInForce {
            if old.instrument.assetClass == .crypto, tif != .gtc, tif != .ioc { throw .unprocessable("invalid crypto time_in_force") }
            new.timeInForce = tif
        }
        if let limit = request.limitPrice {
            guard old.type == .limit || old.type == .stop_limit else {
                throw .unprocessable("cannot replace limit_price of a \(old.type.rawValue) order")
            }
            new.limitPrice = limit
        }
        if let stop = request.stopPrice {
            guard old.type == .stop || old.type == .stop_limit else {
                throw .unprocessable("cannot replace stop_price of a \(old.type.rawValue) order")
            }
            new.stopPrice = stop
        }
        if let trail = request.trail {
            guard old.type == .trailing_stop else { throw .unprocessable("cannot replace trail of a \(old.type.rawValue) order") }
            if new.trailPrice != nil { new.trailPrice = trail } else { new.trailPercent = trail }
        }
        let clientOrderID = request.clientOrderID ?? RandomID.uuid()
        guard clientOrderIDs[clientOrderID] == nil else { throw .invalid("client_order_id must be unique") }
        try checkFunds(
            side: new.side,
            qty: new.qty,
            notional: new.notional,
            type: new.type,
            limit: new.limitPrice,
            stop: new.stopPrice,
            instrument: new.instrument,
            excluding: old.id,
            env: env
        )

        let now = env.now
        new.id = UUID()
        new.clientOrderID = clientOrderID
        new.createdAt = now
        new.updatedAt = now
        new.submittedAt = now
        new.replaces = old.id
        new.replacedBy = nil
        new.replacedAt = nil
        // The replacement starts with no fills of its own: the old order keeps what it filled.
        new.filledQty = 0
        new.filledAvgPrice = nil
        new.filledNotional = nil
        new.filledAt = nil
        new.expiresAt = expiry(for: new.timeInForce, instrument: new.instrument, env: env)
        new.status = env.canExecute(new.instrument, extendedHours: new.extendedHours) ? .new : .accepted
        new.matching = OrderMatching.RestingState()

        old.status = .replaced
        old.replacedBy = new.id
        old.replacedAt = now
        old.updatedAt = now
        update(old)
        insert(new)
        if env.configuration.fillsOnSubmission || new.timeInForce == .ioc || new.timeInForce == .fok {
            evaluate(orderID: new.id, env: env)
        }
        return order(new.id)!
    }

    mutating func cancel(orderID: UUID, env: AlpacaTradingEnvironment) throws(AlpacaAPIError) -> AlpacaOrder {
        guard var order = order(orderID) else { throw .notFound("order not found") }
        guard order.status.isOpen else { throw .unprocessable("order is already in \"\(order.status.rawValue)\" state") }
        order.status = .canceled
        order.canceledAt = env.now
        order.updatedAt = env.now
        update(order)
        return order
    }

    /// Cancels every open order; returns them after cancellation.
    mutating func cancelAll(env: AlpacaTradingEnvironment) -> [AlpacaOrder] {
        orders.filter(\.status.isOpen).compactMap { try? cancel(orderID: $0.id, env: env) }
    }

    // MARK: Positions

    /// Sells `qty` or `percentage` (0–100) of a position, or all of it, with a market order.
    mutating func closePosition(
        _ instrument: MarketInstrument,
        qty: Decimal?,
        percentage: Decimal?,
        env: AlpacaTradingEnvironment
    ) throws(AlpacaAPIError) -> AlpacaOrder {
        guard let position = positions[instrument.symbol] else {
            throw .notFound("position not found: \(AlpacaAssets.positionSymbol(instrument))")
        }
        var amount = position.qty
        if let qty {
            guard qty > 0 else { throw .invalid("qty must be > 0") }
            amount = qty
        } else if let percentage {
            guard percentage > 0, percentage <= 100 else { throw .invalid("percentage must be > 0 and <= 100") }
            amount = DecimalText.round(position.qty * percentage / 100, scale: 9, .down)
            guard amount > 0 else { throw .invalid("percentage too small for the position") }
        }
        return try submit(AlpacaOrderRequest(closing: instrument, qty: amount), env: env)
    }

    // MARK: Watchlists

    func watchlist(_ id: UUID) -> AlpacaWatchlist? {
        watchlists.first { $0.id == id }
    }

    func watchlist(named name: String) -> AlpacaWatchlist? {
        watchlists.first { $0.name == name }
    }

    mutating func store(_ watchlist: AlpacaWatchlist) {
        if let index = watchlists.firstIndex(where: { $0.id == watchlist.id }) {
            watchlists[index] = watchlist
        } else {
            watchlists.append(watchlist)
        }
    }
}
