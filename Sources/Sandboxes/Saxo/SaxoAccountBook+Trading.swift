import Foundation
import SandboxKit

/// The order terms that validation looks at, shared by placing, changing and prechecking.
struct SaxoOrderTerms {
    var instrument: SaxoInstrument
    var side: TradeSide
    var amount: Decimal
    var type: SaxoOrderType
    var price: Decimal?
    var stopLimitPrice: Decimal?
    var trailingStopDistance: Decimal?
}

extension SaxoAccountBook {
    // MARK: Validation

    /// Saxo's trading checks, in the order a client is most likely to trip them.
    func validate(_ terms: SaxoOrderTerms, excluding excluded: String?, env: SaxoTradingEnvironment) throws(SaxoAPIError) {
        let instrument = terms.instrument
        guard terms.amount > 0, terms.amount <= 1_000_000_000_000, DecimalText.isMultiple(terms.amount, of: instrument.market.lotSize) else {
            throw .trading("IllegalAmount", "Illegal amount")
        }
        let tick = instrument.market.tickSize
        if terms.type.needsPrice {
            for price in [terms.price, terms.type == .StopLimit ? terms.stopLimitPrice : nil].compactMap({ $0 }) {
                guard price > 0 else { throw .trading("IllegalPrice", "Price must be greater than zero") }
                guard DecimalText.isMultiple(price, of: tick) else {
                    throw .trading("PriceNotInTickSizeIncrements", "Price is not in tick size increments")
                }
            }
        }
        if let distance = terms.trailingStopDistance, terms.type == .TrailingStop || terms.type == .TrailingStopIfTraded, distance <= 0 {
            throw .trading("IllegalPrice", "TrailingStopDistanceToMarket must be greater than zero")
        }
        let quote = env.quote(instrument)
        switch terms.type {
        case .Stop, .StopIfTraded, .StopLimit, .TrailingStop, .TrailingStopIfTraded:
            // A stop must wait on the far side of the market: above the ask to buy, below the bid to sell.
            if let quote, let stop = terms.price, OrderMatching.isStopReached(side: terms.side, stop: stop, quote: quote) {
                throw .trading("OnWrongSideOfMarket", "Price is on wrong side of market")
            }
        case .Market, .Limit:
            break
        }
        if !instrument.isFX, terms.side == .sell {
            let held = netAmount(instrument)
            let selling = orders.filter { $0.id != excluded && $0.instrument.listing.key == instrument.listing.key && $0.side == .sell }
                .reduce(Decimal(0)) { $0 + $1.remaining }
            guard terms.amount <= held - selling else {
                throw .trading("ShortTradeDisabled", "Short selling is not allowed for this instrument")
            }
        }
        let required = cashRequired(terms, env: env)
        if required > 0 {
            let valuation = accountValuation(env: env)
            let reserved = orders.filter { $0.id != excluded }.reduce(Decimal(0)) { total, order in
                total
                    + cashRequired(
                        // What a working order still ties up is what it has yet to fill.
                        SaxoOrderTerms(instrument: order.instrument, side: order.side, amount: order.remaining, type: order.type, price: order.price),
                        env: env
                    )
            }
            let available = instrument.isFX ? valuation.marginAvailable : min(valuation.cashBalance, valuation.marginAvailable)
            guard required + reserved <= available else {
                throw .trading("WouldExceedMargin", "Order would exceed margin limits")
            }
        }
    }

    /// What an order would tie up in the account currency if it filled now: margin on added FX exposure,
    /// the purchase price of stock.
    func cashRequired(_ terms: SaxoOrderTerms, env: SaxoTradingEnvironment) -> Decimal {
        let instrument = terms.instrument
        let quote = env.quote(instrument)
        if instrument.isFX {
            let net = netAmount(instrument)
            let signed = terms.side == .buy ? terms.amount : -terms.amount
            let added = max(0, abs(net + signed) - abs(net))
            return env.convert(added, from: instrument.exposureCurrency) * env.configuration.fxMarginRate
        }
        guard terms.side == .buy else { return 0 }
        let ask = quote?.ask ?? instrument.market.referencePrice
        let price: Decimal =
            switch terms.type {
            case .Limit: min(terms.price ?? ask, ask)
            case .StopLimit: terms.stopLimitPrice ?? ask
            default: max(terms.price ?? ask, ask)
            }
        return env.convert(terms.amount * price, from: instrument.market.currency)
    }

    // MARK: Placing, changing, cancelling

