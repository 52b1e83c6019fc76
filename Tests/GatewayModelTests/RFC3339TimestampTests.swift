import Foundation
import GatewayModel
import Testing

@Suite("RFC 3339 timestamps")
struct RFC3339TimestampTests {
    @Test("whole seconds in UTC")
    func wholeSeconds() {
        #expect(RFC3339Timestamp.parse("2019-08-24T14:15:22Z") == Date(timeIntervalSince1970: 1_566_656_122))
        #expect(RFC3339Timestamp.parse("2019-08-24t14:15:22z") == Date(timeIntervalSince1970: 1_566_656_122))
        #expect(RFC3339Timestamp.parse("2019-08-24 14:15:22Z") == Date(timeIntervalSince1970: 1_566_656_122))
        #expect(RFC3339Timestamp.parse("1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(RFC3339Timestamp.parse("2024-02-29T00:00:00Z") == Date(timeIntervalSince1970: 1_709_164_800))
    }

    @Test("fractional seconds, from one digit to nanoseconds")
    func fractions() throws {
        #expect(RFC3339Timestamp.parse("2024-01-01T00:00:00.25Z") == Date(timeIntervalSince1970: 1_704_067_200.25))
        #expect(RFC3339Timestamp.parse("2024-01-01T00:00:00.5Z") == Date(timeIntervalSince1970: 1_704_067_200.5))
        let micros = try #require(RFC3339Timestamp.parse("2019-03-07T14:54:17.423333Z"))
        #expect(abs(micros.timeIntervalSince1970 - 1_551_970_457.423333) < 0.000_001)
        let nanos = try #require(RFC3339Timestamp.parse("2024-07-18T08:10:33.389152169Z"))
        let utc = try #require(RFC3339Timestamp.parse("2024-07-18T08:10:33.389152Z"))
        #expect(abs(nanos.timeIntervalSince(utc)) < 0.000_001)
    }

    @Test("offsets move the instant; -04:00 is four hours behind UTC")
    func offsets() throws {
        let offset = try #require(RFC3339Timestamp.parse("2024-07-18T04:10:33.389152169-04:00"))
        let utc = try #require(RFC3339Timestamp.parse("2024-07-18T08:10:33.389152169Z"))
        #expect(offset == utc)
        #expect(RFC3339Timestamp.parse("2024-01-01T05:30:00+05:30") == Date(timeIntervalSince1970: 1_704_067_200))
        #expect(RFC3339Timestamp.parse("2024-01-01T00:00:00+00:00") == Date(timeIntervalSince1970: 1_704_067_200))
    }

    @Test(
        "garbage and near misses are refused",
        arguments: [
            "", "yesterday", "2019-08-24", "2019-08-24T14:15:22", "2019-08-24 14:15:22", "2019-08-24T14:15:22.Z",
            "2019-13-24T14:15:22Z", "2019-02-30T14:15:22Z", "2023-02-29T00:00:00Z", "2019-08-24T24:00:00Z",
            "2019-08-24T14:60:00Z", "2019-08-24T14:15:22+0100", "2019-08-24T14:15:22+25:00", "2019-08-24T14:15:22Zjunk",
            "2019-8-24T14:15:22Z", "２０１９-08-24T14:15:22Z", "2019-08-24T14:15:22.1234567890Z",
        ]
    )
    func garbage(_ text: String) {
        #expect(RFC3339Timestamp.parse(text) == nil)
    }

    @Test("overlong input is refused before it is read")
    func overlong() {
        #expect(RFC3339Timestamp.parse("2019-08-24T14:15:22Z" + String(repeating: " ", count: 30)) == nil)
        #expect(RFC3339Timestamp.parse(String(repeating: "9", count: 100_000)) == nil)
        #expect(RFC3339Timestamp.parse("2024-07-18T04:10:33.389152169-04:00") != nil)
    }

    @Test("format writes whole seconds, and milliseconds only when there are some; parse reads it back")
    func format() {
        #expect(RFC3339Timestamp.format(Date(timeIntervalSince1970: 1_704_067_200)) == "2024-01-01T00:00:00Z")
        #expect(RFC3339Timestamp.format(Date(timeIntervalSince1970: 1_704_067_200.25)) == "2024-01-01T00:00:00.250Z")
        let date = Date(timeIntervalSince1970: 1_566_656_122.5)
        #expect(RFC3339Timestamp.parse(RFC3339Timestamp.format(date)) == date)
    }
}
