import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// `gateway healthcheck [--url URL]`: GETs a gateway's `/healthz` and exits 0 on a 200, 1 on anything else (another
/// status, no answer within the timeout, nothing listening).
///
/// The container image's `HEALTHCHECK` runs it (and so compose's healthchecks). The run image carries the gateway and
/// the few libraries it links, not curl: curl would add a dozen packages (libcurl and its protocol libraries) to a
/// non-root, read-only image only to make one loopback GET, which the binary already knows how to make.
/// Without `--url` it asks the gateway this environment configures: `BROKERGATEWAY_HOST` and `BROKERGATEWAY_PORT`
/// (or their flags and config-file keys), read as `gateway serve` reads them, a wildcard host meaning loopback.
struct HealthcheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck",
        abstract: "GET a gateway's /healthz; exit 0 on 200, else 1 (the container's HEALTHCHECK).",
        discussion: """
            Without --url: http://HOST:PORT/healthz with the host and port `gateway serve` would bind here (flags, \
            BROKERGATEWAY_HOST and BROKERGATEWAY_PORT, a config file), 127.0.0.1 for 0.0.0.0 and ::1 for ::.
            """
    )

    @Option(help: "The URL to GET (http or https), e.g. http://127.0.0.1:8080/readyz.")
    var url: String?

    @Option(name: .customLong("timeout-ms"), help: "How long to wait for the answer, in milliseconds (1 to 60000).")
    var timeoutMilliseconds: Int = 5000

    @Argument(parsing: .allUnrecognized, help: "`gateway serve` settings that say where it listens, such as --port 9000.")
    var settings: [String] = []

    func validate() throws {
        guard (1...60_000).contains(timeoutMilliseconds) else {
            throw ValidationError("--timeout-ms must be between 1 and 60000, not \(timeoutMilliseconds)")
        }
        if let url {
            _ = try Self.checkedURL(url)
        }
    }

    func run() async throws {
        let target: String
        if let url {
            target = url
        } else {
            target = try await Self.defaultURL(arguments: settings, environment: ProcessInfo.processInfo.environment)
        }
        if let failure = await Self.check(target, timeout: .milliseconds(Int64(timeoutMilliseconds))) {
            FileHandle.standardError.write(Data("healthcheck: \(failure)\n".utf8))
            throw ExitCode.failure
        }
        FileHandle.standardOutput.write(Data("healthcheck: \(target) answered 200\n".utf8))
    }

    /// The `/healthz` URL of the gateway that `gateway serve` would run with `arguments` and `environment`.
    /// - Throws: `ValidationError` for settings `gateway serve` would refuse, or port 0 (a port picked at start-up
    ///   cannot be known from outside).
    static func defaultURL(arguments: [String], environment: [String: String]) async throws -> String {
        let settings: GatewaySettings
        do {
            settings = try GatewaySettings(reader: try await GatewaySettings.reader(arguments: arguments, environment: environment))
        } catch let error as SettingsError {
            throw ValidationError(error.description)
        }
        guard settings.port != 0 else {
            throw ValidationError("the port is 0 (picked at start-up): name the gateway with --url")
        }
        let host: String
        switch settings.host {
        case "0.0.0.0", "": host = "127.0.0.1"
        case "::", "[::]": host = "[::1]"
        case let named where named.contains(":") && !named.hasPrefix("["): host = "[\(named)]"
        case let named: host = named
        }
        return "http://\(host):\(settings.port)/healthz"
    }

    /// `text` as a URL this command can GET: http or https, with a host.
    static func checkedURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            let host = url.host, !host.isEmpty
        else {
            throw ValidationError("--url must be an http or https URL with a host, such as http://127.0.0.1:8080/healthz")
        }
        return url
    }

    /// `nil` when a GET of `url` answers 200 within `timeout`, else what went wrong (the status, or why nothing
    /// answered), in one line. The answer's body is not read beyond 64 KiB.
    static func check(_ url: String, timeout: TimeAmount) async -> String? {
        do {
            _ = try checkedURL(url)
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: timeout)
            // Drained so that the connection is released cleanly; its contents do not matter.
            _ = try? await response.body.collect(upTo: 64 * 1024)
            guard response.status == .ok else {
                return "\(url) answered \(response.status.code), not 200"
            }
            return nil
        } catch let error as ValidationError {
            return error.message
        } catch {
            return "\(url) did not answer: \(error)"
        }
    }
}
