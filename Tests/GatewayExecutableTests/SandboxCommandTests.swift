import ArgumentParser
import AsyncHTTPClient
import ChildProcess
import Foundation
import NIOCore
import NIOHTTP1
import TestWorlds
import Testing

@testable import BrokerGatewayServer

/// `gateway sandbox` as a script runs it: its output to a pipe, read line by line as it comes (not when a buffer
/// fills), and its brokers' rate limits, latency and market hours set from the command line.
@Suite("gateway sandbox", .heavyWorld)
struct SandboxCommandTests {
    /// The base URL of each sandbox, as `gateway sandbox` prints it to a pipe.
    func started(_ arguments: [String], log: String) async throws -> (ChildProcess, [String: String]) {
        let binary = TracingExportTests.gatewayBinary.path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "no gateway binary at \(binary)")
        let process = try ChildProcess(
            executable: binary,
            arguments: ["sandbox", "--base-port", "0"] + arguments,
            standardOutput: .lines,
            standardError: .file(log)
        )
        var urls: [String: String] = [:]
        for await line in process.lines {
            let fields = line.split(separator: "\t").map(String.init)
            if fields.count == 3 { urls[fields[0]] = fields[1] }
            if urls.count == 4 { break }
        }
        return (process, urls)
    }

    func get(_ url: String, headers: [(String, String)] = []) async throws -> (status: Int, headers: [String: String], body: [String: Any]) {
        var request = HTTPClientRequest(url: url)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        var fields: [String: String] = [:]
        for header in response.headers { fields[header.name.lowercased()] = header.value }
        let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] ?? [:]
        return (Int(response.status.code), fields, object)
    }

    /// Whether Alpaca's regular session is open at `date`: a weekday, 09:30 to 16:00 in New York.
    static func regularSessionOpen(at date: Date) -> Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "America/New_York")!
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: date)
        guard let weekday = parts.weekday, (2...6).contains(weekday), let hour = parts.hour, let minute = parts.minute else {
            return false
        }
        let minutes = hour * 60 + minute
        return minutes >= 9 * 60 + 30 && minutes < 16 * 60
    }

    @Test func optionsFromTheCommandLineReachEveryBroker() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-sandbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, urls) = try await started(
            ["--rate-limits", "off", "--latency-ms", "40", "--market-hours", "regular"],
            log: directory.appendingPathComponent("sandbox.log").path
        )
        do {
            try await checkOptions(urls)
        } catch {
            _ = await process.stop()
            throw error
        }
        _ = await process.stop()
    }

    func checkOptions(_ urls: [String: String]) async throws {
        #expect(Set(urls.keys) == ["alpaca", "saxo", "tradeit", "tradeogre"], "the lines arrived as printed: \(urls)")
        let alpaca = try #require(urls["alpaca"])

        let auth = [("APCA-API-KEY-ID", "SANDBOX-ALPACA-KEY"), ("APCA-API-SECRET-KEY", "SANDBOX-ALPACA-SECRET")]
        let account = try await get(alpaca + "/v2/account", headers: auth)
        #expect(account.status == 200)
        #expect(account.headers["x-ratelimit-limit"] == String(SandboxOptions.unlimitedBudget), "\(account.headers)")

        for name in ["alpaca", "saxo", "tradeit", "tradeogre"] {
            let faults = try await get(try #require(urls[name]) + "/_sandbox/faults")
            let rules = faults.body["rules"] as? [[String: Any]] ?? []
            #expect(rules.contains { $0["kind"] as? String == "latency" && $0["latencyMs"] as? Int == 40 }, "\(name): \(faults.body)")
        }

        let before = Date()
        let clock = try await get(alpaca + "/v2/clock", headers: auth)
        let after = Date()
        #expect(after.timeIntervalSince(before) >= 0.04, "the latency was not added")
        // At the edge of a session the two readings could differ; then either answer is right.
        if Self.regularSessionOpen(at: before) == Self.regularSessionOpen(at: after) {
            #expect(clock.body["is_open"] as? Bool == Self.regularSessionOpen(at: before), "\(clock.body)")
        }
    }

    @Test func theDefaultsAreTheBrokersOwn() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-sandbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, urls) = try await started([], log: directory.appendingPathComponent("sandbox.log").path)
        do {
            try await checkDefaults(urls)
        } catch {
            _ = await process.stop()
            throw error
        }
        _ = await process.stop()
    }

    func checkDefaults(_ urls: [String: String]) async throws {
        let alpaca = try #require(urls["alpaca"])
        let auth = [("APCA-API-KEY-ID", "SANDBOX-ALPACA-KEY"), ("APCA-API-SECRET-KEY", "SANDBOX-ALPACA-SECRET")]
        let account = try await get(alpaca + "/v2/account", headers: auth)
        #expect(account.headers["x-ratelimit-limit"] == "200")
        let clock = try await get(alpaca + "/v2/clock", headers: auth)
        #expect(clock.body["is_open"] as? Bool == true)
        let faults = try await get(alpaca + "/_sandbox/faults")
        #expect((faults.body["rules"] as? [Any])?.isEmpty == true)
    }

    @Test func badOptionsAreRefused() throws {
        #expect(throws: (any Error).self) { try GatewayCommand.parseAsRoot(["sandbox", "--latency-ms", "-1"]) }
        #expect(throws: (any Error).self) { try GatewayCommand.parseAsRoot(["sandbox", "--rate-limits", "sometimes"]) }
        #expect(throws: (any Error).self) { try GatewayCommand.parseAsRoot(["sandbox", "--market-hours", "never"]) }
    }
}
