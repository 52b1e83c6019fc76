import Foundation
import Synchronization

/// The market-data stream connections each account holds, per endpoint (Alpaca limits them).
final class AlpacaStreamConnections: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    /// Counts one more connection unless the account already holds `limit` to `endpoint`.
    func acquire(account: UUID, endpoint: String, limit: Int) -> Bool {
        counts.withLock { counts in
            let key = "\(account.uuidString)|\(endpoint)"
            guard counts[key, default: 0] < limit else { return false }
            counts[key, default: 0] += 1
            return true
        }
    }

    func release(account: UUID, endpoint: String) {
        counts.withLock { counts in
            let key = "\(account.uuidString)|\(endpoint)"
            let left = counts[key, default: 0] - 1
            counts[key] = left > 0 ? left : nil
        }
    }
}
