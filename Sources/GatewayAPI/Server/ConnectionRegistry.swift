import Logging
package import NIOCore
import Synchronization

/// Who holds the server's connections: every connection of one server joins it when it opens and leaves when it
/// closes, and says when it is idle (between requests) and when it is busy. It answers the two questions a fair cap
/// needs: may this client open one more (its share, ``ServerLimits/maxConnectionsPerClient``), and at the server's
/// cap, which idle connection makes room (the one idle the longest).
///
/// Without it the cap was Hummingbird's `MaximumAvailableConnections`, which stops accepting at the cap: one
/// client holding 1,100 keep-alives made every other client wait in the kernel's backlog until one of them closed.
///
/// Connections live on many event loops: the book is behind a `Mutex`, and a connection closed to make room is
/// closed on its own event loop. A connection that closed meanwhile is simply gone from the book (closing it again
/// is harmless).
final class ConnectionRegistry: Sendable {
    private struct State {
        var book: ConnectionBook
        var channels: [Int: any Channel] = [:]
    }

    private let state: Mutex<State>
    private let logger: Logger

    init(limits: ServerLimits, logger: Logger) {
        state = Mutex(
            State(book: ConnectionBook(capacity: limits.maxConnections, perClient: limits.maxConnectionsPerClient))
        )
        self.logger = logger
    }

    /// A connection opened: its ticket, or `nil` when it must be closed at once (its client holds its share, or
    /// every open connection is busy). To make room it may close the connection idle the longest.
    func admit(_ channel: any Channel) -> Int? {
        let client = ClientAddress(channel.remoteAddress)
        let (admission, evicted) = state.withLock { state -> (ConnectionBook.Admission, (any Channel)?) in
            let admission = state.book.admit(client)
            guard case .admitted(let id, let evicting) = admission else { return (admission, nil) }
            state.channels[id] = channel
            return (admission, evicting.flatMap { state.channels.removeValue(forKey: $0) })
        }
        if let evicted {
            logger.debug("Closed the connection idle the longest to make room", metadata: ["client": "\(client)"])
            evicted.eventLoop.execute { evicted.close(promise: nil) }
        }
        switch admission {
        case .admitted(let id, _):
            return id
        case .refused(let reason):
            logger.debug(
                "Refused a connection",
                metadata: ["client": "\(client)", "reason": "\(reason)"]
            )
            return nil
        }
    }

    /// The connection finished its last response and has no byte of a next request: it may be closed to make room.
    func markIdle(_ id: Int) {
        state.withLock { $0.book.markIdle(id) }
    }

    /// Bytes of a request arrived. `false` when the connection was closed to make room meanwhile: the bytes must
    /// not be served (the client sees a keep-alive closed as it sent, which HTTP clients expect and retry).
    func markBusy(_ id: Int) -> Bool {
        state.withLock { $0.book.markBusy(id) }
    }

    /// The connection closed.
    func remove(_ id: Int) {
        state.withLock { state in
            state.book.remove(id)
            state.channels[id] = nil
        }
    }

    /// Connections in the book now (tests and diagnostics).
    var count: Int {
        state.withLock { $0.book.count }
    }
}

/// The key a client's share is counted under: an IPv4 address; an IPv6 address's /64 (one host is commonly given a
/// whole /64, so counting single IPv6 addresses would give one attacker billions of shares), with IPv4-mapped
/// addresses counted as the IPv4 address; and one key for every client without an IP address (a Unix socket).
package struct ClientAddress: Hashable, Sendable, CustomStringConvertible {
    package let description: String

    package init(_ address: SocketAddress?) {
        switch address {
        // The address bytes are read at their offsets in `sockaddr_in` (4) and `sockaddr_in6` (8), which POSIX and
        // RFC 3493 fix on every platform NIO runs on: naming the fields would need the C modules NIO wraps.
        case .v4(let v4):
            description = Self.dotted(withUnsafeBytes(of: v4.address) { Array($0[4..<8]) })
        case .v6(let v6):
            description = Self.prefix(ofIPv6: withUnsafeBytes(of: v6.address) { Array($0[8..<24]) })
        case .unixDomainSocket, .none:
            description = "local"
        }
    }

    package init(description: String) {
        self.description = description
    }

    /// `a.b.c.d` from an IPv4 address's four bytes (network order).
    package static func dotted(_ bytes: [UInt8]) -> String {
        bytes.map(String.init).joined(separator: ".")
    }

    /// The /64 of a 16-byte IPv6 address (`2001:db8:0:1::/64`), or the IPv4 address of an IPv4-mapped one.
    package static func prefix(ofIPv6 bytes: [UInt8]) -> String {
        guard bytes.count == 16 else { return "local" }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            return dotted(Array(bytes[12..<16]))
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}

/// The registry's bookkeeping, without channels or locks: which connections are open, under which client, and
/// which are idle in the order they became idle.
package struct ConnectionBook: Sendable {
    package enum Refusal: Sendable, Equatable, CustomStringConvertible {
        /// The client already holds its share.
        case clientShare
        /// The server is at its cap and no open connection is idle.
        case serverFull

        package var description: String {
            switch self {
            case .clientShare: "client_share"
            case .serverFull: "server_full"
            }
        }
    }

    package enum Admission: Sendable, Equatable {
        /// Admitted under `id`; `evicting` is the idle connection to close to make room, if any.
        case admitted(id: Int, evicting: Int?)
        case refused(Refusal)
    }

    package let capacity: Int
    package let perClient: Int
    private var clients: [Int: ClientAddress] = [:]
    private var counts: [ClientAddress: Int] = [:]
    /// Idle connections and when each became idle (a sequence number: a clock can tie, a counter cannot).
    private var idleSince: [Int: UInt64] = [:]
    private var nextId = 0
    private var tick: UInt64 = 0

    package init(capacity: Int, perClient: Int) {
        self.capacity = max(1, capacity)
        self.perClient = min(max(1, perClient), self.capacity)
    }

    package var count: Int { clients.count }

    package func count(of client: ClientAddress) -> Int { counts[client, default: 0] }

    package func isIdle(_ id: Int) -> Bool { idleSince[id] != nil }

    /// A new connection from `client`. It counts as idle from the start (it has sent nothing), but as the most
    /// recently idle, so the connections idle longer make room first.
    package mutating func admit(_ client: ClientAddress) -> Admission {
        guard counts[client, default: 0] < perClient else { return .refused(.clientShare) }
        var evicting: Int?
        if clients.count >= capacity {
            guard let oldest = idleSince.min(by: { $0.value < $1.value })?.key else { return .refused(.serverFull) }
            remove(oldest)
            evicting = oldest
        }
        let id = nextId
        nextId += 1
        clients[id] = client
        counts[client, default: 0] += 1
        markIdle(id)
        return .admitted(id: id, evicting: evicting)
    }

    package mutating func markIdle(_ id: Int) {
        guard clients[id] != nil else { return }
        tick += 1
        idleSince[id] = tick
    }

    /// `false` when `id` is no longer in the book (closed to make room, or closed).
    package mutating func markBusy(_ id: Int) -> Bool {
        guard clients[id] != nil else { return false }
        idleSince[id] = nil
        return true
    }

    package mutating func remove(_ id: Int) {
        guard let client = clients.removeValue(forKey: id) else { return }
        idleSince[id] = nil
        let left = counts[client, default: 1] - 1
        counts[client] = left > 0 ? left : nil
    }
}
