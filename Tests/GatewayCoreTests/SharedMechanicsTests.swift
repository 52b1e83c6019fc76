import Foundation
import GatewayCore
import GatewayModel
import Testing

@Suite("Random identifiers")
struct RandomIdentifierTests {
    @Test("prefixed ids: the prefix and 24 lowercase hex digits, never twice the same")
    func prefixed() {
        let ids = (0..<200).map { _ in RandomIdentifier.prefixed("ord_") }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.hasPrefix("ord_") && id.count == 28)
            #expect(id.dropFirst(4).allSatisfy { "0123456789abcdef".contains($0) })
        }
    }

    @Test("hex, base32 and uuid shapes")
    func shapes() {
        #expect(RandomIdentifier.hex(byteCount: 32).count == 64)
        #expect(RandomIdentifier.hex([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
        let base32 = RandomIdentifier.base32(count: 20)
        #expect(base32.count == 20 && RandomIdentifier.isBase32(base32))
        #expect(!RandomIdentifier.isBase32("abc_"))
        #expect(!RandomIdentifier.isBase32("ilou"))
        #expect(RandomIdentifier.base32(count: 0).isEmpty)
        let uuid = RandomIdentifier.uuid()
        #expect(UUID(uuidString: uuid) != nil && uuid == uuid.lowercased())
    }
}

@Suite("Constant-time comparison")
struct ConstantTimeTests {
    @Test("compares every byte and the lengths")
    func bytes() {
        #expect(ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
        #expect(!ConstantTime.equals([0, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!ConstantTime.equals([1, 2] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(ConstantTime.equals([] as [UInt8], [] as [UInt8]))
    }

    @Test("strings compare by their UTF-8 bytes")
    func strings() {
        #expect(ConstantTime.equals("nonce-1", "nonce-1"))
        #expect(!ConstantTime.equals("nonce-1", "nonce-2"))
        #expect(!ConstantTime.equals("nonce", "nonce-1"))
        #expect(!ConstantTime.equals("é", "e\u{301}"))  // equal as Strings, different bytes
        #expect(ConstantTime.equals("", ""))
    }
}

@Suite("Order matcher")
struct OrderMatcherTests {
    static let sentAt = Date(timeIntervalSince1970: 1_700_000_100)

    static func order(
        _ id: String?,
        clientOrderId: String? = nil,
        account: String = "acc",
        symbol: String = "XMR/BTC",
        side: OrderSide = .buy,
        type: OrderType = .limit,
        quantity: Decimal = 1,
        limit: Decimal? = Decimal(string: "0.0042"),
        stop: Decimal? = nil,
        createdAt: Date? = Date(timeIntervalSince1970: 1_700_000_098)
    ) -> Order {
        Order(
            id: id ?? "x",
            brokerOrderId: id,
            clientOrderId: clientOrderId ?? id ?? "x",
            connectionId: "conn",
            broker: .tradeogre,
            accountId: account,
            instrument: Instrument(symbol: symbol, assetClass: .crypto),
            side: side,
            type: type,
            timeInForce: .gtc,
            quantity: quantity,
            limitPrice: limit,
            stopPrice: stop,
            status: .open,
            createdAt: createdAt
        )
    }

    static let intent = OrderIntent(
        clientOrderId: "gw-1",
        accountId: "acc",
        symbol: "XMR/BTC",
        side: .buy,
        type: .limit,
        quantity: 1,
        limitPrice: Decimal(string: "0.00420")!,
        sentAt: sentAt
    )

