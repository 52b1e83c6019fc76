import Foundation
import SandboxKit

/// Alpaca's JSON shapes. Member order follows Alpaca's own responses; decimals are strings in trading
/// objects and numbers in market data; absent values are explicit `null`s.
enum AlpacaWire {
    static func time(_ date: Date?) -> JSON { date.map { .string(Timestamp.format($0, fractionDigits: 6)) } ?? .null }
    static func decimal(_ value: Decimal?) -> JSON { value.map { .string(DecimalText.format($0)) } ?? .null }
    static func number(_ value: Decimal) -> JSON { .number(DecimalText.format(value)) }
    static func uuid(_ value: UUID?) -> JSON { value.map { .string(lowercaseText($0)) } ?? .null }

    /// `uuidString.lowercased()`, written straight from the bytes: Foundation's two conversions cost more than the rest
    /// of a position's identifiers, and an account's 10,000 positions carry 10,000 of them.
    static func lowercaseText(_ id: UUID) -> String {
        withUnsafeBytes(of: id.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                var index = 0
                for (offset, byte) in bytes.enumerated() {
                    if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                        text[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    text[index] = hexDigit(byte >> 4)
                    text[index + 1] = hexDigit(byte & 0x0F)
                    index += 2
                }
                return index
            }
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// Money: two decimal places at most (values are exact; rounding only trims long products).
    static func money(_ value: Decimal, math: DecimalMath = .fast) -> JSON { .string(DecimalText.format(math.round(value, scale: 2))) }

    // MARK: Orders

    static func order(_ order: AlpacaOrder) -> JSON {
        let stopPrice = order.type == .trailing_stop ? order.currentTrailingStop : order.stopPrice
        return [
            "id": uuid(order.id),
            "client_order_id": .string(order.clientOrderID),
            "created_at": time(order.createdAt),
            "updated_at": time(order.updatedAt),
            "submitted_at": time(order.submittedAt),
            "filled_at": time(order.filledAt),
            "expired_at": time(order.expiredAt),
            "canceled_at": time(order.canceledAt),
            "failed_at": time(order.failedAt),
            "replaced_at": time(order.replacedAt),
            "replaced_by": uuid(order.replacedBy),
            "replaces": uuid(order.replaces),
            "asset_id": uuid(order.instrument.id),
            "symbol": .string(order.instrument.symbol),
            "asset_class": .string(AlpacaAssets.assetClass(order.instrument)),
            "notional": decimal(order.notional),
            "qty": decimal(order.qty),
            "filled_qty": decimal(order.filledQty),
            "filled_avg_price": decimal(order.filledAvgPrice),
            "order_class": "simple",
            "order_type": .string(order.type.rawValue),
            "type": .string(order.type.rawValue),
            "side": .string(order.side.rawValue),
            "position_intent": .string(order.positionIntent?.rawValue),
            "time_in_force": .string(order.timeInForce.rawValue),
            "limit_price": decimal(order.limitPrice),
            "stop_price": decimal(stopPrice),
            "status": .string(order.status.rawValue),
            "extended_hours": .bool(order.extendedHours),
            "legs": .null,
            "trail_percent": decimal(order.trailPercent),
            "trail_price": decimal(order.trailPrice),
            "hwm": decimal(order.matching.watermark),
            "subtag": .null,
            "source": .null,
            "expires_at": time(order.expiresAt),
        ]
    }

    // MARK: Positions

    /// `GET /v2/positions`: every position of the account, by symbol. What is held for open sell orders is summed once
    /// for all positions (not per position over every order). `math` is the arithmetic: ``DecimalMath/fast`` on the
    /// wire, ``DecimalMath/foundation`` as the oracle the tests hold it to.
    static func positions(_ book: AlpacaAccountBook, env: AlpacaTradingEnvironment, math: DecimalMath = .fast) -> JSON {
        let held = book.heldForOrdersByInstrument(math: math)
        return .array(
            book.positions.values.sorted { $0.instrument.symbol < $1.instrument.symbol }.map { position in
                AlpacaWire.position(
                    position,
                    valuation: env.valuation(position.instrument),
                    qtyAvailable: max(0, math.difference(position.qty, held[position.instrument.id] ?? 0)),
                    now: env.now,
                    math: math
                )
            }
        )
    }

    /// One position. Money and quantities are exact (products and differences of the book's decimals) and rounded to
    /// nine places; ratios are rounded to sixteen, as Alpaca's own answers have them. `math` as in
    /// ``positions(_:env:math:)``: on Linux Foundation's arithmetic would be most of the answer's cost (issue 29).
    static func position(
        _ position: AlpacaPosition,
        valuation: (last: Decimal, previousClose: Decimal)?,
        qtyAvailable: Decimal,
        now: Date,
        math: DecimalMath = .fast
    ) -> JSON {
        let instrument = position.instrument
        let current = valuation?.last ?? instrument.referencePrice
        let lastday = valuation?.previousClose ?? current
        let marketValue = math.product(position.qty, current)
        let costBasis = position.costBasis
        let unrealized = math.difference(marketValue, costBasis)
        let plpc = costBasis.isZero ? 0 : math.quotient(unrealized, costBasis, scale: 16)
        let averageEntryPrice = position.averageEntryPrice(math: math)
        // Opened today (the same UTC day): the day's P&L runs from the entry price, otherwise from yesterday's close.
        let openedToday =
            Timestamp.floorDiv(Timestamp.unixSeconds(position.openedAt), 86_400) == Timestamp.floorDiv(Timestamp.unixSeconds(now), 86_400)
        let intradayBase = openedToday ? averageEntryPrice : lastday
        let intraday = math.product(position.qty, math.difference(current, intradayBase))
        let intradayCost = math.product(position.qty, intradayBase)
        let intradayPlpc = intradayCost.isZero ? 0 : math.quotient(intraday, intradayCost, scale: 16)
        let change = lastday.isZero ? 0 : math.quotient(math.difference(current, lastday), lastday, scale: 16)
        return [
            "asset_id": uuid(instrument.id),
            "symbol": .string(AlpacaAssets.positionSymbol(instrument)),
            "exchange": .string(instrument.assetClass == .crypto ? "CRYPTO" : instrument.exchange),
            "asset_class": .string(AlpacaAssets.assetClass(instrument)),
            "asset_marginable": .bool(instrument.assetClass == .equity),
            "qty": decimal(position.qty),
            "avg_entry_price": decimal(averageEntryPrice),
            // The sandbox's account has shorting disabled (`shorting_enabled: false`), so a position is never short
            // here; were it, Alpaca writes "short" with qty, market_value and cost_basis negative (Alpaca-API #86).
            "side": .string(position.qty < 0 ? "short" : "long"),
            "market_value": decimal(math.round(marketValue, scale: 9)),
            "cost_basis": decimal(math.round(costBasis, scale: 9)),
            "unrealized_pl": decimal(math.round(unrealized, scale: 9)),
            "unrealized_plpc": decimal(plpc),
            "unrealized_intraday_pl": decimal(math.round(intraday, scale: 9)),
            "unrealized_intraday_plpc": decimal(intradayPlpc),
            "current_price": decimal(current),
            "lastday_price": decimal(lastday),
            "change_today": decimal(change),
            "qty_available": decimal(qtyAvailable),
        ]
    }

    // MARK: Account

    /// `GET /v2/account`. `math` as in ``positions(_:env:math:)``: the long market value sums every position.
    static func account(_ book: AlpacaAccountBook, env: AlpacaTradingEnvironment, math: DecimalMath = .fast) -> JSON {
        var longValue: Decimal = 0
        for position in book.positions.values {
            longValue = math.sum(
                longValue,
                math.product(position.qty, env.valuation(position.instrument)?.last ?? position.instrument.referencePrice)
            )
        }
        let equity = math.sum(book.cash, longValue)
        let buyingPower = math.round(book.buyingPower(env: env), scale: 2, .down)
        let buyingPowerText = JSON.string(DecimalText.format(buyingPower))
        return [
            "id": uuid(book.id),
            "admin_configurations": [:],
            "user_configurations": .null,
            "account_number": .string(book.accountNumber),
            "status": "ACTIVE",
            "crypto_status": "ACTIVE",
            "options_approved_level": 0,
            "options_trading_level": 0,
            "currency": "USD",
            "buying_power": buyingPowerText,
            "regt_buying_power": buyingPowerText,
            "daytrading_buying_power": "0",
            "effective_buying_power": buyingPowerText,
            "non_marginable_buying_power": buyingPowerText,
            "options_buying_power": buyingPowerText,
            "bod_dtbp": "0",
            "cash": money(book.cash, math: math),
            "accrued_fees": "0",
            "portfolio_value": money(equity, math: math),
            "pattern_day_trader": false,
            "trading_blocked": false,
            "transfers_blocked": false,
            "account_blocked": false,
            "created_at": time(book.createdAt),
            "trade_suspended_by_user": false,
            "multiplier": "1",
            "shorting_enabled": false,
            "equity": money(equity, math: math),
            "last_equity": money(book.lastEquity, math: math),
            "long_market_value": money(longValue, math: math),
            "short_market_value": "0",
            "position_market_value": money(longValue, math: math),
            "initial_margin": money(longValue, math: math),
            "maintenance_margin": money(longValue, math: math),
            "last_maintenance_margin": "0",
            "sma": "0",
            "daytrade_count": 0,
            "balance_asof": .string(Timestamp.formatDate(env.now.addingTimeInterval(-86_400))),
            "crypto_tier": 1,
            "intraday_adjustments": "0",
            "pending_reg_taf_fees": "0",
        ]
    }

    // MARK: Assets

    static func asset(_ instrument: MarketInstrument) -> JSON {
        let isCrypto = instrument.assetClass == .crypto
        var members: [JSON.Member] = [
            .init(key: "id", value: uuid(instrument.id)),
            .init(key: "class", value: .string(AlpacaAssets.assetClass(instrument))),
            .init(key: "exchange", value: .string(instrument.exchange)),
            .init(key: "symbol", value: .string(instrument.symbol)),
            .init(key: "name", value: .string(instrument.name)),
            .init(key: "status", value: "active"),
            .init(key: "tradable", value: true),
            .init(key: "marginable", value: .bool(!isCrypto)),
            .init(key: "maintenance_margin_requirement", value: isCrypto ? 100 : 30),
            .init(key: "margin_requirement_long", value: isCrypto ? "100" : "50"),
            .init(key: "margin_requirement_short", value: "100"),
            .init(key: "shortable", value: .bool(!isCrypto)),
            .init(key: "easy_to_borrow", value: .bool(!isCrypto)),
            .init(key: "fractionable", value: .bool(instrument.fractionable)),
            .init(key: "attributes", value: isCrypto ? [] : ["fractional_eh_enabled", "has_options"]),
        ]
        if isCrypto {
            members += [
                .init(key: "min_order_size", value: decimal(instrument.minQuantity)),
                .init(key: "min_trade_increment", value: decimal(instrument.lotSize)),
                .init(key: "price_increment", value: decimal(instrument.tickSize)),
            ]
        }
        return .object(members)
    }

    // MARK: Watchlists

    static func watchlist(_ watchlist: AlpacaWatchlist, accountID: UUID, assets: AlpacaAssets?) -> JSON {
        var members: [JSON.Member] = [
            .init(key: "id", value: uuid(watchlist.id)),
            .init(key: "account_id", value: uuid(accountID)),
            .init(key: "created_at", value: time(watchlist.createdAt)),
            .init(key: "updated_at", value: time(watchlist.updatedAt)),
            .init(key: "name", value: .string(watchlist.name)),
        ]
        if let assets {
            members.append(.init(key: "assets", value: .array(watchlist.symbols.compactMap { assets.resolve($0).map(asset) })))
        }
        return .object(members)
    }

    // MARK: Clock

    static func clock(now: Date, hours: AlpacaMarketHours) -> JSON {
        let offset = USEquityHours.newYorkOffset(at: now)
        let nextOpen = USEquityHours.nextOpen(after: now)
        let nextClose = USEquityHours.nextClose(after: now)
        let isOpen = hours == .alwaysOpen || USEquityHours.isRegularSessionOpen(at: now)
        return [
            "timestamp": .string(Timestamp.format(now, utcOffsetSeconds: offset, fractionDigits: 9)),
            "is_open": .bool(isOpen),
            "next_open": .string(Timestamp.format(nextOpen, utcOffsetSeconds: USEquityHours.newYorkOffset(at: nextOpen), fractionDigits: 0)),
            "next_close": .string(Timestamp.format(nextClose, utcOffsetSeconds: USEquityHours.newYorkOffset(at: nextClose), fractionDigits: 0)),
        ]
    }

    // MARK: Market data (numbers, not strings)

    /// Stock quote: `{"t","ax","ap","as","bx","bp","bs","c","z"}`.
    static func stockQuote(_ quote: MarketQuote, instrument: MarketInstrument) -> JSON {
        [
            "t": .string(Timestamp.format(quote.timestamp, fractionDigits: 9)),
            "ax": "V",
            "ap": number(quote.ask),
            "as": number(quote.askSize),
            "bx": "V",
            "bp": number(quote.bid),
            "bs": number(quote.bidSize),
            "c": ["R"],
            "z": .string(instrument.exchange == "NASDAQ" ? "C" : "B"),
        ]
    }

    /// Stock trade: `{"t","x","p","s","c","i","z"}`.
    static func stockTrade(_ quote: MarketQuote, instrument: MarketInstrument) -> JSON {
        [
            "t": .string(Timestamp.format(quote.timestamp, fractionDigits: 9)),
            "x": "V",
            "p": number(quote.last),
            "s": number(quote.lastSize),
            "c": ["@"],
            "i": .int64(quote.tradeID),
            "z": .string(instrument.exchange == "NASDAQ" ? "C" : "B"),
        ]
    }

    static func cryptoQuote(_ quote: MarketQuote) -> JSON {
        [
            "bp": number(quote.bid),
            "bs": number(quote.bidSize),
            "ap": number(quote.ask),
            "as": number(quote.askSize),
            "t": .string(Timestamp.format(quote.timestamp, fractionDigits: 9)),
        ]
    }

    static func cryptoTrade(_ quote: MarketQuote) -> JSON {
        [
            "p": number(quote.last),
            "s": number(quote.lastSize),
            "t": .string(Timestamp.format(quote.timestamp, fractionDigits: 9)),
            "i": .int64(quote.tradeID),
            "tks": "B",
        ]
    }

    static func cryptoOrderbook(_ quote: MarketQuote, instrument: MarketInstrument) -> JSON {
        let tick = instrument.tickSize
        func levels(_ start: Decimal, _ step: Decimal, _ size: Decimal) -> JSON {
            .array(
                (0..<5).map { level in
                    ["p": number(start + Decimal(level) * step), "s": number(size * Decimal(level + 1))]
                }
            )
        }
        return [
            "t": .string(Timestamp.format(quote.timestamp, fractionDigits: 9)),
            "b": levels(quote.bid, -tick, quote.bidSize),
            "a": levels(quote.ask, tick, quote.askSize),
        ]
    }
}