    mutating func place(_ request: SaxoPlaceOrderRequest, env: SaxoTradingEnvironment) throws(SaxoAPIError) -> String {
        let terms = SaxoOrderTerms(
            instrument: request.instrument,
            side: request.side,
            amount: request.amount,
            type: request.type,
            price: request.price,
            stopLimitPrice: request.stopLimitPrice,
            trailingStopDistance: request.trailingStopDistance
        )
        let now = env.now
        var order = SaxoOrder(
            id: "",
            instrument: request.instrument,
            side: request.side,
            amount: request.amount,
            type: request.type,
            price: request.price,
            stopLimitPrice: request.stopLimitPrice,
            trailingStopDistance: request.trailingStopDistance,
            trailingStopStep: request.trailingStopStep,
            duration: request.duration,
            externalReference: request.externalReference,
            manualOrder: request.manualOrder,
            orderTime: now,
            eligibleAt: now.addingTimeInterval(env.configuration.executionLatency),
            expiresAt: expiry(request.duration, instrument: request.instrument, env: env),
            correlationKey: RandomID.uuid()
        )
        do {
            try validate(terms, excluding: nil, env: env)
        } catch {
            // A placement refused on trading grounds still gets an OrderId and leaves a `Placed`/`Rejected` entry
            // in the audit (measured on Saxo's SIM, see ``SaxoOrderActivity``), findable by its ExternalReference.
            order.id = makeOrderID()
            logActivity(order, .Placed, .Rejected, by: .user, at: now)
            throw error
        }
        order.id = makeOrderID()
        orders.append(order)
        logActivity(order, .Placed, by: .user, at: now)
        evaluate(orderID: order.id, env: env)
        return order.id
    }

    /// Changes a working order; a filled, cancelled or unknown one is `OrderNotFound` (404).
    mutating func change(_ request: SaxoChangeOrderRequest, env: SaxoTradingEnvironment) throws(SaxoAPIError) -> String {
        guard let index = orders.firstIndex(where: { $0.id == request.orderID }) else { throw .orderNotFound(request.orderID) }
        let original = orders[index]
        var order = original
        if let amount = request.amount { order.amount = amount }
        if let type = request.type { order.type = type }
        // The seed app changes a market order to a limit without a price: the price it was placed with is kept.
        if let price = request.price { order.price = price }
        if let price = request.stopLimitPrice { order.stopLimitPrice = price }
        if let distance = request.trailingStopDistance { order.trailingStopDistance = distance }
        if let step = request.trailingStopStep { order.trailingStopStep = step }
        if let duration = request.duration { order.duration = duration }
        var problems: [(field: String, problems: [String])] = []
        if order.type.needsPrice, order.price == nil {
            problems.append(("OrderPrice", ["OrderPrice is required for \(order.type.rawValue) orders."]))
        }
        if order.type == .StopLimit, order.stopLimitPrice == nil {
            problems.append(("StopLimitPrice", ["StopLimitPrice is required for StopLimit orders."]))
        }
        if order.type == .TrailingStop || order.type == .TrailingStopIfTraded, order.trailingStopDistance == nil {
            problems.append(("TrailingStopDistanceToMarket", ["TrailingStopDistanceToMarket is required for trailing stops."]))
        }
        if !problems.isEmpty { throw .invalidModelState(problems) }
        // A partly filled order's `Amount` is still the whole order's: it cannot shrink to what has already filled.
        guard order.amount > order.filled else { throw .trading("IllegalAmount", "Amount must exceed the amount already filled") }
        let terms = SaxoOrderTerms(
            instrument: order.instrument,
            side: order.side,
            amount: order.remaining,
            type: order.type,
            price: order.price,
            stopLimitPrice: order.stopLimitPrice,
            trailingStopDistance: order.trailingStopDistance
        )
        do {
            try validate(terms, excluding: order.id, env: env)
        } catch {
            // The order keeps working unchanged; the audit says the change was refused.
            logActivity(original, .Changed, .Rejected, by: .user, at: env.now)
            throw error
        }
        // A changed order is a resubmission: it waits the execution latency again and starts matching afresh.
        order.eligibleAt = env.now.addingTimeInterval(env.configuration.executionLatency)
        order.expiresAt = expiry(order.duration, instrument: order.instrument, env: env)
        order.matching = OrderMatching.RestingState()
        orders[index] = order
        logActivity(order, .Changed, by: .user, at: env.now)
        evaluate(orderID: order.id, env: env)
        return order.id
    }

    /// Removes a working order the client cancels; false when there is none with that id.
    mutating func cancel(orderID: String, at time: Date) -> Bool {
        guard let index = orders.firstIndex(where: { $0.id == orderID }) else { return false }
        let order = orders.remove(at: index)
        logActivity(order, .Cancelled, by: .user, at: time)
        return true
    }

    func expiry(_ duration: SaxoDuration, instrument: SaxoInstrument, env: SaxoTradingEnvironment) -> Date? {
        switch duration.type {
        case .DayOrder, .AtTheOpening, .AtTheClose: env.endOfDay(for: instrument)
        case .GoodTillDate: duration.expirationDate
        case .GoodTillCancel, .GoodForPeriod, .ImmediateOrCancel, .FillOrKill: nil
        }
    }

