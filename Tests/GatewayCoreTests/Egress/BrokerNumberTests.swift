import Foundation
import GatewayCore
import Testing

@Suite("Broker numbers: one parser, finite and bounded")
struct BrokerNumberTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(
        "Retry-After as seconds: finite and clamped to 0…86,400, or nothing",
        arguments: [
            ("120", 120.0), ("  7 ", 7), ("0", 0), ("-5", 0), ("1e300", 86_400), ("99999999999999999999999", 86_400),
            ("2.5", 2.5), ("1E3", 1000),
        ] as [(String, Double?)]
    )
    func retryAfterSeconds(_ text: String, _ expected: Double?) {
        #expect(BrokerNumber.retryAfter(text, now: Self.now) == expected)
    }

    @Test(
        "what is not a number in plain decimal notation is nothing",
        arguments: [
            "inf", "-inf", "Infinity", "nan", "NaN", "0x10", "1e4000", "", "   ", "12 s", "1.2.3", "e5", ".", "-", "1e",
            String(repeating: "9", count: 41),
        ]
    )
    func notNumbers(_ text: String) {
        #expect(BrokerNumber.finite(text) == nil)
        #expect(BrokerNumber.retryAfter(text, now: Self.now) == nil)
        #expect(BrokerNumber.count(text) == nil)
    }

    @Test("Retry-After as an HTTP date: seconds from now, clamped")
    func retryAfterDates() {
        // 1_800_000_120 is Fri, 15 Jan 2027 08:02:00 GMT.
        #expect(BrokerNumber.httpDate("Fri, 15 Jan 2027 08:02:00 GMT") == 1_800_000_120)
        #expect(BrokerNumber.retryAfter("Fri, 15 Jan 2027 08:02:00 GMT", now: Self.now) == 120)
        #expect(BrokerNumber.retryAfter("Thu, 01 Jan 1970 00:00:00 GMT", now: Self.now) == 0)
        #expect(BrokerNumber.retryAfter("Fri, 31 Dec 9999 23:59:59 GMT", now: Self.now) == 86_400)
        #expect(BrokerNumber.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        for text in [
            "Sun, 06 Nov 1994 08:49:37 CET", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun, 32 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Nov 10000 08:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT",
        ] {
            #expect(BrokerNumber.httpDate(text) == nil, "\(text)")
        }
    }

    @Test("counts are whole, non-negative and at most a trillion")
    func counts() {
        #expect(BrokerNumber.count("200") == 200)
        #expect(BrokerNumber.count("12.9") == 12)
        #expect(BrokerNumber.count("1e300") == BrokerNumber.maximumCount)
        #expect(BrokerNumber.count("-1") == nil)
        #expect(BrokerNumber.size("1048576") == 1_048_576)
    }

    @Test("resets: seconds from now or unix seconds, clamped to 0…86,400")
    func resets() {
        #expect(BrokerNumber.resetSeconds("30", kind: .secondsFromNow, now: Self.now) == 30)
        #expect(BrokerNumber.resetSeconds("1800000060", kind: .unixSeconds, now: Self.now) == 60)
        #expect(BrokerNumber.resetSeconds("1e300", kind: .unixSeconds, now: Self.now) == 86_400)
        #expect(BrokerNumber.resetSeconds("5", kind: .unixSeconds, now: Self.now) == 0)
        #expect(BrokerNumber.resetSeconds("inf", kind: .secondsFromNow, now: Self.now) == nil)
    }
}