    @Test("by instrument, side, type, quantity, prices, account and time; each difference excludes")
    func attributes() {
        let orders = [
            Self.order("old", createdAt: Date(timeIntervalSince1970: 1_699_999_000)),
            Self.order("hit"),
            Self.order("side", side: .sell),
            Self.order("price", limit: Decimal(string: "0.0043")),
            Self.order("big", quantity: 2),
            Self.order("type", type: .stopLimit),
            Self.order("stop", stop: 1),
            Self.order("account", account: "other"),
            Self.order("symbol", symbol: "LTC/BTC"),
        ]
        #expect(OrderMatcher(clockSkew: 5).candidates(for: Self.intent, among: orders).map(\.brokerOrderId) == ["hit"])
        // A larger clock skew lets the older order in; the oldest comes first.
        #expect(OrderMatcher(clockSkew: 3600).candidates(for: Self.intent, among: orders).map(\.brokerOrderId) == ["old", "hit"])
        var anyAccount = Self.intent
        anyAccount.accountId = nil
        #expect(OrderMatcher(clockSkew: 5).candidates(for: anyAccount, among: orders).map(\.brokerOrderId) == ["hit", "account"])
    }

    @Test("the client order id wins over everything else")
    func clientOrderId() {
        let orders = [Self.order("hit"), Self.order("mine", clientOrderId: "gw-1", quantity: 5, createdAt: nil)]
        #expect(OrderMatcher().match(Self.intent, among: orders)?.brokerOrderId == "mine")
    }

    @Test("claimed orders and orders without a broker id never match")
    func claimed() {
        let orders = [Self.order(nil), Self.order("a"), Self.order("b", createdAt: Date(timeIntervalSince1970: 1_700_000_099))]
        #expect(OrderMatcher().candidates(for: Self.intent, among: orders, claimed: ["a"]).map(\.brokerOrderId) == ["b"])
        #expect(OrderMatcher().match(Self.intent, among: orders, claimed: ["a", "b"]) == nil)
        let mine = [Self.order("m", clientOrderId: "gw-1")]
        #expect(OrderMatcher().match(Self.intent, among: mine, claimed: ["m"]) == nil)
    }

    @Test("a broker's plain buy or sell matches a cover or a short sale; the other direction never does")
    func direction() {
        var short = Self.intent
        short.side = .sellShort
        short.clientOrderId = nil
        #expect(OrderMatcher().match(short, among: [Self.order("s", side: .sell)])?.brokerOrderId == "s")
        #expect(OrderMatcher().match(short, among: [Self.order("b", side: .buy)]) == nil)
        #expect(OrderMatcher().match(Self.intent, among: [Self.order("c", side: .buyToCover)]) == nil)
    }

    @Test("orders without a creation time are candidates, after the dated ones")
    func undated() {
        let orders = [Self.order("undated", createdAt: nil), Self.order("dated")]
        #expect(OrderMatcher().candidates(for: Self.intent, among: orders).map(\.brokerOrderId) == ["dated", "undated"])
    }

    @Test("an intent from a canonical request carries its fields")
    func fromRequest() {
        let request = OrderRequest(
            connectionId: "conn",
            accountId: "acc",
            instrument: InstrumentReference(symbol: "AAPL"),
            side: .buy,
            type: .limit,
            timeInForce: .day,
            quantity: 3,
            limitPrice: 10,
            clientOrderId: "gw-9"
        )
        let intent = OrderIntent(request, sentAt: Self.sentAt)
        #expect(intent.clientOrderId == "gw-9" && intent.symbol == "AAPL" && intent.quantity == 3 && intent.limitPrice == 10)
        #expect(OrderIntent(request, clientOrderId: "gw-10", sentAt: Self.sentAt).clientOrderId == "gw-10")
    }
}

@Suite("GatewayError: retry-after is sane by construction")
struct RetryAfterBoundsTests {
    @Test func boundedFiniteOrAbsent() {
        #expect(GatewayError(.rateLimited, "x", retryAfter: .infinity).retryAfter == GatewayError.maximumRetryAfter)
        #expect(GatewayError(.rateLimited, "x", retryAfter: 1e300).retryAfter == GatewayError.maximumRetryAfter)
        #expect(GatewayError(.rateLimited, "x", retryAfter: -3).retryAfter == 0)
        #expect(GatewayError(.rateLimited, "x", retryAfter: .nan).retryAfter == nil)
        #expect(GatewayError(.rateLimited, "x", retryAfter: 2.5).retryAfter == 2.5)
        var error = GatewayError(.rateLimited, "x")
        error.retryAfter = -.infinity
        #expect(error.retryAfter == 0)
    }
}
