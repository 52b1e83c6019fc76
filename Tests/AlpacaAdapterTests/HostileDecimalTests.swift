import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import Testing

@testable import AlpacaAdapter

/// A broker's decimal that `Decimal` cannot hold exactly is that source's `malformed_response` (502): never a trap,
/// never a rounded value. (Decimals are parsed by the shared `DecimalText`, so every adapter gets the same rule.)
@Suite("Alpaca: hostile decimals from the broker")
struct HostileDecimalTests {
    func positions(qty: String) -> String {
        """
        [{"asset_id": "a1", "symbol": "TSLA", "exchange": "NASDAQ", "asset_class": "us_equity",
          "avg_entry_price": "250", "qty": \(qty), "side": "long", "cost_basis": "2500"}]
        """
    }

    /// Before: the 42-digit values (string or number) were read and silently rounded to 39 digits.
    @Test(arguments: [
        #""123456789012345678901234567890123456789012""#, "123456789012345678901234567890123456789012",
        #""1.00000000000000000000000000000000000000001""#, #""1e999""#, #""1e-200""#,
        "1e200", #""\#(String(repeating: "9", count: 300))""#,
    ])
    func anInexactOrHugeDecimalIsMalformed(_ qty: String) async throws {
        let transport = queued([(200, accountJSON), (200, positions(qty: qty))])
        let error = await #expect(throws: GatewayError.self) {
            try await makeAdapter(transport).positions(accountId: nil)
        }
        #expect(error?.code == .malformedResponse)
        #expect(error?.code.httpStatus == 502)
    }

    @Test func anExactLongDecimalIsKeptAsSent() async throws {
        let qty = "12345678901234567890.123456789012345678"
        let transport = queued([(200, accountJSON), (200, positions(qty: #""\#(qty)""#))])
        let read = try await makeAdapter(transport).positions(accountId: nil)
        #expect(read.first.map { DecimalText.format($0.quantity) } == qty)
    }
}