    // MARK: Matching

    /// The lazy "tick": expires lapsed orders and executes those the market now reaches.
    mutating func evaluateAll(env: SaxoTradingEnvironment) {
        for id in orders.map(\.id) {
            evaluate(orderID: id, env: env)
        }
    }

    mutating func evaluate(orderID: String, env: SaxoTradingEnvironment) {
        guard let index = orders.firstIndex(where: { $0.id == orderID }) else { return }
        var order = orders[index]
        if let expiresAt = order.expiresAt, env.now >= expiresAt {
            orders.remove(at: index)
            // Logged at the moment it lapsed, not when the lazy tick noticed.
            logActivity(order, .Expired, by: .system, at: expiresAt)
            return
        }
        guard env.now >= order.eligibleAt, let quote = env.quote(order.instrument) else { return }
        var matching = order.matching
        let price = OrderMatching.evaluate(order.executionTerms, side: order.side, quote: quote, state: &matching)
        order.matching = matching
        guard let price else {
            if order.duration.type.isImmediate {
                // An immediate order the market does not reach is cancelled by the system (its remainder, in FIX terms).
                orders.remove(at: index)
                logActivity(order, .Cancelled, by: .system, at: env.now)
            } else {
                orders[index] = order
            }
            return
        }
        let instrument = order.instrument
        let symbol = instrument.market.symbol
        // A stock sell that other fills have since made uncovered is dropped rather than turned into a short. The
        // audit has no `Rejected` status (see ``SaxoOrderLogStatus``): the system cancels it.
        let uncovered = !instrument.isFX && order.side == .sell && netAmount(instrument) < order.remaining
        // Fill-or-kill fills whole or not at all: when the touch holds less than the rest, nothing is taken from it.
        let unfillable = order.duration.type == .FillOrKill && (env.market.depth(for: symbol).map { $0 < order.remaining } ?? false)
        if uncovered || unfillable {
            orders.remove(at: index)
            logActivity(order, .Cancelled, by: .system, at: env.now)
            return
        }
        // What the venue has at the touch (all of it unless a test limited the depth): a part fills now, the rest
        // keeps working (Saxo lists it among the open orders with its `FilledAmount`, and the audit logs `Fill`;
        // the fill that completes the order is `FinalFill`, see ``SaxoOrderLogStatus``).
        let amount = env.market.take(upTo: order.remaining, of: symbol)
        if amount > 0 {
            order.filledAmount = order.filled + amount
            let positionID = book(order, amount: amount, at: price, env: env)
            logActivity(
                order,
                order.remaining.isZero ? .FinalFill : .Fill,
                by: .system,
                at: env.now,
                fill: (amount, price),
                positionId: positionID
            )
        }
        if order.remaining.isZero {
            orders.remove(at: index)
        } else if order.duration.type.isImmediate {
            // Immediate-or-cancel: what the touch did not hold is cancelled by the system.
            orders.remove(at: index)
            logActivity(order, .Cancelled, by: .system, at: env.now)
        } else {
            orders[index] = order
        }
    }

    /// Books one execution of `amount` of `order` at `price`: closes opposite positions first (oldest first), then
    /// opens a new position with the rest, and moves the cash. Answers the id of the position it opened, if any.
    private mutating func book(_ order: SaxoOrder, amount: Decimal, at price: Decimal, env: SaxoTradingEnvironment) -> String? {
        let instrument = order.instrument
        let quoteRate = env.rate(from: instrument.market.currency, to: env.accountCurrency) ?? 1
        var remaining = order.side == .buy ? amount : -amount
        var index = 0
        while !remaining.isZero, index < positions.count {
            var position = positions[index]
            guard position.instrument.listing.key == instrument.listing.key, (position.amount > 0) != (remaining > 0) else {
                index += 1
                continue
            }
            let closed = min(abs(remaining), abs(position.amount))
            let direction: Decimal = position.amount > 0 ? 1 : -1
            if instrument.isFX {
                cash += (price - position.openPrice) * closed * direction * quoteRate
            } else {
                cash += closed * price * quoteRate
            }
            position.amount -= closed * direction
            remaining += closed * direction
            if position.amount.isZero {
                positions.remove(at: index)
            } else {
                positions[index] = position
                index += 1
            }
        }
        guard !remaining.isZero else { return nil }
        if !instrument.isFX { cash -= remaining * price * quoteRate }
        let positionID = makePositionID()
        positions.append(
            SaxoPosition(
                id: positionID,
                instrument: instrument,
                amount: remaining,
                openPrice: price,
                openedAt: env.now,
                sourceOrderID: order.id,
                conversionRateOpen: quoteRate,
                valueDate: env.valueDate(for: instrument),
                correlationKey: order.correlationKey
            )
        )
        return positionID
    }
}
