import AlpacaSandbox
import Foundation
import NIOCore
import NIOPosix
import SandboxKit
import Testing
import TradeOgreSandbox

/// A sandbox stops when its scope ends although a client holds a connection that never sent a request (a connection
/// pool's spare, made for a request another connection took). The HTTP/1 server with the WebSocket upgrade waited
/// for such a connection's first request, so a sandbox's stop took as long as the client's idle timeout (60 s for the
/// gateway's pool), seen in about one test run in ten; every sandbox used that server.
@Suite("Sandbox shutdown")
struct SandboxShutdownTests {
    enum Outcome: Equatable {
        case stopped
        case stillWaiting
    }

    /// Both kinds of server: plain HTTP/1 (TradeOgre) and HTTP/1 with the WebSocket upgrade (Alpaca's streams).
    enum Kind: String, CaseIterable, Sendable {
        case plain
        case webSocketUpgrade

        func simulator() -> any SandboxSimulator {
            switch self {
            case .plain: TradeOgreSandbox()
            case .webSocketUpgrade: AlpacaSandbox()
            }
        }
    }

    @Test("a sandbox stops while a client's idle connection that never sent a request stays open", arguments: Kind.allCases)
    func stopsWithAnIdleConnectionOpen(kind: Kind) async throws {
        let idle = IdleConnection()
        let outcome = try await withThrowingTaskGroup(of: Outcome.self) { group in
            group.addTask {
                try await withSandbox(kind.simulator()) { url in
                    let port = try #require(url.port)
                    try await idle.open(port: port)
                    // A request on a second connection, answered and closed: the server has accepted the idle
                    // connection before it (accepts are in order), so it is the server's when the scope ends.
                    try await IdleConnection.requestAndWaitForClose(port: port)
                }
                return .stopped
            }
            group.addTask {
                // A bound far past a stop's milliseconds and far short of the 60 s the old server waited: then the
                // connection is closed, so a server that waits for it ends and the group can return.
                try await Task.sleep(for: .seconds(30))
                return .stillWaiting
            }
            let first = try #require(try await group.next())
            await idle.close()
            group.cancelAll()
            return first
        }
        #expect(outcome == .stopped)
    }
}

/// A TCP connection that sends nothing.
actor IdleConnection {
    private var channel: (any Channel)?

    func open(port: Int) async throws {
        channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
    }

    /// Sends one `Connection: close` request on a connection of its own and returns once the server has closed it.
    static func requestAndWaitForClose(port: Int) async throws {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(ByteBuffer(string: "GET /api/v1/markets HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")).get()
        try await channel.closeFuture.get()
    }

    func close() async {
        try? await channel?.close()
    }
}
