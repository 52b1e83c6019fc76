import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import Synchronization
import Testing

@testable import AlpacaAdapter

/// What each Alpaca call may read (a cap near the size of a real answer, not the transport's 8 MiB default), and the
/// `feed` setting, which names a stream path and a query value and so must be one of Alpaca's feeds.
@Suite("Alpaca adapter: answer caps and the feed setting")
struct AnswerCapAndFeedTests {
    /// Answers every call with `body` padded by spaces to `size` bytes (valid JSON of that size), and refuses an answer
    /// over the call's `maxResponseBytes` as the real transport does: `malformed_response`.
    static func padded(size: Int, body: @escaping @Sendable (BrokerRequest) -> String) -> ScriptedTransport {
        ScriptedTransport { request in
            var text = body(request)
            text += String(repeating: " ", count: max(0, size - text.utf8.count))
            guard text.utf8.count <= request.maxResponseBytes else {
                throw GatewayError(.malformedResponse, "a response larger than \(request.maxResponseBytes) bytes")
            }
            return ScriptedTransport.text(200, text)
        }
    }

    static func latest(_ request: BrokerRequest) -> String {
        request.url.contains("/quotes/")
            ? #"{"quotes":{"AAPL":{"ap":10.5,"as":1,"bp":10.4,"bs":2,"t":"2025-01-06T15:00:00Z"}}}"#
            : #"{"trades":{"AAPL":{"p":10.45,"s":1,"t":"2025-01-06T15:00:00Z"}}}"#
    }

    @Test("a quote answer of 2 MiB is malformed_response: the latest-quotes cap is 1 MiB, not the 8 MiB default")
    func oversizeQuote() async throws {
        let small = Self.padded(size: 4 * 1024, body: Self.latest)
        let quotes = try await makeAdapter(small).quotes([InstrumentReference(symbol: "AAPL")])
        #expect(quotes.first?.bid == Decimal(string: "10.4"))

        let large = Self.padded(size: 2 * 1024 * 1024, body: Self.latest)
        let error = await #expect(throws: GatewayError.self) {
            try await makeAdapter(large).quotes([InstrumentReference(symbol: "AAPL")])
        }
        #expect(error?.code == .malformedResponse)
        #expect(large.requests.allSatisfy { $0.maxResponseBytes == 1024 * 1024 })
    }

    @Test("an order or account answer is capped at 64 KiB; a page of orders at 4 MiB; the position list keeps its configured 32 MiB")
    func capsPerOperation() async throws {
        let account = Self.padded(size: 128 * 1024) { _ in accountJSON }
        let refused = await #expect(throws: GatewayError.self) { try await makeAdapter(account).accounts() }
        #expect(refused?.code == .malformedResponse)
        #expect(account.requests.first?.maxResponseBytes == 64 * 1024)

        #expect(Endpoint.order(id: "o1").maxResponseBytes == 64 * 1024)
        #expect(Endpoint.placeOrder().maxResponseBytes == 64 * 1024)

        let positions = Self.padded(size: 16) { $0.url.contains("/v2/account") ? accountJSON : "[]" }
        _ = try await makeAdapter(positions).positions(accountId: nil)
        #expect(positions.requests.last?.maxResponseBytes == 32 * 1024 * 1024)

        #expect(Endpoint.orders(status: "all", limit: 500, after: nil, until: nil, symbols: []).maxResponseBytes == 4 * 1024 * 1024)
        #expect(Endpoint.cryptoOrderbooks(symbols: ["BTC/USD"]).maxResponseBytes == 4 * 1024 * 1024)
        #expect(Endpoint.stockBars(symbol: "AAPL", timeframe: "1Day", start: Date(), limit: 1200, feed: nil).maxResponseBytes == 1024 * 1024)
    }

    @Test(
        "feed: Alpaca's feeds are taken; anything else is unprocessable naming settings.feed, before any URL is made",
        arguments: ["bogus", "iex/../../v2/account", "sip?x=1", "SIP", "iex ", "test"]
    )
    func badFeed(_ feed: String) throws {
        let error = #expect(throws: GatewayError.self) {
            try AlpacaConfiguration(baseURL: "https://paper-api.alpaca.markets", settings: ["feed": feed], credentials: testCredentials)
        }
        #expect(error?.code == .unprocessable)
        #expect(error?.details.map(\.field) == ["settings.feed"])
    }

    @Test("feed: iex, sip, delayed_sip, otc, boats and overnight are taken; none (or empty) leaves the broker's default")
    func goodFeeds() throws {
        for feed in ["iex", "sip", "delayed_sip", "otc", "boats", "overnight"] {
            let configuration = try AlpacaConfiguration(
                baseURL: "https://paper-api.alpaca.markets",
                settings: ["feed": feed],
                credentials: testCredentials
            )
            #expect(configuration.feed == feed)
        }
        let none = try AlpacaConfiguration(baseURL: "https://paper-api.alpaca.markets", settings: ["feed": ""], credentials: testCredentials)
        #expect(none.feed == nil)
    }
}
