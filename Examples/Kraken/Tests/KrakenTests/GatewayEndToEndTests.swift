import AsyncHTTPClient
import BrokerGatewayServer
import BuiltInBrokers
import Foundation
import KrakenBroker
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Testing

/// The gateway as `kraken-gateway` builds it (`.builtIn + [.kraken]`), in-process, through the server library's public
/// API only: Kraken is listed, its demo connection is linked to the in-process sandbox, and its account, positions
/// and orders come through the unified API beside the built-in four.
@Suite("kraken-gateway: Kraken through /v1 beside the built-in brokers")
struct GatewayEndToEndTests {
    @Test func krakenIsServedThroughTheUnifiedAPI() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kraken-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let settings = try await GatewaySettings(arguments: ["--port", "0", "--data-dir", directory.path], environment: [:])
        let logger = Logger(label: "kraken-e2e", factory: { _ in SwiftLogNoOpLogHandler() })
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let process = try await buildGateway(settings: settings, brokers: .builtIn + [.kraken], environment: [:], logger: logger) { port in
            continuation.yield(port)
        }
        let group = ServiceGroup(configuration: .init(services: process.services.map { .init(service: $0) }, logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let key = try String(contentsOf: directory.appendingPathComponent("demo-api-key"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            func call(_ method: HTTPMethod, _ path: String, json: String? = nil, expect: UInt = 200) async throws -> [String: Any] {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
                request.method = method
                request.headers.add(name: "Authorization", value: "Bearer \(key)")
                if let json {
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.headers.add(name: "Idempotency-Key", value: UUID().uuidString)
                    request.body = .bytes(ByteBuffer(string: json))
                }
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 1 << 20)
                #expect(response.status.code == expect, "\(method) \(path): \(String(buffer: body))")
                return try #require(try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])
            }

            let brokers = try await call(.GET, "/v1/brokers")["data"] as? [[String: Any]] ?? []
            #expect(brokers.compactMap { $0["kind"] as? String } == ["alpaca", "kraken", "saxo", "tradeit", "tradeogre"])
            #expect(brokers.first { $0["kind"] as? String == "kraken" }?["displayName"] as? String == "Kraken")

            let connections = (try await call(.GET, "/v1/connections")["data"] as? [[String: Any]] ?? []).filter {
                $0["broker"] as? String == "kraken"
            }
            #expect(connections.compactMap { $0["baseURL"] as? String } == ["sandbox://kraken"], "\(connections)")
            #expect(connections.first?["status"] as? String == "active", "\(connections)")
            let connection = try #require(connections.first?["id"] as? String)

            let accounts = try await call(.GET, "/v1/accounts?broker=kraken")
            let account = try #require((accounts["data"] as? [[String: Any]])?.first)
            #expect(account["id"] as? String == "spot")
            #expect(account["broker"] as? String == "kraken")

            let positions = try await call(.GET, "/v1/positions")
            let sources = positions["sources"] as? [[String: Any]] ?? []
            #expect(Set(sources.compactMap { $0["broker"] as? String }) == ["alpaca", "kraken", "saxo", "tradeit", "tradeogre"])
            #expect(sources.allSatisfy { $0["status"] as? String == "ok" }, "\(sources)")
            let held = (positions["data"] as? [[String: Any]] ?? []).filter { $0["connectionId"] as? String == connection }
            #expect(held.compactMap { ($0["instrument"] as? [String: Any])?["symbol"] as? String } == ["BTC/USD", "ETH/USD", "LTC/USD", "USDT/USD"])

            let quotes = try await call(.GET, "/v1/quotes?symbols=BTC/USD&broker=kraken")
            let ask = try #require(((quotes["data"] as? [[String: Any]])?.first?["ask"] as? String).flatMap { Decimal(string: $0) })
            let limit = "\(NSDecimalNumber(decimal: ask / 2).intValue)"
            let placed = try await call(
                .POST,
                "/v1/orders",
                json: """
                    {"connectionId":"\(connection)","accountId":"spot","symbol":"BTC/USD","side":"buy","type":"limit",
                     "timeInForce":"gtc","quantity":"0.01","limitPrice":"\(limit)","clientOrderId":"kraken-e2e-1"}
                    """,
                expect: 201
            )
            let order = try #require(placed["data"] as? [String: Any])
            #expect(order["status"] as? String == "open")
            let brokerOrderId = try #require(order["brokerOrderId"] as? String)

            let orders = try await call(.GET, "/v1/orders?broker=kraken")
            let listed = (orders["data"] as? [[String: Any]] ?? []).compactMap { $0["brokerOrderId"] as? String }
            #expect(listed.contains(brokerOrderId), "\(orders)")

            let id = try #require(order["id"] as? String)
            let canceled = try await call(.DELETE, "/v1/orders/\(id)")
            #expect((canceled["data"] as? [String: Any])?["status"] as? String == "canceled", "\(canceled)")

            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
