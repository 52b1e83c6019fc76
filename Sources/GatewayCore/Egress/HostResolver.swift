import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves broker host names for the egress check, with `getaddrinfo` on NIO's blocking-I/O thread pool (never on
/// the cooperative pool), cancellable (a caller whose deadline passes returns at once; the lookup's late answer is
/// dropped), and with a small cache: answers are kept 30 seconds, at most 512 names.
///
/// The cache cannot weaken the check: every call connects to an address that was checked when it was resolved,
/// pinned through AsyncHTTPClient's `dnsOverride`, whatever the name resolves to by then.
final class HostResolver: Sendable {
    static let shared = HostResolver()

    let timeToLive: Duration
    let capacity: Int
    /// The blocking lookup: `getaddrinfo`; tests stand in a name server of their own.
    let blockingLookUp: @Sendable (String) throws -> [IPAddress]
    private let cache = Mutex<[String: (addresses: [IPAddress], expires: ContinuousClock.Instant)]>([:])

    init(
        timeToLive: Duration = .seconds(30),
        capacity: Int = 512,
        blockingLookUp: @escaping @Sendable (String) throws -> [IPAddress] = HostResolver.lookUpBlocking
    ) {
        self.timeToLive = timeToLive
        self.capacity = capacity
        self.blockingLookUp = blockingLookUp
    }

    /// Every address `host` resolves to (TCP), in the resolver's order, without duplicates.
    func resolve(_ host: String) async throws -> [IPAddress] {
        let now = ContinuousClock.now
        if let cached = cache.withLock({ $0[host] }), cached.expires > now { return cached.addresses }
        let addresses = try await lookUp(host)
        cache.withLock { cache in
            if cache.count >= capacity {
                cache = cache.filter { $0.value.expires > now }
                if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            }
            cache[host] = (addresses, now + timeToLive)
        }
        return addresses
    }

    func lookUp(_ host: String) async throws -> [IPAddress] {
        let pending = PendingLookup()
        let blocking = blockingLookUp
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[IPAddress], any Error>) in
                guard pending.start(continuation) else { return }
                NIOThreadPool.singleton.submit { state in
                    guard case .active = state else {
                        pending.finish(.failure(CancellationError()))
                        return
                    }
                    pending.finish(Result { try blocking(host) })
                }
            }
        } onCancel: {
            pending.finish(.failure(CancellationError()))
        }
    }

    /// The blocking lookup.
    static func lookUpBlocking(_ host: String) throws -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard status == 0 else {
            throw GatewayError(
                .upstreamUnavailable,
                "\(BrokerText.sanitized(host, limit: 100)) could not be resolved",
                retryable: status == EAI_AGAIN
            )
        }
        var addresses: [IPAddress] = []
        var cursor = list
        while let entry = cursor {
            if let socketAddress = entry.pointee.ai_addr {
                var bytes: [UInt8]?
                switch Int32(socketAddress.pointee.sa_family) {
                case AF_INET:
                    bytes = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                    }
                case AF_INET6:
                    bytes = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                    }
                default:
                    bytes = nil
                }
                if let bytes, let address = IPAddress(bytes: bytes), !addresses.contains(address) {
                    addresses.append(address)
                }
            }
            cursor = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            throw GatewayError(.upstreamUnavailable, "\(BrokerText.sanitized(host, limit: 100)) has no address", retryable: false)
        }
        return addresses
    }
}

/// A continuation resumed exactly once, by the lookup or by cancellation, whichever comes first.
private final class PendingLookup: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<[IPAddress], any Error>)
        case done
    }

    private let state = Mutex<State>(.idle)

    /// Returns `false` (and resumes the continuation with cancellation) when cancellation came first.
    func start(_ continuation: CheckedContinuation<[IPAddress], any Error>) -> Bool {
        let cancelled = state.withLock { state in
            if case .done = state { return true }
            state = .waiting(continuation)
            return false
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
        return !cancelled
    }

    func finish(_ result: Result<[IPAddress], any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<[IPAddress], any Error>? in
            defer { state = .done }
            if case .waiting(let continuation) = state { return continuation }
            return nil
        }
        continuation?.resume(with: result)
    }
}
