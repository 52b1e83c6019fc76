import Crypto
import GatewayCore
import GatewayStore

/// The store reads on every request's path, cached under the store's change stamp (see ``StampedCache``): the
/// authenticated API key with its tenant (keyed by the SHA-256 of the presented key, never the key itself), a
/// session, a tenant, that a user exists, and a user's connection list.
///
/// A store that does not conform to `StoreChangeStamp` cannot say when an answer went stale, so with it nothing is
/// cached and every request reads the store, as before. The stamp is read through one ``SharedStampReader``, so
/// concurrent requests share reads without ever being answered from a read that began before they asked.
struct HotReads: Sendable {
    struct UserKey: Hashable, Sendable {
        var tenantId: String
        var userId: String
    }

    /// The most entries each cache keeps.
    static let capacity = 10_000

    let stamps: SharedStampReader?
    let keys = StampedCache<SHA256Digest, AuthenticatedAPIKey>(capacity: capacity)
    let sessions = StampedCache<String, SessionRecord>(capacity: capacity)
    let tenants = StampedCache<String, Tenant>(capacity: capacity)
    let users = StampedCache<UserKey, Bool>(capacity: capacity)
    let connectionLists = StampedCache<UserKey, [ConnectionDescriptor]>(capacity: capacity)

    init(store: any GatewayStore) {
        stamps = (store as? any StoreChangeStamp).map(SharedStampReader.init)
    }

    /// `load`'s answer, from `cache` when it holds one under the store's current stamp.
    func read<Key, Value>(
        _ cache: StampedCache<Key, Value>,
        _ key: Key,
        load: () async throws -> Value?
    ) async throws -> Value? {
        guard let stamps else { return try await load() }
        let stamp = try await stamps.changeStamp()
        if let hit = cache.value(for: key, stamp: stamp) { return hit }
        guard let value = try await load() else { return nil }
        cache.insert(value, for: key, stamp: stamp)
        return value
    }

    static func digest(ofKey presented: String) -> SHA256Digest {
        SHA256.hash(data: Array(presented.utf8))
    }
}
