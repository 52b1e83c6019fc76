import GatewayAPI
import NIOCore
import TestWorlds
import Testing

/// Issue 27, N1: one client holding 1,100 keep-alive connections made every new client wait 30 s, because the
/// server's cap had no per-client share and stopped accepting when full. These run the real server on loopback with
/// a handful of connections (the limits are set small), as two clients: 127.0.0.1 and 127.0.0.2.
@Suite("Server: each client's share of connections, the oldest idle closed at the cap, a maximum age", .heavyWorld)
struct ConnectionFairnessTests {
    static let request = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    static let greedy = "127.0.0.2"
    static let other = "127.0.0.1"

    /// Opens a connection from `source` and waits for its answer to one request: it was admitted and is now idle.
    func servedConnection(_ server: LiveServer, from source: String) async throws -> RawConnection {
        let connection = try await server.connect(from: source)
        try await connection.send(Self.request)
        #expect(await connection.waitFor("\"ok\"", within: .seconds(20)), "a connection within the limits is served")
        return connection
    }

    @Test("a client holding its share of keep-alives has further connections closed at once; another client is served")
    func perClientShare() async throws {
        let limits = ServerLimits(idleTimeout: .seconds(600), maxConnections: 6, maxConnectionsPerClient: 3)
        try await LiveServer.with(limits: limits) { server in
            var held: [RawConnection] = []
            for _ in 0..<3 { held.append(try await servedConnection(server, from: Self.greedy)) }
            // The greedy client tries for the whole server: past its share each connection is closed unread,
            // not queued.
            for _ in 0..<3 {
                let extra = try await server.connect(from: Self.greedy)
                try? await extra.send(Self.request)
                #expect(await extra.waitForClose(within: .seconds(20)), "a connection past the client's share was kept")
                #expect(!extra.text.contains("HTTP/1.1"), "a connection past the client's share was served")
            }
            // Another client gets in at once, and its connection does not cost the greedy one its share.
            let visitor = try await servedConnection(server, from: Self.other)
            #expect(held.allSatisfy { !$0.isClosed }, "the client's connections within its share stay open")
            await visitor.close()
            for connection in held { await connection.close() }
        }
    }

    @Test("at the server's cap a new connection gets in and the connection idle the longest is closed")
    func oldestIdleMakesRoom() async throws {
        let limits = ServerLimits(idleTimeout: .seconds(600), maxConnections: 3, maxConnectionsPerClient: 3)
        try await LiveServer.with(limits: limits) { server in
            // One after another: the first is idle the longest.
            let first = try await servedConnection(server, from: Self.greedy)
            let second = try await servedConnection(server, from: Self.greedy)
            let third = try await servedConnection(server, from: Self.greedy)
            let newcomer = try await servedConnection(server, from: Self.other)
            #expect(await first.waitForClose(within: .seconds(20)), "the connection idle the longest was not closed")
            #expect(!second.isClosed && !third.isClosed, "only the connection idle the longest makes room")
            // Its response had ended before: it lost nothing.
            #expect(first.text.hasPrefix("HTTP/1.1 200") && first.text.contains("\"ok\""))
            // The newcomer's connection stays usable.
            try await newcomer.send(Self.request)
            #expect(await newcomer.waitFor("\"ok\"", times: 2, within: .seconds(20)))
            for connection in [second, third, newcomer] { await connection.close() }
        }
    }

    @Test("at the server's cap with every connection busy, a new connection is closed at once rather than queued")
    func allBusyRefusesAtOnce() async throws {
        let limits = ServerLimits(
            headerTimeout: .seconds(600),
            idleTimeout: .seconds(600),
            maxConnections: 2,
            maxConnectionsPerClient: 2
        )
        try await LiveServer.with(limits: limits) { server in
            // Half-sent heads: both connections have a request under way, neither is idle.
            var busy: [RawConnection] = []
            for _ in 0..<2 {
                let connection = try await servedConnection(server, from: Self.greedy)
                try await connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
                busy.append(connection)
            }
            let late = try await server.connect(from: Self.other)
            try? await late.send(Self.request)
            #expect(await late.waitForClose(within: .seconds(20)), "a connection past the cap was queued")
            #expect(!late.text.contains("HTTP/1.1"))
            #expect(busy.allSatisfy { !$0.isClosed }, "a busy connection was closed to make room")
            // Once a busy connection finishes and goes idle, it makes room for the next newcomer.
            try await busy[0].send("\r\n")
            #expect(await busy[0].waitFor("\"ok\"", times: 2, within: .seconds(20)))
            let next = try await servedConnection(server, from: Self.other)
            #expect(await busy[0].waitForClose(within: .seconds(20)))
            for connection in [busy[1], next] { await connection.close() }
        }
    }

