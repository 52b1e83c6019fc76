import Foundation
import HTTPTypes
import TestWorlds
import Testing

/// Issue 26, "one error vocabulary": each mistake of the README's "Errors" table, sent through `/v1` to every broker
/// whose sandbox can make it, answers the same code, the same HTTP status and (where it is a field's fault) the same
/// field. Before the vocabulary, selling more than was held was `rejected` at Alpaca and TradeIt but
/// `insufficient_funds` at TradeOgre, an unknown symbol was 404 at TradeOgre and 422 elsewhere (and `rejected` at
/// TradeIt), a price off the tick was `rejected` at Saxo and `unprocessable` at Alpaca.
@Suite("End to end: one error vocabulary across the four brokers", .heavyWorld)
struct ErrorVocabularyEndToEndTests {
    /// One row of the table: the code, status and field every broker answers, and per broker an order that makes the
    /// mistake there (the order's fields, without connection, account and client order id).
    struct Mistake: Sendable {
        var name: String
        var code: String
        var status: Int
        var field: String?
        var orders: [(broker: String, order: String)]
    }

    /// The prices of `PortfolioEndToEndTests`, so the accounts are the known ones: Alpaca 100,000 USD with 10 AAPL,
    /// Saxo 1,000,000 EUR and no stock, TradeIt 50,000 USD with 10 AAPL, TradeOgre 1.5 BTC and 25 XMR.
    static let prices = ["AAPL": "200", "BTC/USD": "50000", "XMR/BTC": "0.004"]

    static func limit(
        _ symbol: String,
        _ side: String,
        _ quantity: String,
        _ price: String,
        _ timeInForce: String = "day"
    )
        -> String
    {
        #""symbol":"\#(symbol)","side":"\#(side)","type":"limit","timeInForce":"\#(timeInForce)","quantity":"\#(quantity)","limitPrice":"\#(price)""#
    }

    static let mistakes: [Mistake] = [
        Mistake(
            name: "buying more than the cash or margin pays for",
            code: "insufficient_funds",
            status: 422,
            field: nil,
            orders: [
                ("alpaca", limit("AAPL", "buy", "100000", "200")),
                ("saxo", limit("AAPL", "buy", "100000", "200")),
                ("tradeit", limit("AAPL", "buy", "100000", "200")),
                ("tradeogre", limit("XMR/BTC", "buy", "100000", "0.004", "gtc")),
            ]
        ),
        Mistake(
            name: "selling, or selling short, more than is held where the account may not go short",
            code: "insufficient_funds",
            status: 422,
            field: nil,
            orders: [
                ("alpaca", limit("AAPL", "sell", "100000", "200")),
                ("alpaca", limit("AAPL", "sell_short", "100000", "200")),
                ("saxo", limit("AAPL", "sell", "100000", "200")),
                ("saxo", limit("AAPL", "sell_short", "100000", "200")),
                ("tradeit", limit("AAPL", "sell", "100000", "200")),
                ("tradeit", limit("AAPL", "sell_short", "10", "200")),
                ("tradeogre", limit("XMR/BTC", "sell", "100000", "0.004", "gtc")),
            ]
        ),
        Mistake(
            name: "an unknown symbol",
            code: "unprocessable",
            status: 422,
            field: "symbol",
            orders: [
                ("alpaca", limit("NOSUCH", "buy", "1", "10")),
                ("saxo", limit("NOSUCH", "buy", "1", "10")),
                ("tradeit", limit("NOSUCH", "buy", "1", "10")),
                ("tradeogre", limit("NOSUCH/BTC", "buy", "1", "0.004", "gtc")),
            ]
        ),
        Mistake(
            name: "an order below the minimum quantity",
            code: "unprocessable",
            status: 422,
            field: "quantity",
            orders: [
                ("alpaca", limit("BTC/USD", "buy", "0.00001", "50000", "gtc")),
                ("saxo", limit("EUR/DKK", "buy", "0.5", "7.46")),
                ("tradeit", limit("BTC/USD", "buy", "0.00001", "50000", "gtc")),
            ]
        ),
        Mistake(
            name: "a quantity off the lot or increment",
            code: "unprocessable",
            status: 422,
            field: "quantity",
            orders: [
                ("alpaca", limit("BTC/USD", "buy", "0.0010000001", "50000", "gtc")),
                ("saxo", limit("EUR/DKK", "buy", "1000.5", "7.46")),
                ("tradeit", limit("AAPL", "buy", "1.5", "200")),
                ("tradeogre", limit("XMR/BTC", "buy", "1.000000001", "0.004", "gtc")),
            ]
        ),
        Mistake(
            name: "a price off the tick",
            code: "unprocessable",
            status: 422,
            field: "limitPrice",
            orders: [
                ("alpaca", limit("AAPL", "buy", "1", "199.999")),
                ("saxo", limit("AAPL", "buy", "1", "199.999")),
                ("tradeogre", limit("XMR/BTC", "buy", "1", "0.0040000001", "gtc")),
            ]
        ),
        Mistake(
            name: "a short sale where the broker has none for the asset",
            code: "unprocessable",
            status: 422,
            field: "side",
            orders: [
                ("alpaca", limit("BTC/USD", "sell_short", "0.01", "50000", "gtc")),
                ("tradeogre", limit("XMR/BTC", "sell_short", "1", "0.004", "gtc")),
            ]
        ),
    ]

    @Test func eachMistakeAnswersTheSameCodeAtEveryBrokerThatCanMakeIt() async throws {
        let quartet = try Quartet(prices: Self.prices)
        try await quartet.with { call in
            let accounts = try await call(.get, "/v1/accounts", nil)
            var accountOf: [String: (connection: String, account: String)] = [:]
            for account in accounts.body.list {
                guard let broker = account["broker"] as? String, accountOf[broker] == nil,
                    let connection = account["connectionId"] as? String, let id = account["id"] as? String
                else { continue }
                accountOf[broker] = (connection, id)
            }
            #expect(Set(accountOf.keys) == ["alpaca", "saxo", "tradeit", "tradeogre"], "\(accounts.body)")

            for mistake in Self.mistakes {
                for (broker, order) in mistake.orders {
                    let (connection, account) = try #require(accountOf[broker], "no \(broker) account")
                    let answer = try await call(
                        .post,
                        "/v1/orders",
                        """
                        {"connectionId":"\(connection)","accountId":"\(account)","clientOrderId":"vocab-\(UUID().uuidString)",\(order)}
                        """
                    )
                    let place = "\(mistake.name) at \(broker) (\(order))"
                    #expect(answer.status == mistake.status, "\(place): \(answer.body)")
                    let error = answer.body["error"] as? [String: Any] ?? [:]
                    #expect(error["code"] as? String == mistake.code, "\(place): \(answer.body)")
                    let fields = (error["details"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
                    if let field = mistake.field {
                        #expect(fields.contains(field), "\(place): \(answer.body)")
                    } else {
                        #expect(fields.isEmpty, "\(place): \(answer.body)")
                    }
                }
            }
            // Every mistake was refused: nothing rests at any broker.
            let open = try await call(.get, "/v1/orders?status=open", nil)
            #expect(open.body.list.isEmpty, "\(open.body)")
        }
    }
}
