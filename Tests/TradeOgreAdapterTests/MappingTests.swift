import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import TradeOgreAdapter

func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    try JSONDecoder().decode(type, from: Data(text.utf8))
}

@Suite("TradeOgre wire decoding and mapping")
struct MappingTests {
    @Test("market names: canonical XMR/BTC is XMR-BTC, or BTC-XMR with the older naming")
    func naming() throws {
        let market = try #require(MarketName(symbol: "xmr/btc"))
        #expect(market.symbol == "XMR/BTC")
        #expect(market.wire(.baseQuote) == "XMR-BTC")
        #expect(market.wire(.quoteBase) == "BTC-XMR")
        #expect(MarketName(wire: "BTC-XMR", naming: .quoteBase) == market)
        #expect(MarketName(wire: "XMR-BTC", naming: .baseQuote) == market)
        for bad in ["XMRBTC", "XMR/", "/BTC", "XMR/BTC/ETH", "XMR /BTC"] { #expect(MarketName(symbol: bad) == nil, "\(bad)") }
        #expect(MarketName(wire: "XMR_BTC", naming: .baseQuote) == nil)
    }

    @Test("decimals are parsed strictly: a prefix like 1.5abc is a malformed answer")
    func strictDecimals() throws {
        #expect(throws: DecodingError.self) {
            try decode(TradeOgreBalance.self, #"{"success":true,"balance":"1.5abc","available":"1"}"#)
        }
        #expect(throws: DecodingError.self) {
            try decode(TradeOgreTicker.self, #"{"success":true,"price":"NaN"}"#)
        }
        let balance = try decode(TradeOgreBalance.self, #"{"success":true,"balance":"0.00015033","available":"0.00009034"}"#)
        #expect(balance.balance == Decimal(string: "0.00015033"))
    }

    @Test("success is a boolean or the string \"true\"; date is an integer or a string")
    func flexibleFields() throws {
        #expect(try decode(TradeOgreEnvelope.self, #"{"success":"true","buy":{}}"#).succeeded == true)
        #expect(try decode(TradeOgreEnvelope.self, #"{"success":true}"#).succeeded == true)
        #expect(try decode(TradeOgreEnvelope.self, #"{"success":false,"error":"Order not found"}"#).succeeded == false)
        #expect(try decode(TradeOgreEnvelope.self, #"{"success":"false"}"#).succeeded == false)
        #expect(try decode(TradeOgreEnvelope.self, #"{"balances":{}}"#).succeeded == nil)
        let text = try decode(
            TradeOgreOpenOrder.self,
            #"{"uuid":"u","date":"1710696146","type":"buy","price":"1","quantity":"1","market":"XMR-BTC"}"#
        )
        let number = try decode(
            TradeOgreOpenOrder.self,
            #"{"uuid":"u","date":1710696146,"type":"buy","price":"1","quantity":"1","market":"XMR-BTC"}"#
        )
        #expect(text.date == number.date)
        #expect(throws: DecodingError.self) {
            try decode(TradeOgreOpenOrder.self, #"{"uuid":"u","date":"yesterday","type":"buy","price":"1","quantity":"1","market":"XMR-BTC"}"#)
        }
    }

    @Test("the error table: the four texts, anything else rejected, HTTP 429 and 5xx")
    func errors() {
        #expect(TradeOgreErrors.error(message: "Must be authorized").code == .unauthorized)
        #expect(TradeOgreErrors.error(message: "Market not found").code == .unprocessable)
        #expect(TradeOgreErrors.error(message: "Market not found").details.map(\.field) == ["symbol"])
        #expect(TradeOgreErrors.error(message: "Insufficient funds").code == .insufficientFunds)
        #expect(TradeOgreErrors.error(message: "Order not found").code == .notFound)
        let other = TradeOgreErrors.error(message: "Minimum order size is 0.0001 BTC")
        #expect(other.code == .rejected && other.message.contains("Minimum order size") && other.brokerCode == "Minimum order size is 0.0001 BTC")
        func response(_ status: Int, _ body: String, _ headers: [(name: String, value: String)] = []) -> BrokerResponse {
            BrokerResponse(status: status, headers: headers, body: Data(body.utf8))
        }
        let limited = TradeOgreErrors.error(for: response(429, "Too many requests", [("Retry-After", "3")]))
        #expect(limited.code == .rateLimited && limited.retryable && limited.retryAfter == 3)
        #expect(TradeOgreErrors.error(for: response(502, "<html>")).code == .upstreamUnavailable)
        #expect(TradeOgreErrors.error(for: response(504, "")).code == .upstreamTimeout)
        #expect(TradeOgreErrors.error(for: response(401, #"{"success":false,"error":"Must be authorized"}"#)).code == .unauthorized)
        #expect(TradeOgreErrors.error(for: response(403, "")).code == .unauthorized)
        #expect(TradeOgreErrors.error(for: response(404, "")).code == .notFound)
        #expect(TradeOgreErrors.error(for: response(418, "")).code == .rejected)
    }

    @Test("a ticker becomes a quote: last = price, open = initialprice, zeros left out")
    func quote() throws {
        let ticker = try decode(
            TradeOgreTicker.self,
            #"{"success":true,"initialprice":"0.00000000","price":"0.00000000","high":"0.00000000","low":"0.00000000","volume":"0.00000000","bid":"5.00000000","ask":"0.00000000"}"#
        )
        let instrument = Instrument(tradeOgre: MarketName(base: "AAVE", quote: "USDT"), naming: .baseQuote)
        let quote = Quote(tradeOgre: ticker, instrument: instrument, connectionId: "c")
        #expect(quote.bid == 5 && quote.ask == nil && quote.last == nil && quote.open == nil && quote.netChange == nil)
        #expect(quote.instrument.brokerKey == ["market": "AAVE-USDT"])
        #expect(quote.instrument.currency == "USDT")
    }

    @Test("the order list's quantity is what remains; an order by uuid adds what traded")
    func orders() throws {
        let open = try decode(
            TradeOgreOpenOrder.self,
            #"{"uuid":"u","date":1692372889,"type":"buy","price":"0.00420000","quantity":"1.00000000","market":"BTC-XMR"}"#
        )
        let listed = try Order(tradeOgre: open, connectionId: "c", accountId: "spot", naming: .quoteBase)
        #expect(listed.instrument.symbol == "XMR/BTC" && listed.instrument.brokerKey == ["market": "BTC-XMR"])
        #expect(listed.status == .open && listed.quantity == 1 && listed.type == .limit && listed.timeInForce == .gtc)
        #expect(TradeOgreOrderState.status(remaining: 0, fulfilled: 1) == .filled)
        #expect(TradeOgreOrderState.status(remaining: 1, fulfilled: 1) == .partiallyFilled)
        #expect(TradeOgreOrderState.status(remaining: 1, fulfilled: 0) == .open)
        #expect(TradeOgreOrderState.status(remaining: 0, fulfilled: 0) == .canceled)
        var unnamed = open
        unnamed.market = "BTCXMR"
        #expect(throws: GatewayError.self) { try Order(tradeOgre: unnamed, connectionId: "c", accountId: "spot", naming: .baseQuote) }
    }
}

@Suite("TradeOgre holdings as positions")
struct HoldingsTests {
    let markets: TradeOgreMarkets = try! decode(
        TradeOgreMarkets.self,
        """
        [{"XMR-BTC":{"price":"0.00250000","basename":"Monero"}},{"BTC-USDT":{"price":"64000.00000000","basename":"Bitcoin"}},
         {"LTC-BTC":{"price":"0.00000000"}},{"DOGE-XMR":{"price":"0.00100000"}}]
        """
    )

    func positions(_ totals: [String: Decimal], valuation: String) -> [Position] {
        Holdings.positions(
            totals: totals,
            markets: markets,
            naming: .baseQuote,
            valuationCurrency: valuation,
            connectionId: "c",
            accountId: "spot"
        )
    }

    @Test("every non-zero currency but the valuation currency is a position C/V valued at market C-V")
    func direct() {
        let result = positions(["BTC": 2, "XMR": 10, "ETH": 0, "LTC": 3], valuation: "BTC")
        #expect(result.map(\.instrument.symbol) == ["LTC/BTC", "XMR/BTC"])
        let xmr = result[1]
        #expect(xmr.quantity == 10 && xmr.lastPrice == Decimal(string: "0.0025") && xmr.marketValue == Decimal(string: "0.025"))
        #expect(xmr.currency == "BTC" && xmr.instrument.name == "Monero" && xmr.instrument.brokerKey == ["market": "XMR-BTC"])
        // LTC-BTC's price is zero: no value rather than a value of zero.
        #expect(result[0].lastPrice == nil && result[0].marketValue == nil)
        #expect(result.allSatisfy { $0.averagePrice == nil && $0.costBasis == nil && $0.unrealizedPnl == nil })
    }

    @Test("only the inverse market V-C: valued at 1/price, without a broker key; no market at all: no value")
    func inverseAndNone() {
        let result = positions(["USDT": 320, "BTC": 1, "DOGE": 5], valuation: "USDT")
        #expect(result.map(\.instrument.symbol) == ["BTC/USDT", "DOGE/USDT"])
        #expect(result[0].marketValue == 64_000 && result[0].instrument.brokerKey == ["market": "BTC-USDT"])
        #expect(result[1].lastPrice == nil && result[1].instrument.brokerKey == nil)

        let inBTCQuotedInUSDT = positions(["USDT": 320], valuation: "BTC")
        #expect(inBTCQuotedInUSDT.first?.instrument.symbol == "USDT/BTC")
        #expect(inBTCQuotedInUSDT.first?.lastPrice == Decimal(string: "0.00001563"))
        #expect(inBTCQuotedInUSDT.first?.marketValue == Decimal(string: "0.0050016"))
        #expect(inBTCQuotedInUSDT.first?.instrument.brokerKey == nil)
    }
}
