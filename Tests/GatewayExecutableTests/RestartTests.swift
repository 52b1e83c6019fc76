import AsyncHTTPClient
import ChildProcess
import Foundation
import NIOCore
import NIOHTTP1
import Testing

#if canImport(Glibc)
import Glibc
import TestWorlds

/// The real executable, `gateway serve` on the embedded default (the four in-process sandboxes, SQLite, a demo
/// tenant), stopped and started three times on one data folder, with orders placed at all four brokers before and
/// between the restarts (issue 26: "restarts change nothing").
@Suite("gateway serve: restarts change nothing", .heavyWorld)
struct RestartTests {
    /// One running `gateway serve`.
    struct Server {
        var process: ChildProcess
        var url: String
        var log: LogWatch
    }

    /// What an order was placed as; it must read the same after every restart.
    struct Placed {
        var id: String
        var broker: String
        var symbol: String
        var quantity: Decimal
        var limitPrice: Decimal?
    }

    func start(_ data: URL) async throws -> Server {
        let binary = TracingExportTests.gatewayBinary.path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "no gateway binary at \(binary)")
        let process = try ChildProcess(
            executable: binary,
            arguments: ["serve", "--port", "0", "--data-dir", data.path, "--log-level", "notice"],
            standardOutput: .discard,
            standardError: .lines
        )
        let log = LogWatch(process)
        let serving = await log.first(within: .seconds(180)) { $0.contains("BrokerGateway is serving") }
        guard let serving, let start = serving.range(of: "url=")?.upperBound else {
            await process.stop()
            throw RestartTestError("the gateway never served")
        }
        return Server(process: process, url: String(serving[start...].prefix { !$0.isWhitespace }), log: log)
    }

    func call(
        _ server: Server,
        _ key: String,
        _ method: HTTPMethod,
        _ path: String,
        json: String? = nil
    ) async throws
        -> (status: Int, body: [String: Any])
    {
        var request = HTTPClientRequest(url: server.url + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        if let json {
            request.headers.add(name: "Idempotency-Key", value: UUID().uuidString)
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 1 << 22)
        let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] ?? [:]
        return (Int(response.status.code), object)
    }

    func data(_ reply: (status: Int, body: [String: Any])) -> [[String: Any]] {
        reply.body["data"] as? [[String: Any]] ?? []
    }

    func decimal(_ value: Any?) -> Decimal? {
        (value as? String).flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }
    }

    /// One order per broker that rests (a limit far from the market, so its contents stay as placed), and a crypto
    /// market buy at Alpaca (always open) that moves cash and positions. `round` makes each round's orders differ.
    func placeOrders(_ server: Server, _ key: String, round: Int) async throws -> [Placed] {
        let accounts = data(try await call(server, key, .GET, "/v1/accounts"))
        var placed: [Placed] = []
        let plans: [(broker: String, symbol: String, type: String, quantity: String, limit: String?)] = [
            ("alpaca", "AAPL", "limit", "\(round + 1)", "1\(round).50"),
            ("alpaca", "BTC/USD", "market", "0.00\(round + 1)", nil),
            ("saxo", "AAPL", "limit", "\(round + 2)", "2\(round).25"),
            ("tradeit", "MSFT", "limit", "\(round + 3)", "3\(round).75"),
            ("tradeogre", "XMR/BTC", "limit", "1.\(round)", "0.0000\(round + 1)"),
        ]
        for plan in plans {
            let account = try #require(accounts.first { $0["broker"] as? String == plan.broker }, "no \(plan.broker) account: \(accounts)")
            let connection = try #require(account["connectionId"] as? String)
            let accountId = try #require(account["id"] as? String)
            let limit = plan.limit.map { #","limitPrice":"\#($0)""# } ?? ""
            let reply = try await call(
                server,
                key,
                .POST,
                "/v1/orders",
                json: #"""
                    {"connectionId":"\#(connection)","accountId":"\#(accountId)","symbol":"\#(plan.symbol)","side":"buy","type":"\#(plan.type)","timeInForce":"gtc","quantity":"\#(plan.quantity)"\#(limit)}
                    """#
            )
            #expect((200..<300).contains(reply.status) && reply.status != 202, "\(plan.broker) \(plan.symbol): \(reply.status) \(reply.body)")
            let order = try #require(reply.body["data"] as? [String: Any], "\(plan.broker): \(reply.body)")
            placed.append(
                Placed(
                    id: try #require(order["id"] as? String),
                    broker: plan.broker,
                    symbol: plan.symbol,
                    quantity: try #require(decimal(plan.quantity)),
                    limitPrice: plan.limit.flatMap { decimal($0) }
                )
            )
        }
        return placed
    }

    /// Every order reads as it was placed: its instrument, quantity and limit price, never another order's.
    func expectOrdersRead(_ server: Server, _ key: String, _ placed: [Placed], after restart: Int) async throws {
        for order in placed {
            let reply = try await call(server, key, .GET, "/v1/orders/\(order.id)")
            #expect(reply.status == 200, "restart \(restart): \(order.broker) \(order.symbol) \(order.id): \(reply.status) \(reply.body)")
            guard let read = reply.body["data"] as? [String: Any] else { continue }
            #expect((read["instrument"] as? [String: Any])?["symbol"] as? String == order.symbol, "restart \(restart): \(read)")
            #expect(decimal(read["quantity"]) == order.quantity, "restart \(restart): \(read)")
            #expect(decimal(read["limitPrice"]) == order.limitPrice, "restart \(restart): \(read)")
            #expect(read["broker"] as? String == order.broker)
        }
    }

    /// Per broker and symbol, the quantity held; per broker and currency, the cash not held for orders. (The demo
    /// user has one connection per broker.)
    func holdings(_ server: Server, _ key: String) async throws -> (positions: [String: Decimal], available: [String: Decimal]) {
        var brokers: [String: String] = [:]
        for connection in data(try await call(server, key, .GET, "/v1/connections")) {
            if let id = connection["id"] as? String { brokers[id] = connection["broker"] as? String }
        }
        func broker(_ item: [String: Any]) -> String { (item["connectionId"] as? String).flatMap { brokers[$0] } ?? "?" }
        let positions = try await call(server, key, .GET, "/v1/positions")
        #expect(positions.body["partial"] as? Bool == false, "\(positions.body["sources"] ?? "")")
        var held: [String: Decimal] = [:]
        for position in data(positions) {
            let symbol = (position["instrument"] as? [String: Any])?["symbol"] as? String ?? "?"
            held["\(broker(position)) \(symbol)", default: 0] += decimal(position["quantity"]) ?? 0
        }
        let balances = try await call(server, key, .GET, "/v1/balances")
        #expect(balances.body["partial"] as? Bool == false, "\(balances.body["sources"] ?? "")")
        var available: [String: Decimal] = [:]
        // Saxo's available margin moves with prices; the others' cash less what open orders hold does not.
        for balance in data(balances) where broker(balance) != "saxo" {
            available["\(broker(balance)) \(balance["currency"] as? String ?? "?")", default: 0] += decimal(balance["available"]) ?? 0
        }
        return (held, available)
    }

    @Test(.timeLimit(.minutes(15)))
    func ordersPositionsAndDemoLinksSurviveThreeRestarts() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = directory.appendingPathComponent("data")

        var server = try await start(folder)
        var logs = [server.log]
        let key = try String(contentsOf: folder.appendingPathComponent("demo-api-key"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var placed: [Placed] = []
        do {
            let initial = try await holdings(server, key)
            placed += try await placeOrders(server, key, round: 0)
            try await expectOrdersRead(server, key, placed, after: 0)
            var before = try await holdings(server, key)
            for restart in 1...3 {
                await server.process.stop()
                let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("sandboxes").path)) ?? []
                #expect(Set(files) == ["alpaca.json", "saxo.json", "tradeit.json", "tradeogre.json"])
                server = try await start(folder)
                logs.append(server.log)
                let connections = data(try await call(server, key, .GET, "/v1/connections"))
                #expect(connections.count == 4)
                #expect(connections.allSatisfy { $0["status"] as? String == "active" }, "restart \(restart): \(connections)")
                try await expectOrdersRead(server, key, placed, after: restart)
                let after = try await holdings(server, key)
                #expect(after.positions == before.positions, "restart \(restart): positions did not continue")
                #expect(after.available == before.available, "restart \(restart): balances did not continue")
                // More orders, at every broker: each is a new order (no 409, no other order's id or contents).
                let more = try await placeOrders(server, key, round: restart)
                #expect(Set(more.map(\.id)).isDisjoint(with: placed.map(\.id)))
                placed += more
                try await expectOrdersRead(server, key, placed, after: restart)
                before = try await holdings(server, key)
            }
            // Four rounds of market buys of 0.001, 0.002, 0.003 and 0.004 BTC, each on top of the last.
            let bought = (before.positions["alpaca BTC/USD"] ?? 0) - (initial.positions["alpaca BTC/USD"] ?? 0)
            #expect(bought == Decimal(string: "0.01")!, "\(initial.positions) → \(before.positions)")
        } catch {
            await server.process.stop()
            throw error
        }
        await server.process.stop()
        // Every process has ended, so its log is complete: `first` answers at once.
        for (run, log) in logs.enumerated() {
            let relinkLine = await log.first(within: .seconds(5)) { $0.contains("needs relinking") }
            #expect(relinkLine == nil, "run \(run): a working link was said to need relinking: \(relinkLine ?? "")")
        }
    }
}

struct RestartTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
#endif
