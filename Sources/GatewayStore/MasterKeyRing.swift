import Crypto
import Synchronization

/// The keys a ``CredentialCipher`` and its copies hold: the configured master key and, while a master key rotation is
/// open, the rotation's other key. Outside a rotation it seals and opens under the configured key; during one it
/// seals under the rotation's new key and opens under both (``MasterKeyRotation``).
final class MasterKeyRing: Sendable {
    /// The key the gateway was configured with (environment, mounted file or key file).
    let configured: SymmetricKey
    private let keys: Mutex<Keys>

    private struct Keys {
        var sealing: SymmetricKey
        var others: [SymmetricKey]
    }

    init(configured: SymmetricKey) {
        self.configured = configured
        self.keys = Mutex(Keys(sealing: configured, others: []))
    }

    /// The key new values are sealed under.
    var sealing: SymmetricKey { keys.withLock { $0.sealing } }

    /// The keys a sealed value is tried under, the sealing key first.
    var opening: [SymmetricKey] { keys.withLock { [$0.sealing] + $0.others } }

    /// Whether a rotation's second key is held.
    var isRotating: Bool { keys.withLock { !$0.others.isEmpty } }

    /// A rotation from `old` to `new` is open: seal under `new`, open under both. `true` when that changed anything.
    @discardableResult
    func enterRotation(from old: SymmetricKey, to new: SymmetricKey) -> Bool {
        keys.withLock { keys in
            guard keys.sealing != new || keys.others != [old] else { return false }
            keys = Keys(sealing: new, others: [old])
            return true
        }
    }

    /// The rotation to `key` is finished: only `key` is left.
    func settle(on key: SymmetricKey) {
        keys.withLock { $0 = Keys(sealing: key, others: []) }
    }
}
