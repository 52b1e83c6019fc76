import Foundation
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import Testing

@testable import GatewayApp

/// What a stream sends of positions (changes of what is held, never of its price) and of the order journal (each
/// journal event as the update it means to the user), and which `Last-Event-ID`s it takes.
@Suite("Stream changes")
struct StreamDiffTests {
    static func position(_ symbol: String, _ quantity: Decimal, connection: String = "c1", price: Decimal = 10) -> Position {
        Position(
            connectionId: connection,
            accountId: "a1",
            instrument: Instrument(symbol: symbol, assetClass: .equity),
            quantity: quantity,
            averagePrice: 5,
            marketValue: quantity * price,
            lastPrice: price,
            currency: "USD"
        )
    }

    static func keyed(_ positions: [Position]) -> [String: Position] {
        Dictionary(uniqueKeysWithValues: positions.map { (StreamService.holdingKey($0), $0) })
    }

    static func changes(
        _ before: [Position]?,
        _ now: [Position],
        failed: Set<String> = []
    )
        -> [(HoldingChangeKind, String, Decimal)]
    {
        StreamService.changes(
            from: before.map(keyed),
            to: keyed(now),
            failed: failed,
            connectionOf: \.connectionId,
            same: StreamService.sameHolding
        ).map { ($0.kind, $0.item.instrument.symbol, $0.item.quantity) }
    }

    @Test func theFirstReadIsTheSnapshot() {
        let result = Self.changes(nil, [Self.position("MSFT", 2), Self.position("AAPL", 1)])
        #expect(result.map(\.0) == [.snapshot, .snapshot])
        #expect(Set(result.map(\.1)) == ["AAPL", "MSFT"])
    }

    @Test func aPriceMoveIsNotAPositionChangeButAQuantityIs() {
        let before = [Self.position("AAPL", 1, price: 10), Self.position("MSFT", 2)]
        let now = [Self.position("AAPL", 1, price: 11), Self.position("MSFT", 3)]
        let result = Self.changes(before, now)
        #expect(result.count == 1)
        #expect(result.first?.0 == .changed)
        #expect(result.first?.1 == "MSFT")
        #expect(result.first?.2 == 3)
    }

    @Test func openedAndClosed() {
        let result = Self.changes([Self.position("AAPL", 1)], [Self.position("TSLA", 4)])
        #expect(result.map(\.0) == [.opened, .closed])
        #expect(result.map(\.1) == ["TSLA", "AAPL"])
    }

    @Test func aConnectionThatFailedClosesNothing() {
        let before = [Self.position("AAPL", 1, connection: "c1"), Self.position("BTC", 1, connection: "c2")]
        let now = [Self.position("AAPL", 1, connection: "c1")]
        #expect(Self.changes(before, now, failed: ["c2"]).isEmpty)
        // ... and what it held is still known at the next read, so it is not `opened` again when it answers.
        let merged = StreamService.merged(Self.keyed(before), Self.keyed(now), failed: ["c2"], connectionOf: \.connectionId)
        #expect(merged.count == 2)
        let later = StreamService.changes(
            from: merged,
            to: Self.keyed(before),
            failed: [],
            connectionOf: \.connectionId,
            same: StreamService.sameHolding
        )
        #expect(later.isEmpty)
    }

    static func feed(_ kind: OrderEvent.Kind, _ status: OrderStatus?, detail: String? = nil) -> OrderFeedEvent {
        OrderFeedEvent(
            cursor: 7,
            tenantId: "t",
            userId: "u",
            orderId: "ord_1",
            connectionId: "c1",
            broker: .alpaca,
            event: OrderEvent(kind: kind, state: .accepted, status: status, detail: detail, at: Date(timeIntervalSince1970: 0), sequence: 2),
            order: nil
        )
    }

    @Test func journalEventsAreTheUpdatesTheyMean() {
        #expect(OrderUpdate(Self.feed(.intent, nil)) == nil)
        let expected: [(OrderEvent.Kind, OrderStatus?, OrderUpdate.Kind)] = [
            (.accepted, .open, .placed),
            (.statusChanged, .filled, .filled),
            (.statusChanged, .partiallyFilled, .partiallyFilled),
            (.statusChanged, .canceled, .canceled),
            (.statusChanged, .expired, .expired),
            (.statusChanged, .rejected, .rejected),
            (.statusChanged, .replaced, .modified),
            (.statusChanged, .pendingCancel, .statusChanged),
            (.unknown, nil, .unknown),
            (.reconciled, .open, .reconciled),
            (.notFoundAtBroker, nil, .rejected),
            (.released, nil, .released),
            (.rejected, nil, .rejected),
            (.modified, .open, .modified),
            (.modifyFailed, .open, .statusChanged),
            (.canceled, .canceled, .canceled),
            (.cancelRefused, .filled, .statusChanged),
        ]
        for (kind, status, update) in expected {
            let mapped = OrderUpdate(Self.feed(kind, status, detail: "why"))
            #expect(mapped?.kind == update, "\(kind) \(String(describing: status))")
            #expect(mapped?.status == status)
            #expect(mapped?.orderId == "ord_1")
            #expect(mapped?.detail == "why")
        }
    }

    @Test func aLastEventIdIsAnOrderCursor() throws {
        #expect(try StreamService.streamCursor(nil) == nil)
        #expect(try StreamService.streamCursor("") == nil)
        #expect(try StreamService.streamCursor("42") == 42)
        for bad in ["-1", "4.2", "abc", "99999999999999999999", "１２"] {
            #expect(throws: GatewayError.self, "\(bad)") { try StreamService.streamCursor(bad) }
        }
    }
}
