import AsyncHTTPClient
import NIOCore
import Synchronization

/// The AsyncHTTPClients broker calls go through, one per pinned destination: a host name and the checked address
/// it is sent to (`dnsOverride`, which keeps TLS's server name and certificate check on the host name), or the one
/// client for URLs whose host is an address literal (no name is resolved then).
///
/// Every client follows no redirect (a 3xx goes back to the adapter, whose error table makes it an error), so no
/// call is ever carried to another origin, credentials or not. At most `capacity` clients are kept, least recently
/// used first out; a client that leaves is shut down once its last call is done, so a call in flight is never cut.
/// Process-wide like `HTTPClient.shared` (and never shut down as a whole): connections are pooled across every
/// transport of the process.
final class PinnedClients: Sendable {
    static let shared = PinnedClients(capacity: 64)

    struct Key: Hashable, Sendable {
        /// The host exactly as AsyncHTTPClient reads it from the URL (the `dnsOverride` key); empty for literals.
        var host: String
        /// The checked address text; empty for literals.
        var address: String

        static let literal = Key(host: "", address: "")
    }

    struct Entry {
        var client: HTTPClient
        var inFlight: Int
        var lastUse: UInt64
    }

    struct State {
        var entries: [Key: Entry] = [:]
        /// Clients evicted while calls were in flight, by identity, with their count of calls left.
        var retiring: [ObjectIdentifier: (client: HTTPClient, inFlight: Int)] = [:]
        var tick: UInt64 = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// A pool that is not the process-wide one (tests) shuts its clients down when it goes: a client's shutdown keeps
    /// it alive until its connections are closed.
    deinit {
        let clients = state.withLock { state in state.entries.values.map(\.client) + state.retiring.values.map(\.client) }
        Self.shutDown(clients)
    }

    /// Whether a client for this destination exists (to reuse its pooled connections when a name has several
    /// addresses).
    func has(_ key: Key) -> Bool {
        state.withLock { $0.entries[key] != nil }
    }

    /// Runs `body` with the destination's client, counted as in flight for the whole call.
    func withClient<T>(_ key: Key, _ body: (HTTPClient) async throws -> T) async throws -> T {
        let (client, evicted) = checkOut(key)
        Self.shutDown(evicted)
        defer { Self.shutDown(checkIn(key, client).map { [$0] } ?? []) }
        return try await body(client)
    }

    /// Starts shutting clients down without waiting (their connections close in the background; no call uses them).
    static func shutDown(_ clients: [HTTPClient]) {
        for client in clients { _ = client.shutdown() as EventLoopFuture<Void> }
    }

    func checkOut(_ key: Key) -> (HTTPClient, evicted: [HTTPClient]) {
        state.withLock { state in
            state.tick += 1
            if var entry = state.entries[key] {
                entry.inFlight += 1
                entry.lastUse = state.tick
                state.entries[key] = entry
                return (entry.client, [])
            }
            var evicted: [HTTPClient] = []
            while state.entries.count >= capacity,
                let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                state.entries[oldest.key] = nil
                if oldest.value.inFlight == 0 {
                    evicted.append(oldest.value.client)
                } else {
                    state.retiring[ObjectIdentifier(oldest.value.client)] = (oldest.value.client, oldest.value.inFlight)
                }
            }
            let client = Self.makeClient(key)
            state.entries[key] = Entry(client: client, inFlight: 1, lastUse: state.tick)
            return (client, evicted)
        }
    }

    /// Ends one call; returns the client when it was retiring and this was its last call.
    func checkIn(_ key: Key, _ client: HTTPClient) -> HTTPClient? {
        state.withLock { state in
            if var entry = state.entries[key], entry.client === client {
                entry.inFlight -= 1
                state.entries[key] = entry
                return nil
            }
            let id = ObjectIdentifier(client)
            guard var retiring = state.retiring[id] else { return nil }
            retiring.inFlight -= 1
            if retiring.inFlight > 0 {
                state.retiring[id] = retiring
                return nil
            }
            state.retiring[id] = nil
            return retiring.client
        }
    }

    /// The number of clients kept and retiring (tests).
    var counts: (kept: Int, retiring: Int) {
        state.withLock { ($0.entries.count, $0.retiring.count) }
    }

    /// HTTP/1 connections kept per broker host (AsyncHTTPClient's default is 8). Every read of every tenant of a
    /// broker goes to one host, so 8 capped the gateway near 8 calls in flight per broker: at 100 concurrent
    /// readers most calls queued for a connection (Benchmarks/ReadBenchmark measured a plateau of about 140 reads/s
    /// against a 25 ms sandbox). Calls a connection's rate limits let through should not queue again here; 64 is
    /// what a busy gateway keeps in flight per broker, and still well under what brokers tolerate from one client.
    /// HTTPS brokers that speak HTTP/2 multiplex on fewer connections.
    static let connectionsPerHost = 64

    static func makeClient(_ key: Key) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: HTTPClient.Configuration.Timeout(connect: .seconds(10))
        )
        configuration.connectionPool = HTTPClient.Configuration.ConnectionPool(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost
        )
        if !key.host.isEmpty { configuration.dnsOverride = [key.host: key.address] }
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
