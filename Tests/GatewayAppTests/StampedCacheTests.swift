import Testing

@testable import GatewayApp

@Suite("StampedCache: answers kept under the stamp they were read under, bounded")
struct StampedCacheTests {
    @Test("a hit under the same stamp; another stamp drops every entry")
    func stampChangeDrops() {
        let cache = StampedCache<String, Int>(capacity: 10)
        #expect(cache.value(for: "a", stamp: 1) == nil)
        cache.insert(1, for: "a", stamp: 1)
        cache.insert(2, for: "b", stamp: 1)
        #expect(cache.value(for: "a", stamp: 1) == 1)
        #expect(cache.value(for: "a", stamp: 2) == nil)
        #expect(cache.value(for: "b", stamp: 2) == nil)
        #expect(cache.count == 0)
    }

    @Test("an answer loaded under a stamp that moved on meanwhile is not kept")
    func staleInsertRefused() {
        let cache = StampedCache<String, Int>(capacity: 10)
        #expect(cache.value(for: "a", stamp: 1) == nil)  // a request reads stamp 1 and starts loading
        #expect(cache.value(for: "b", stamp: 2) == nil)  // a write landed: another request sees stamp 2
        cache.insert(1, for: "a", stamp: 1)  // the first request's answer may predate the write
        #expect(cache.value(for: "a", stamp: 2) == nil)
        #expect(cache.count == 0)
    }

    @Test("never more than its capacity")
    func bounded() {
        let cache = StampedCache<Int, Int>(capacity: 3)
        _ = cache.value(for: 0, stamp: 7)
        for key in 0..<10 { cache.insert(key, for: key, stamp: 7) }
        #expect(cache.count == 3)
        #expect(cache.value(for: 9, stamp: 7) == 9)
    }
}
