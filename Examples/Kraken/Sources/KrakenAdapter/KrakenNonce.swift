import Foundation
import Synchronization

/// Where an adapter's nonces come from.
///
/// Kraken refuses a nonce that is not strictly greater than the last one it accepted **for the API key**
/// (`EAPI:Invalid nonce`), so the default source is one per process and per key: the wall clock in milliseconds (as
/// ccxt's), pushed one past the last nonce given out for that key when the clock has not moved on. Adapters the
/// registry remakes for the same connection (a settings change) keep counting where the last one stopped.
///
/// Contract replays need nonces they can predict: ``counting(from:)`` gives `start`, `start + 1`, … to each adapter
/// made, so a case pins the `nonce` form field of every private call it records (see docs/brokers/kraken.md §7.8).
public struct KrakenNonceSource: Sendable {
    /// Makes one adapter's nonce function: API key → the next nonce for it.
    public let make: @Sendable () -> @Sendable (String) -> UInt64

    /// Milliseconds since 1970, strictly increasing per API key within the process.
    public static var clock: KrakenNonceSource {
        KrakenNonceSource { { key in KrakenNonceSource.issued.next(key: key, now: UInt64(Date().timeIntervalSince1970 * 1000)) } }
    }

    /// Each adapter made gets its own counter: `start`, `start + 1`, … whatever the key (for contract replays).
    public static func counting(from start: UInt64) -> KrakenNonceSource {
        KrakenNonceSource {
            let counter = Mutex(start)
            return { _ in
                counter.withLock { value in
                    defer { value += 1 }
                    return value
                }
            }
        }
    }

    /// The last nonce given out per API key in this process.
    static let issued = Issued()

    final class Issued: Sendable {
        let last = Mutex<[String: UInt64]>([:])

        func next(key: String, now: UInt64) -> UInt64 {
            last.withLock { last in
                let value = max(now, (last[key] ?? 0) + 1)
                last[key] = value
                return value
            }
        }
    }
}
