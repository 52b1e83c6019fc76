import Foundation
import GatewayModel
import Testing

@testable import GatewayApp

@Suite("Alert rules, by hand")
struct AlertRulesTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func rule(_ condition: AlertCondition, _ threshold: String, window: Int? = nil) -> AlertRule.PriceRule {
        AlertRule.PriceRule(
            instrument: InstrumentReference(symbol: "AAPL", assetClass: .equity),
            condition: condition,
            threshold: Decimal(string: threshold)!,
            windowSeconds: window
        )
    }

    /// Feeds prices one second apart and returns what each one did.
    static func run(_ rule: AlertRule.PriceRule, _ prices: [String], armed: Bool = true) -> [AlertRules.Verdict] {
        var state = AlertRules.PriceState(armed: armed)
        return prices.enumerated().map { index, price in
            AlertRules.evaluate(rule, price: Decimal(string: price)!, at: start.addingTimeInterval(Double(index)), state: &state)
        }
    }

    static func fired(_ verdicts: [AlertRules.Verdict]) -> [Int] {
        verdicts.enumerated().compactMap { index, verdict in if case .fire = verdict { index } else { nil } }
    }

    @Test("above fires once when crossed, re-arms when the price crosses back, fires again on the next crossing")
    func aboveWithRearm() {
        let verdicts = Self.run(Self.rule(.above, "200"), ["199", "200", "201", "250", "199.99", "198", "200.5", "201"])
        #expect(Self.fired(verdicts) == [1, 6])
        #expect(verdicts[4] == .rearm)
        #expect(verdicts[5] == .none)
        if case .fire(let message) = verdicts[1] { #expect(message == "AAPL at 200 is at or above 200") }
    }

    @Test("below fires at or under the threshold; a disarmed alert (as stored after a firing) waits for the crossing back")
    func belowWithRearm() {
        #expect(Self.fired(Self.run(Self.rule(.below, "10.5"), ["11", "10.50", "9", "10.6", "10.4"])) == [1, 4])
        // Disarmed when loaded (it fired before a restart): the price still below does not fire it again.
        let verdicts = Self.run(Self.rule(.below, "10.5"), ["9", "8", "11", "10"], armed: false)
        #expect(Self.fired(verdicts) == [3])
        #expect(verdicts[2] == .rearm)
    }

    @Test("percent_move fires on a move of at least the threshold from any price within the window, up or down")
    func percentMove() {
        // 5 % within 3 s: 100 → 104 → 105 (5 % over 100, 2 s later) fires; then 105 held, no new move.
        let up = Self.run(Self.rule(.percentMove, "5", window: 3), ["100", "104", "105", "105", "105", "105"])
        #expect(Self.fired(up) == [2])
        if case .fire(let message) = up[2] { #expect(message == "AAPL moved 5 % (from 100 to 105) within 3 s") }
        // Once the window has passed over the old price, the move no longer holds: re-armed.
        #expect(up[4] == .rearm)
        // A slow move spread wider than the window never fires.
        #expect(Self.fired(Self.run(Self.rule(.percentMove, "5", window: 2), ["100", "102", "104", "106", "108", "110"])).isEmpty)
        // Down: from the highest price within the window.
        let down = Self.run(Self.rule(.percentMove, "10", window: 60), ["55", "52", "49.5"])
        #expect(Self.fired(down) == [2])
        if case .fire(let message) = down[2] { #expect(message == "AAPL moved -10 % (from 55 to 49.5) within 60 s") }
    }

    @Test("the price of a quote: its last, else the middle of bid and ask; a quote without either is ignored")
    func quotePrice() {
        let instrument = Instrument(symbol: "AAPL", assetClass: .equity)
        #expect(AlertRules.price(of: Quote(instrument: instrument, bid: 1, ask: 2, last: 5)) == 5)
        #expect(AlertRules.price(of: Quote(instrument: instrument, bid: 1, ask: 2)) == Decimal(string: "1.5"))
        #expect(AlertRules.price(of: Quote(instrument: instrument, bid: 1)) == nil)
        let rule = AlertRule.PriceRule(instrument: InstrumentReference(symbol: "aapl"), connectionId: "conn_a", condition: .above, threshold: 1)
        #expect(AlertRules.watches(rule, Quote(instrument: instrument, connectionId: "conn_a")))
        #expect(!AlertRules.watches(rule, Quote(instrument: instrument, connectionId: "conn_b")))
        #expect(!AlertRules.watches(rule, Quote(instrument: Instrument(symbol: "MSFT", assetClass: .equity), connectionId: "conn_a")))
    }

    static func update(
        _ kind: OrderUpdate.Kind,
        _ orderId: String,
        at seconds: Double,
        status: OrderStatus? = nil,
        connection: String = "conn_a"
    ) -> OrderUpdate {
        OrderUpdate(kind: kind, orderId: orderId, connectionId: connection, status: status, at: start.addingTimeInterval(seconds))
    }

    @Test("order alerts: filled and rejected from the update's kind, or a reconciliation's status; the connection filter")
    func orderKinds() {
        let filled = AlertRule.OrderRule(on: .filled)
        let rejected = AlertRule.OrderRule(on: .rejected, connectionId: "conn_a")
        #expect(AlertRules.fires(filled, Self.update(.filled, "o1", at: 0)))
        #expect(AlertRules.fires(filled, Self.update(.reconciled, "o1", at: 0, status: .filled)))
        #expect(!AlertRules.fires(filled, Self.update(.partiallyFilled, "o1", at: 0)))
        #expect(!AlertRules.fires(filled, Self.update(.rejected, "o1", at: 0)))
        #expect(AlertRules.fires(rejected, Self.update(.rejected, "o1", at: 0)))
        #expect(AlertRules.fires(rejected, Self.update(.reconciled, "o1", at: 0, status: .rejected)))
        #expect(!AlertRules.fires(rejected, Self.update(.rejected, "o1", at: 0, connection: "conn_b")))
        #expect(!AlertRules.fires(AlertRule.OrderRule(on: .unknown, unknownForSeconds: 5), Self.update(.unknown, "o1", at: 0)))
    }

    @Test("unknown for longer than N seconds: an unknown update not followed by another for that order within N s")
    func unknownTimers() {
        let rule = AlertRule.OrderRule(on: .unknown, unknownForSeconds: 30)
        var orders = AlertRules.UnknownOrders()
        orders.observe(Self.update(.unknown, "o1", at: 0))
        orders.observe(Self.update(.unknown, "o2", at: 10))
        // A second unknown keeps the first time; another kind stops the clock.
        orders.observe(Self.update(.unknown, "o1", at: 20))
        #expect(orders.overdue(rule, now: Self.start.addingTimeInterval(30)).isEmpty)
        #expect(orders.overdue(rule, now: Self.start.addingTimeInterval(31)).map(\.orderId) == ["o1"])
        orders.observe(Self.update(.reconciled, "o2", at: 35, status: .filled))
        #expect(orders.overdue(rule, now: Self.start.addingTimeInterval(60)).map(\.orderId) == ["o1"])
        orders.observe(Self.update(.filled, "o1", at: 61))
        #expect(orders.overdue(rule, now: Self.start.addingTimeInterval(100)).isEmpty)
        #expect(orders.pending.isEmpty)
        // Another connection's order does not count for a rule of one connection.
        orders.observe(Self.update(.unknown, "o3", at: 0, connection: "conn_b"))
        #expect(
            orders.overdue(AlertRule.OrderRule(on: .unknown, connectionId: "conn_a", unknownForSeconds: 1), now: Self.start.addingTimeInterval(10))
                .isEmpty
        )
    }

    @Test("the webhook signature: HMAC-SHA256 over t.body, verified within the tolerance, refused when anything changes")
    func signature() {
        let body = Data(#"{"alertId":"alr_1"}"#.utf8)
        let secret = "whsec_test"
        let header = WebhookSignature.header(body: body, secret: secret, timestamp: 1_800_000_000)
        // Worked out independently: printf '1800000000.{"alertId":"alr_1"}' | openssl dgst -sha256 -hmac whsec_test
        #expect(header == "t=1800000000,v1=\(Self.opensslHMAC)")
        let now = Date(timeIntervalSince1970: 1_800_000_100)
        #expect(WebhookSignature.verify(header: header, body: body, secret: secret, now: now))
        #expect(!WebhookSignature.verify(header: header, body: Data(#"{"alertId":"alr_2"}"#.utf8), secret: secret, now: now))
        #expect(!WebhookSignature.verify(header: header, body: body, secret: "whsec_other", now: now))
        #expect(!WebhookSignature.verify(header: header, body: body, secret: secret, now: now.addingTimeInterval(300)))
        #expect(!WebhookSignature.verify(header: "t=1800000000", body: body, secret: secret, now: now))
        let made = WebhookSignature.makeSecret()
        #expect(made.hasPrefix("whsec_") && made.count == 46)
    }

    static let opensslHMAC = "8b6412e5b3ddd506a59801cba4cfea200f53d6791f124e668647d35bd7da116c"
}
