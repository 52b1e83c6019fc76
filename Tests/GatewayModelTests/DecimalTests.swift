import Foundation
import GatewayModel
import Testing

@Suite("Decimals stay exact")
struct DecimalTests {
    @Test func additionIsExact() throws {
        let sum = try #require(DecimalText.parse("0.1")) + #require(DecimalText.parse("0.2"))
        #expect(sum == DecimalText.parse("0.3"))
        #expect(DecimalText.format(sum) == "0.3")
    }

    @Test(arguments: ["0.00000001", "12345.67890123", "21000000.00000001", "-0.5", "12345678901234567890", "1234567890.1234567891"])
    func roundTripsThroughText(_ text: String) throws {
        let value = try #require(DecimalText.parse(text))
        #expect(DecimalText.format(value) == text)
    }

    @Test(arguments: ["1.5abc", "", " 1", "1 ", "abc", "1,5", "0x10", "NaN", "1e", "--1", ".", "1.2.3", "1e9999"])
    func rejectsWhatIsNotAPlainDecimal(_ text: String) {
        #expect(DecimalText.parse(text) == nil)
    }

    @Test func acceptsSignsAndExponents() {
        #expect(DecimalText.parse("+5") == 5)
        #expect(DecimalText.parse("1e-8") == DecimalText.parse("0.00000001"))
        #expect(DecimalText.parse(".5") == DecimalText.parse("0.5"))
    }

    @Test func formatsWithAFixedScale() throws {
        #expect(DecimalText.format(try #require(DecimalText.parse("0.025")), scale: 8) == "0.02500000")
        #expect(DecimalText.format(5, scale: 2) == "5.00")
        #expect(DecimalText.format(try #require(DecimalText.parse("-1.5")), scale: 3) == "-1.500")
    }

    @Test func knowsIncrementsAndPrecision() throws {
        #expect(DecimalText.fractionDigits(try #require(DecimalText.parse("1.2500"))) == 2)
        #expect(DecimalText.isMultiple(try #require(DecimalText.parse("1.25")), of: try #require(DecimalText.parse("0.05"))))
        #expect(!DecimalText.isMultiple(try #require(DecimalText.parse("1.251")), of: try #require(DecimalText.parse("0.01"))))
    }
}
