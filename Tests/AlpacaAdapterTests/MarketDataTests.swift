import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import Testing

@testable import AlpacaAdapter

/// Candles and order books: what the adapter asks Alpaca for, and what it refuses without asking.
@Suite("Alpaca adapter: candles and order books")
struct MarketDataTests {
    static let now = Date(timeIntervalSince1970: 1_736_175_600)  // 2025-01-06T15:00:00Z

    static func query(_ request: BrokerRequest) -> [String: String] {
        let parts = URLComponents(string: request.url)?.queryItems ?? []
        return Dictionary(parts.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    @Test("the latest count bars, newest first on the wire, oldest first in the series; the look-back covers a stock's closed hours")
    func candleRequests() async throws {
        let stock = queued([
            (
                200,
                #"{"bars":{"AAPL":[{"t":"2025-01-06T14:00:00Z","o":1,"h":2,"l":0.5,"c":1.5,"v":10},{"t":"2025-01-06T13:00:00Z","o":1,"h":1,"l":1,"c":1,"v":0}]},"next_page_token":"x"}"#
            )
        ])
        let series = try await makeAdapter(stock, settings: ["feed": "iex"], now: { Self.now })
            .candles(InstrumentReference(symbol: "AAPL"), interval: .oneHour, count: 2)
        #expect(series.candles.map(\.time) == [Date(timeIntervalSince1970: 1_736_168_400), Date(timeIntervalSince1970: 1_736_172_000)])
        #expect(series.candles.last?.close == Decimal(string: "1.5"))
        let request = try #require(stock.requests.first)
        #expect(request.url.hasPrefix("https://data.alpaca.markets/v2/stocks/bars?"))
        let query = Self.query(request)
        #expect(query["symbols"] == "AAPL" && query["timeframe"] == "1Hour" && query["limit"] == "2" && query["sort"] == "desc")
        #expect(query["feed"] == "iex")
        let start = try #require(query["start"].flatMap(RFC3339Timestamp.parse))
        #expect(abs(Self.now.timeIntervalSince(start) - (3 * 3600 * 4 + 4 * 86_400)) < 0.001)

        let crypto = queued([(200, #"{"bars":null,"next_page_token":null}"#)])
        let empty = try await makeAdapter(crypto, now: { Self.now })
            .candles(InstrumentReference(symbol: "BTC/USD", assetClass: .crypto), interval: .fiveMinutes, count: 12)
        #expect(empty.candles.isEmpty)
        let cryptoQuery = Self.query(try #require(crypto.requests.first))
        #expect(crypto.requests.first?.url.hasPrefix("https://data.alpaca.markets/v1beta3/crypto/us/bars?") == true)
        #expect(cryptoQuery["timeframe"] == "5Min" && cryptoQuery["feed"] == nil)
        let cryptoStart = try #require(cryptoQuery["start"].flatMap(RFC3339Timestamp.parse))
        #expect(abs(Self.now.timeIntervalSince(cryptoStart) - 13 * 300) < 0.001)
    }

    @Test("refused without a call: FX candles, a count out of bounds, a stock's order book")
    func refusals() async throws {
        let transport = queued([])
        let adapter = try makeAdapter(transport)
        let fx = await #expect(throws: GatewayError.self) {
            try await adapter.candles(InstrumentReference(symbol: "EUR/USD", assetClass: .fx), interval: .oneDay, count: 5)
        }
        #expect(fx?.code == .unprocessable)
        let count = await #expect(throws: GatewayError.self) {
            try await adapter.candles(InstrumentReference(symbol: "AAPL"), interval: .oneDay, count: 1201)
        }
        #expect(count?.details.first?.field == "count")
        let book = await #expect(throws: GatewayError.self) {
            try await adapter.orderBook(InstrumentReference(symbol: "AAPL"), depth: 5)
        }
        #expect(book?.code == .unprocessable)
        #expect(transport.requests.isEmpty)
    }

    @Test("a book is sorted, merged and cut to depth; a pair Alpaca leaves out is not_found; strings are read too")
    func orderBooks() async throws {
        let transport = queued([
            (
                200,
                #"{"orderbooks":{"BTC/USD":{"a":[{"p":"101","s":"1"},{"p":100,"s":2},{"p":100,"s":1},{"p":102,"s":0}],"b":[{"p":98,"s":1},{"p":99,"s":3}],"t":"2024-07-18T08:22:41.607595222Z"}}}"#
            ),
            (200, #"{"orderbooks":{}}"#),
            (200, #"{"orderbooks":{"BTC/USD":{"a":[{"p":"1.5abc","s":1}],"b":[]}}}"#),
        ])
        let adapter = try makeAdapter(transport)
        let book = try await adapter.orderBook(InstrumentReference(symbol: "BTC/USD", assetClass: .crypto), depth: 2)
        #expect(book.asks == [OrderBookLevel(price: 100, size: 3), OrderBookLevel(price: 101, size: 1)])
        #expect(book.bids == [OrderBookLevel(price: 99, size: 3), OrderBookLevel(price: 98, size: 1)])
        #expect(book.broker == .alpaca && book.instrument.symbol == "BTC/USD" && book.time != nil)
        #expect(Self.query(try #require(transport.requests.first))["symbols"] == "BTC/USD")

        let missing = await #expect(throws: GatewayError.self) {
            try await adapter.orderBook(InstrumentReference(symbol: "DOGE/USD", assetClass: .crypto), depth: 2)
        }
        #expect(missing?.code == .notFound)
        let malformed = await #expect(throws: GatewayError.self) {
            try await adapter.orderBook(InstrumentReference(symbol: "BTC/USD", assetClass: .crypto), depth: 2)
        }
        #expect(malformed?.code == .malformedResponse)
    }
}
