public import Foundation

/// Which way an order trades.
public enum TradeSide: String, Sendable, Hashable, Codable {
    case buy
    case sell
}

/// The execution terms of an order, as far as matching is concerned.
public enum ExecutionTerms: Sendable, Hashable {
    case market
    case limit(Decimal)
    case stop(Decimal)
    case stopLimit(stop: Decimal, limit: Decimal)
    /// A stop that follows the best price seen since submission by a fixed amount or a percentage (0-100).
    case trailingStop(TrailingOffset)
}

/// How far a trailing stop trails the best price seen: a fixed amount, or a percentage (0 to 100) of that price.
public enum TrailingOffset: Sendable, Hashable {
    case price(Decimal)
    case percent(Decimal)
}

/// Broker-neutral matching rules shared by every simulator.
///
/// The simulated venue has unlimited depth at the quote: a market buy fills at the ask, a market sell at the bid;
/// a limit order fills at the touch when the touch is at or better than its limit (price improvement goes to the client);
/// a stop triggers when the touch reaches the stop (buy: ask ≥ stop, sell: bid ≤ stop) and then behaves as a
/// market order (stop) or a limit order (stop-limit). Fills are complete unless a test limited the depth at the touch
/// (``MarketEngine/setDepth(_:for:)``, `PUT /_sandbox/depth/{symbol}`): a simulator then fills what
/// ``MarketEngine/take(upTo:of:)`` gives it, and the rest of the order rests until there is more.
///
/// Simulators call ``OrderMatching/evaluate(_:side:quote:state:)`` for every resting order from their
/// lazy "tick" (done at the start of each request), so no background task is needed.
public enum OrderMatching {
    /// Mutable matching state kept with a resting order.
    public struct RestingState: Sendable, Hashable, Codable {
        /// Set once a stop or stop-limit has triggered; it never un-triggers.
        public var triggered: Bool
        /// Trailing stops: the best price seen (highest bid for a sell, lowest ask for a buy).
        public var watermark: Decimal?

        /// Makes the state of a newly resting order: not triggered, no watermark yet.
        public init(triggered: Bool = false, watermark: Decimal? = nil) {
            self.triggered = triggered
            self.watermark = watermark
        }
    }

    /// The price a market order executes at.
    public static func marketPrice(side: TradeSide, quote: MarketQuote) -> Decimal {
        side == .buy ? quote.ask : quote.bid
    }

    /// The execution price if a limit order is marketable at `quote`, else nil.
    public static func limitPrice(side: TradeSide, limit: Decimal, quote: MarketQuote) -> Decimal? {
        switch side {
        case .buy: quote.ask <= limit ? quote.ask : nil
        case .sell: quote.bid >= limit ? quote.bid : nil
        }
    }

    /// Whether a stop at `stop` is reached at `quote`.
    public static func isStopReached(side: TradeSide, stop: Decimal, quote: MarketQuote) -> Bool {
        switch side {
        case .buy: quote.ask >= stop
        case .sell: quote.bid <= stop
        }
    }

    /// The current stop price of a trailing stop with the given watermark.
    public static func trailingStopPrice(side: TradeSide, offset: TrailingOffset, watermark: Decimal, tickSize: Decimal) -> Decimal {
        let distance: Decimal =
            switch offset {
            case .price(let amount): amount
            case .percent(let percent): watermark * percent / 100
            }
        let raw = side == .sell ? watermark - distance : watermark + distance
        return DecimalText.round(raw, toMultipleOf: tickSize, side == .sell ? .down : .up)
    }

    /// Advances an order's matching state against `quote` and returns the fill price if it executes now.
    public static func evaluate(_ terms: ExecutionTerms, side: TradeSide, quote: MarketQuote, state: inout RestingState) -> Decimal? {
        switch terms {
        case .market:
            return marketPrice(side: side, quote: quote)
        case .limit(let limit):
            return limitPrice(side: side, limit: limit, quote: quote)
        case .stop(let stop):
            if !state.triggered, isStopReached(side: side, stop: stop, quote: quote) { state.triggered = true }
            return state.triggered ? marketPrice(side: side, quote: quote) : nil
        case .stopLimit(let stop, let limit):
            if !state.triggered, isStopReached(side: side, stop: stop, quote: quote) { state.triggered = true }
            return state.triggered ? limitPrice(side: side, limit: limit, quote: quote) : nil
        case .trailingStop(let offset):
            let reference = side == .sell ? quote.bid : quote.ask
            let watermark: Decimal =
                switch (side, state.watermark) {
                case (_, nil): reference
                case (.sell, let mark?): max(mark, reference)
                case (.buy, let mark?): min(mark, reference)
                }
            state.watermark = watermark
            let stop = trailingStopPrice(side: side, offset: offset, watermark: watermark, tickSize: 0)
            if !state.triggered, isStopReached(side: side, stop: stop, quote: quote) { state.triggered = true }
            return state.triggered ? marketPrice(side: side, quote: quote) : nil
        }
    }
}
