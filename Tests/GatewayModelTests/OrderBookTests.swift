import Foundation
import Testing

@testable import GatewayModel

@Suite("OrderBook: canonical order and wire form")
struct OrderBookTests {
    static func level(_ price: String, _ size: String) -> OrderBookLevel {
        OrderBookLevel(price: Decimal(string: price)!, size: Decimal(string: size)!)
    }

    @Test("normalized: bids highest first, asks lowest first, one price merged, empty levels dropped, cut to depth")
    func normalized() {
        let book = OrderBook(
            instrument: Instrument(symbol: "XMR/BTC", assetClass: .crypto),
            bids: [Self.level("0.5", "1"), Self.level("0.7", "2"), Self.level("0.50", "3"), Self.level("0.6", "0")],
            asks: [Self.level("0.9", "1"), Self.level("0.8", "1"), Self.level("1.1", "4")]
        )
        let cut = book.normalized(depth: 2)
        #expect(cut.bids == [Self.level("0.7", "2"), Self.level("0.5", "4")])
        #expect(cut.asks == [Self.level("0.8", "1"), Self.level("0.9", "1")])
        #expect(book.normalized(depth: 0).bids.isEmpty)
        #expect(book.normalized(depth: 10).asks.count == 3)
    }

    @Test("prices and sizes travel as strings and read back exactly")
    func coding() throws {
        let book = OrderBook(
            instrument: Instrument(symbol: "BTC/USD", assetClass: .crypto),
            connectionId: "c",
            broker: .alpaca,
            bids: [Self.level("64709.30", "0.2801")],
            asks: [Self.level("64767.7", "0.000000001")],
            time: Date(timeIntervalSince1970: 1_721_290_961)
        )
        let data = try JSONEncoder().encode(book)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let bid = try #require((object["bids"] as? [[String: Any]])?.first)
        #expect(bid["price"] is String && bid["size"] is String)
        #expect(object["broker"] as? String == "alpaca")
        #expect(try JSONDecoder().decode(OrderBook.self, from: data).asks == book.asks)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(OrderBookLevel.self, from: Data(#"{"price":"1.5abc","size":"1"}"#.utf8))
        }
    }
}