    @Test("a connection past its maximum age is closed after its response, which is complete and says so")
    func maximumAge() async throws {
        // Every connection is past an age of zero by its first response.
        try await LiveServer.with(limits: ServerLimits(idleTimeout: .seconds(600), maxConnectionAge: .zero)) { server in
            let connection = try await server.connect()
            try await connection.send(Self.request)
            #expect(await connection.waitForClose(within: .seconds(20)), "a connection past its maximum age was kept")
            let text = connection.text
            #expect(text.hasPrefix("HTTP/1.1 200"))
            #expect(text.lowercased().contains("\r\nconnection: close\r\n"), "the response must tell the client")
            #expect(text.hasSuffix("\"ok\"}") || text.contains("\"ok\""), "the response is complete")
            // The next request goes on a new connection, which is served.
            let next = try await server.connect()
            try await next.send(Self.request)
            #expect(await next.waitFor("\"ok\"", within: .seconds(20)))
            await next.close()
        }
    }

    @Test("a connection within its maximum age stays open between requests")
    func youngConnectionStaysOpen() async throws {
        try await LiveServer.with(limits: ServerLimits(idleTimeout: .seconds(600), maxConnectionAge: .seconds(600))) { server in
            let connection = try await servedConnection(server, from: Self.other)
            #expect(!connection.text.lowercased().contains("connection: close"))
            try await connection.send(Self.request)
            #expect(await connection.waitFor("\"ok\"", times: 2, within: .seconds(20)))
            #expect(!connection.isClosed)
            await connection.close()
        }
    }
}

@Suite("ConnectionBook: shares, room at the cap, client addresses")
struct ConnectionBookTests {
    let a = ClientAddress(description: "10.0.0.1")
    let b = ClientAddress(description: "10.0.0.2")

    @Test func aClientPastItsShareIsRefused() {
        var book = ConnectionBook(capacity: 10, perClient: 2)
        var admissions = [book.admit(a), book.admit(a), book.admit(a), book.admit(b)]
        #expect(
            admissions == [
                .admitted(id: 0, evicting: nil), .admitted(id: 1, evicting: nil), .refused(.clientShare),
                .admitted(id: 2, evicting: nil),
            ]
        )
        book.remove(0)
        admissions = [book.admit(a)]
        #expect(admissions == [.admitted(id: 3, evicting: nil)], "a closed connection frees its client's share")
    }

    @Test func atTheCapTheConnectionIdleTheLongestMakesRoom() {
        var book = ConnectionBook(capacity: 3, perClient: 3)
        for _ in 0..<3 { _ = book.admit(a) }
        // All busy, then 2 idle before 1: 2 is idle the longest.
        let busy = [book.markBusy(0), book.markBusy(1), book.markBusy(2)]
        #expect(busy == [true, true, true])
        book.markIdle(2)
        book.markIdle(1)
        let admitted = book.admit(b)
        #expect(admitted == .admitted(id: 3, evicting: 2))
        let evictedServes = book.markBusy(2)
        #expect(!evictedServes, "a connection closed to make room must not serve a request")
        #expect(book.count == 3 && book.count(of: a) == 2)
        let others = [book.markBusy(1), book.markBusy(3)]
        #expect(others == [true, true])
        let full = book.admit(b)
        #expect(full == .refused(.serverFull), "with every connection busy there is no room")
        book.remove(2)  // already gone: harmless
        #expect(book.count == 3)
    }

    @Test func clientAddresses() throws {
        #expect(ClientAddress(try SocketAddress(ipAddress: "192.0.2.7", port: 4000)).description == "192.0.2.7")
        #expect(
            ClientAddress(try SocketAddress(ipAddress: "2001:db8:0:1:aaaa::1", port: 1))
                == ClientAddress(try SocketAddress(ipAddress: "2001:db8:0:1:bbbb::2", port: 2)),
            "one IPv6 /64 is one client"
        )
        #expect(ClientAddress(try SocketAddress(ipAddress: "2001:db8:0:1::1", port: 1)).description == "2001:db8:0:1::/64")
        #expect(ClientAddress(try SocketAddress(ipAddress: "::ffff:192.0.2.7", port: 1)).description == "192.0.2.7")
        #expect(ClientAddress(nil).description == "local")
        #expect(ClientAddress(try SocketAddress(unixDomainSocketPath: "/tmp/x.sock")).description == "local")
    }
}
