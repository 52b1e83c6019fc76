import Foundation
import KrakenAdapter
import Testing

@Suite("Kraken API-Sign")
struct SignerTests {
    /// The worked example of Kraken's Spot REST Authentication guide
    /// (https://docs.kraken.com/api/docs/guides/spot-rest-auth, "Examples"; docs/brokers/kraken.md §1.2).
    @Test("the published test vector")
    func publishedVector() throws {
        let key = try #require(
            KrakenSigner.key(secret: "kQH5HW/8p1uGOVjbgWA7FunAmGO8lsSUXNsu3eow76sz84Q18fWxnyRzBHCd3pd5nE9qa99HAZtuZuj6F1huXg==")
        )
        let body = Data("nonce=1616492376594&ordertype=limit&pair=XBTUSD&price=37500&type=buy&volume=1.25".utf8)
        #expect(
            KrakenSigner.signature(path: "/0/private/AddOrder", nonce: "1616492376594", body: body, key: key)
                == "4/dpxb3iT4tp/ZCVEwSnEsLxx0bqyhLpdfOpc6fn7OR8+UClSV5n9E6aSS8MPtnRfp32bAb0nmbRn6H8ndwLUQ=="
        )
        // One byte of the body changed changes the signature.
        let other = Data("nonce=1616492376594&ordertype=limit&pair=XBTUSD&price=37501&type=buy&volume=1.25".utf8)
        #expect(
            KrakenSigner.signature(path: "/0/private/AddOrder", nonce: "1616492376594", body: other, key: key)
                != "4/dpxb3iT4tp/ZCVEwSnEsLxx0bqyhLpdfOpc6fn7OR8+UClSV5n9E6aSS8MPtnRfp32bAb0nmbRn6H8ndwLUQ=="
        )
    }

    @Test("a secret that is not base64 is refused")
    func badSecret() {
        #expect(KrakenSigner.key(secret: "not base64!") == nil)
    }

    @Test("the clock's nonces increase per key, even when asked faster than the clock moves")
    func nonces() {
        let next = KrakenNonceSource.clock.make()
        let key = "key-\(UUID())"
        var last: UInt64 = 0
        for _ in 0..<1000 {
            let value = next(key)
            #expect(value > last)
            last = value
        }
        // A second adapter for the same key continues above the first.
        #expect(KrakenNonceSource.clock.make()(key) > last)
        let counting = KrakenNonceSource.counting(from: 42).make()
        #expect([counting("a"), counting("b"), counting("a")] == [42, 43, 44])
    }
}
