import Configuration
import Foundation
import GatewayAPI
import GatewayApp
import GatewayCore
import GatewayPostgresStore
import GatewaySQLiteStore
import GatewayStore
import Logging

/// Every setting of `gateway serve`, written once: its key, what it holds, its default and what it means. The flag
/// (`--data-dir`), the environment variable (`BROKERGATEWAY_DATA_DIR`) and the config file entry (`"dataDir"`)
/// all derive from the key; `gateway settings` prints this table, and the README shows what it prints.
struct SettingKey: Sendable {
    enum Kind: Sendable {
        case text
        case whole(ClosedRange<Int>)
        case choice([String])
    }

    var key: [String]
    var kind: Kind
    var defaultValue: String
    var summary: String

    var configKey: ConfigKey { ConfigKey(key) }

    /// `--orders-broker-timeout-ms`
    var flag: String {
        "--" + key.map(Self.dashCase).joined(separator: "-")
    }

    /// `BROKERGATEWAY_ORDERS_BROKER_TIMEOUT_MS`
    var environmentVariable: String {
        (["BROKERGATEWAY"] + key.map { Self.dashCase($0).uppercased().replacingOccurrences(of: "-", with: "_") })
            .joined(separator: "_")
    }

    /// `orders.brokerTimeoutMs`, as nested objects in the JSON config file.
    var fileKey: String { key.joined(separator: ".") }

    static func dashCase(_ component: String) -> String {
        var result = ""
        for character in component {
            if character.isUppercase, !result.isEmpty { result += "-" }
            result += character.lowercased()
        }
        return result
    }
}

/// The settings of `gateway serve`: command-line flags first, then the environment, then an optional JSON config
/// file (`--config-file`), then the defaults; every value checked, so a typo is an error at startup, never a
/// silently used default.
public struct GatewaySettings: Sendable {
    static let keys: [SettingKey] = [
        SettingKey(key: ["host"], kind: .text, defaultValue: "127.0.0.1", summary: "address to bind"),
        SettingKey(key: ["port"], kind: .whole(0...65535), defaultValue: "8080", summary: "port to bind (`0` picks a free one)"),
        SettingKey(key: ["dataDir"], kind: .text, defaultValue: "data", summary: "data folder: database, master key, demo key"),
        SettingKey(
            key: ["databaseUrl"],
            kind: .text,
            defaultValue: "<dataDir>/gateway.sqlite",
            summary:
                "a SQLite path or `sqlite:///path`; or `postgres://user:password@host:port/database` for many instances on one database, optionally with `?sslmode=` (`disable`, `prefer`, `require`), `connect_timeout=` (seconds), `schema=`, `pool_min=`"
        ),
        SettingKey(
            key: ["databasePoolMax"],
            kind: .whole(1...1000),
            defaultValue: "20",
            summary: "PostgreSQL only: connections one instance opens at most (the server sees instances × this; keep it under its `max_connections`)"
        ),
        SettingKey(key: ["sandbox"], kind: .choice(["on", "off"]), defaultValue: "on", summary: "run the sandbox brokers in-process"),
        SettingKey(
            key: ["sandboxRateLimits"],
            kind: .choice(SandboxOptions.RateLimits.allCases.map(\.rawValue)),
            defaultValue: "on",
            summary: "the in-process sandboxes' rate limits: `on`, each broker's documented ones; `off`, none (benchmarks)"
        ),
        SettingKey(
            key: ["sandboxLatencyMs"],
            kind: .whole(SandboxOptions.latencyRange),
            defaultValue: "0",
            summary: "milliseconds added to every answer of every in-process sandbox"
        ),
        SettingKey(
            key: ["sandboxMarketHours"],
            kind: .choice(SandboxOptions.MarketHours.allCases.map(\.rawValue)),
            defaultValue: "always-open",
            summary: "when the in-process sandboxes trade equities: `always-open`, or `regular` (09:30-16:00 New York, weekdays)"
        ),
        SettingKey(
            key: ["sourceTimeoutMs"],
            kind: .whole(10...120_000),
            defaultValue: "5000",
            summary: "how long one broker may take in a fan-out read"
        ),
        SettingKey(key: ["requestTimeoutMs"], kind: .whole(10...300_000), defaultValue: "8000", summary: "the overall deadline of a fan-out read"),
        SettingKey(
            key: ["shutdownGraceMs"],
            kind: .whole(100...600_000),
            defaultValue: "20000",
            summary:
                "on SIGTERM or SIGINT: how long requests and placements in flight may take to finish; then the rest is cancelled and the process ends within 10 s more"
        ),
        SettingKey(
            key: ["maxBodyBytes"],
            kind: .whole(1024...16_777_216),
            defaultValue: "65536",
            summary: "the largest request body read (larger is a 413)"
        ),
        SettingKey(
            key: ["logLevel"],
            kind: .choice(Logger.Level.allCases.map(\.rawValue)),
            defaultValue: "info",
            summary: "how much to log"
        ),
        SettingKey(
            key: ["orders", "brokerTimeoutMs"],
            kind: .whole(100...120_000),
            defaultValue: "10000",
            summary: "how long a placement, change or cancel may take at the broker before its outcome is `unknown`"
        ),
        SettingKey(
            key: ["orders", "idempotencyRetentionHours"],
            kind: .whole(24...720),
            defaultValue: "24",
            summary: "how long idempotency keys are kept"
        ),
        SettingKey(
            key: ["orders", "reconcileGraceSeconds"],
            kind: .whole(1...3600),
            defaultValue: "30",
            summary: "how long an order the broker does not know may still appear before it counts as never received"
        ),
        SettingKey(
            key: ["orders", "previewLifetimeSeconds"],
            kind: .whole(10...3600),
            defaultValue: "300",
            summary: "how long an order preview stays valid"
        ),
        SettingKey(
            key: ["orders", "reconcileIntervalMs"],
            kind: .whole(100...600_000),
            defaultValue: "2000",
            summary: "how often the background reconciler looks for orders in `unknown`"
        ),
        SettingKey(
            key: ["orders", "watchIntervalMs"],
            kind: .whole(100...600_000),
            defaultValue: "1000",
            summary: "how often the order watcher brings open orders up to date from their brokers (fills reach the stream and alerts)"
        ),
        SettingKey(
            key: ["stream", "quoteIntervalMs"],
            kind: .whole(100...60_000),
            defaultValue: "1000",
            summary: "how often a connection's streamed quotes are polled (brokers without a stream of their own)"
        ),
        SettingKey(
            key: ["stream", "holdingsIntervalMs"],
            kind: .whole(500...300_000),
            defaultValue: "5000",
            summary: "how often a stream's positions and balances are read (and at once after a fill)"
        ),
        SettingKey(
            key: ["stream", "feedIntervalMs"],
            kind: .whole(50...10_000),
            defaultValue: "250",
            summary:
                "how often the order journal's feed is read for streams' order updates, and the store's change stamp for streams whose key, session, user or tenant went away"
        ),
        SettingKey(
            key: ["stream", "perUser"],
            kind: .whole(1...100),
            defaultValue: "5",
            summary: "streams one user may hold open at once"
        ),
        SettingKey(
            key: ["reads", "maxAgeMs"],
            kind: .whole(0...60_000),
            defaultValue: "0",
            summary:
                "how old an answer a read accepts when neither it (`maxAgeMs`) nor its tenant says; identical reads in flight are shared whatever this is"
        ),
        SettingKey(
            key: ["reads", "coalesce"],
            kind: .choice(["on", "off"]),
            defaultValue: "on",
            summary: "share identical reads in flight and reuse recent answers (`off` only to measure what sharing saves)"
        ),
        SettingKey(
            key: ["executor"],
            kind: .choice(ConcurrencyExecutor.allCases.map(\.rawValue)),
            defaultValue: "global",
            summary:
                "where tasks run: `global`, Swift's own pool; `event-loops` makes NIO's event loops Swift's global executor (no thread hops between sockets and handlers; measured no faster here, see Benchmarks)"
        ),
        SettingKey(
            key: ["breaker", "consecutiveFailures"],
            kind: .whole(1...1000),
            defaultValue: "5",
            summary: "consecutive failed calls (transport failures, 5xx) that open a connection's circuit breaker"
        ),
        SettingKey(
            key: ["breaker", "coolDownMs"],
            kind: .whole(100...600_000),
            defaultValue: "30000",
            summary: "how long an open breaker fails a connection's calls at once before a half-open probe"
        ),
        SettingKey(
            key: ["retries", "max"],
            kind: .whole(0...5),
            defaultValue: "2",
            summary: "retries (jittered backoff) of an idempotent broker read after a transient failure; placements and cancels are never retried"
        ),
        SettingKey(
            key: ["limits", "tenantRequestsPerSecond"],
            kind: .whole(1...1_000_000),
            defaultValue: "200",
            summary: "API requests one tenant may make per second, sustained, across its keys (429 with `Retry-After` beyond)"
        ),
        SettingKey(
            key: ["limits", "tenantBurst"],
            kind: .whole(1...1_000_000),
            defaultValue: "400",
            summary: "API requests one tenant may make at once above its sustained rate"
        ),
        SettingKey(
            key: ["limits", "keyRequestsPerSecond"],
            kind: .whole(1...1_000_000),
            defaultValue: "100",
            summary: "API requests one API key may make per second, sustained"
        ),
        SettingKey(
            key: ["limits", "keyBurst"],
            kind: .whole(1...1_000_000),
            defaultValue: "200",
            summary: "API requests one API key may make at once above its sustained rate"
        ),
        SettingKey(
            key: ["limits", "fanOutsInFlight"],
            kind: .whole(1...100_000),
            defaultValue: "32",
            summary: "fan-out reads one tenant may have in flight; more wait for a slot within their deadline, then get 429"
        ),
        SettingKey(
            key: ["limits", "callsPerConnection"],
            kind: .whole(1...1000),
            defaultValue: "64",
            summary: "broker calls one read may make on one connection (a quote read of many unknown symbols stops there)"
        ),
        SettingKey(
            key: ["server", "headerTimeoutMs"],
            kind: .whole(100...600_000),
            defaultValue: "10000",
            summary: "how long a request's head may take once its first byte has arrived (408 and the connection closed)"
        ),
        SettingKey(
            key: ["server", "bodyTimeoutMs"],
            kind: .whole(100...600_000),
            defaultValue: "30000",
            summary: "how long a request's body may take once its head has arrived (408 and the connection closed)"
        ),
        SettingKey(
            key: ["server", "idleTimeoutMs"],
            kind: .whole(100...3_600_000),
            defaultValue: "60000",
            summary: "how long a connection may stay open without a request"
        ),
        SettingKey(
            key: ["server", "maxConnections"],
            kind: .whole(1...1_000_000),
            defaultValue: "1024",
            summary:
                "connections open at once; at the cap the connection idle the longest is closed for a new one, and a new one is closed at once only when every connection is busy"
        ),
        SettingKey(
            key: ["server", "maxConnectionsPerClient"],
            kind: .whole(1...1_000_000),
            defaultValue: "128",
            summary:
                "connections open at once from one client address (an IPv4 address or IPv6 /64); past it a new one is closed at once. Behind a reverse proxy, set it to `server.maxConnections`"
        ),
        SettingKey(
            key: ["server", "maxConnectionAgeMs"],
            kind: .whole(1000...86_400_000),
            defaultValue: "600000",
            summary: "how long one connection may be reused: the first response after it says `Connection: close` and the connection closes"
        ),
        SettingKey(
            key: ["server", "maxHeaderBytes"],
            kind: .whole(1024...1_048_576),
            defaultValue: "16384",
            summary: "the largest request line or header section (431 beyond)"
        ),
        SettingKey(
            key: ["otel", "tracesEndpoint"],
            kind: .text,
            defaultValue: "(none)",
            summary:
                "send OpenTelemetry traces (a span per request and per broker call) over OTLP/HTTP to this URL, e.g. `http://127.0.0.1:4318/v1/traces`; none are kept otherwise. Needs a gateway built with `--traits OTLP`"
        ),
        SettingKey(
            key: ["brokers", "responseBudgetBytes"],
            kind: .whole(1_048_576...17_179_869_184),
            defaultValue: "268435456",
            summary:
                "broker answer bytes all calls may hold at once while they are read; a call past it fails at once with a retryable 503 `upstream_unavailable` (each answer is also capped near its operation's real size)"
        ),
        SettingKey(
            key: ["egress", "allow"],
            kind: .text,
            defaultValue: "(none)",
            summary:
                "address ranges broker calls may reach despite the egress policy, as CIDR blocks separated by commas (`10.20.0.0/16,fd12::/64`; `127.0.0.0/8,::1` for a broker on this machine); by default only public addresses"
        ),
        SettingKey(
            key: ["publicUrl"],
            kind: .text,
            defaultValue: "http://<host>:<port>",
            summary: "how browsers reach this gateway: the OAuth callback links it hands out start with it (never taken from request headers)"
        ),
        SettingKey(
            key: ["connections", "linkStateLifetimeSeconds"],
            kind: .whole(60...86_400),
            defaultValue: "600",
            summary:
                "how long an interactive link (its OAuth state) can be completed after it starts; an expired, unknown or used state is refused and the connection can be relinked"
        ),
        SettingKey(
            key: ["connections", "export"],
            kind: .choice(["on", "off"]),
            defaultValue: "off",
            summary:
                "allow `POST /v1/connections/export` (a tenant's connections with their broker secrets, sealed to the receiving gateway's public key); off answers 403"
        ),
        SettingKey(
            key: ["sessions", "accessTokenSeconds"],
            kind: .whole(60...86_400),
            defaultValue: "900",
            summary: "how long an end user's access token lives (`POST /v1/auth/login`, `/v1/auth/refresh`); logout and device removal end it sooner"
        ),
        SettingKey(
            key: ["sessions", "maxDevicesPerUser"],
            kind: .whole(1...1_000),
            defaultValue: "10",
            summary: "how many devices one end user may have; a login from one more is a 409 until one is removed"
        ),
        SettingKey(
            key: ["sessions", "loginsPerMinutePerAddress"],
            kind: .whole(1...100_000),
            defaultValue: "30",
            summary:
                "logins (`POST /v1/auth/login`) one client address may attempt per minute, checked before any password is hashed; more are a 429 with Retry-After (behind a reverse proxy every client shares its address)"
        ),
        SettingKey(
            key: ["sessions", "loginBurstPerAddress"],
            kind: .whole(1...100_000),
            defaultValue: "10",
            summary: "logins one client address may attempt at once above its per-minute rate"
        ),
        SettingKey(
            key: ["sessions", "loginsPerMinutePerEmail"],
            kind: .whole(1...100_000),
            defaultValue: "20",
            summary: "logins naming one (tenant, email) that may be attempted per minute from all addresses together, checked before any hashing"
        ),
        SettingKey(
            key: ["sessions", "loginBurstPerEmail"],
            kind: .whole(1...100_000),
            defaultValue: "10",
            summary: "logins naming one (tenant, email) that may be attempted at once above their per-minute rate"
        ),
        SettingKey(
            key: ["sessions", "hashingSlots"],
            kind: .whole(1...64),
            defaultValue: "2",
            summary:
                "password hashes (scrypt, 32 MiB each) computed at once; one tenant holds at most half of them (at least one), so another tenant always finds one free"
        ),
        SettingKey(
            key: ["sessions", "hashingQueuePerTenant"],
            kind: .whole(0...1_000),
            defaultValue: "8",
            summary: "password hashes one tenant may have waiting for a slot (up to 10 s); one more login of that tenant is a 429 at once"
        ),
        SettingKey(
            key: ["sessions", "refreshGraceSeconds"],
            kind: .whole(0...60),
            defaultValue: "10",
            summary:
                "how long after a refresh token is used presenting it again still answers with the session's current refresh token (two refreshes racing on one device) instead of revoking the session as stolen; 0 revokes at once"
        ),
        SettingKey(
            key: ["alerts", "maxPerUser"],
            kind: .whole(1...10_000),
            defaultValue: "100",
            summary: "how many alerts one end user may have; one more is a 422"
        ),
        SettingKey(
            key: ["alerts", "maxAttempts"],
            kind: .whole(1...20),
            defaultValue: "5",
            summary:
                "attempts to deliver one alert notification on one channel (webhook, APNs), the first included; network errors, 5xx, 408 and 429 are tried again"
        ),
        SettingKey(
            key: ["alerts", "retryBaseDelayMs"],
            kind: .whole(1...600_000),
            defaultValue: "1000",
            summary: "the wait before an alert delivery's second attempt; each later wait doubles (plus up to 25 % jitter, at least a `Retry-After`)"
        ),
        SettingKey(
            key: ["alerts", "retryMaxDelayMs"],
            kind: .whole(1...3_600_000),
            defaultValue: "60000",
            summary: "the longest wait between two attempts of an alert delivery"
        ),
        SettingKey(
            key: ["alerts", "timeoutMs"],
            kind: .whole(100...120_000),
            defaultValue: "10000",
            summary: "how long one webhook or APNs attempt may take (the receiver's answer is read up to 64 KiB)"
        ),
        SettingKey(
            key: ["alerts", "maxConcurrentDeliveries"],
            kind: .whole(1...1_000),
            defaultValue: "16",
            summary: "alert delivery attempts (webhook, APNs) made at once, across tenants; the tenants' queues are served round-robin"
        ),
        SettingKey(
            key: ["alerts", "maxConcurrentPerTenant"],
            kind: .whole(1...1_000),
            defaultValue: "4",
            summary: "of those, one tenant's at most: a tenant whose webhooks hang holds this many slots, never the others'"
        ),
        SettingKey(
            key: ["alerts", "maxConcurrentPerDestination"],
            kind: .whole(1...1_000),
            defaultValue: "4",
            summary: "of those, to one receiver (a webhook's host and port, or APNs) at most; a retry waiting for its backoff holds none"
        ),
        SettingKey(
            key: ["alerts", "maxPendingPerTenant"],
            kind: .whole(1...100_000),
            defaultValue: "1000",
            summary:
                "alert deliveries one tenant may have queued, running or waiting for a retry; a newer one is dropped, written to its alert's delivery log and counted (`brokergateway_alert_deliveries_dropped_total`)"
        ),
        SettingKey(
            key: ["apns", "teamId"],
            kind: .text,
            defaultValue: "(none)",
            summary: "APNs: the Apple developer team id (with `apns.keyId`, `apns.keyFile` and `apns.topic`, or none of them: no pushes)"
        ),
        SettingKey(
            key: ["apns", "keyId"],
            kind: .text,
            defaultValue: "(none)",
            summary: "APNs: the id of the .p8 signing key"
        ),
        SettingKey(
            key: ["apns", "keyFile"],
            kind: .text,
            defaultValue: "(none)",
            summary: "APNs: the .p8 signing key file (`AuthKey_<keyId>.p8`, readable by the gateway only)"
        ),
        SettingKey(
            key: ["apns", "topic"],
            kind: .text,
            defaultValue: "(none)",
            summary: "APNs: the app's bundle id (`apns-topic`)"
        ),
        SettingKey(
            key: ["apns", "environment"],
            kind: .choice(["production", "sandbox"]),
            defaultValue: "production",
            summary: "APNs: `production` (api.push.apple.com) or `sandbox` (api.sandbox.push.apple.com, development builds)"
        ),
        SettingKey(
            key: ["configFile"],
            kind: .text,
            defaultValue: "(none)",
            summary: "a JSON file with any of these settings, e.g. `{\"port\": 9000, \"orders\": {\"brokerTimeoutMs\": 5000}}`"
        ),
    ]

    var host: String
    var port: Int
    var dataDirectory: URL
    /// The SQLite file, when ``postgres`` is `nil`.
    var databasePath: String
    /// The PostgreSQL database of a `postgres://` database URL; `nil`: SQLite.
    var postgres: PostgresStoreSettings?
    var sandboxesEnabled: Bool
    var sandboxOptions: SandboxOptions
    var sourceTimeout: Duration
    var requestTimeout: Duration
    /// On SIGTERM or SIGINT, how long the services may take to finish what is in flight before they are cancelled.
    var shutdownGrace: Duration
    var maxBodyBytes: Int
    var logLevel: Logger.Level
    var orderSettings: OrderSettings
    var reconcileInterval: Duration
    var orderWatchInterval: Duration
    var stream: StreamSettings
    var readMaxAge: Duration
    var coalesceReads: Bool
    var executor: ConcurrencyExecutor
    /// The broker-call pipeline's breaker and retry settings (the rest are its defaults).
    var pipeline: PipelineSettings
    /// What one tenant and one API key may ask of the gateway.
    var limits: TenantLimits
    /// What one HTTP connection may hold.
    var server: ServerLimits
    /// `nil`: no traces are exported.
    var tracesEndpoint: String?

    /// Whether this build can export traces: swift-otel is compiled in only with the package's OTLP trait, which a
    /// fresh clone's default build leaves off (it costs about a twelfth of that build).
    #if OTLP
    static let exportsTraces = true
    #else
    static let exportsTraces = false
    #endif
    /// `nil`: `http://<host>:<port>`.
    var publicURL: String?
    /// Where broker calls may go: public addresses, plus the ranges `egress.allow` names.
    var egress: EgressPolicy
    /// The bytes of broker answers the transport may hold at once (its ``ResponseBudget``).
    var responseBudgetBytes: Int
    /// How long a started interactive link can be completed.
    var linkStateLifetime: Duration
    /// Whether connections may be exported (sealed) to another gateway.
    var exportEnabled: Bool
    /// How long an end user's access token lives.
    var accessTokenLifetime: Duration
    var maxDevicesPerUser: Int
    /// Logins' rates, lockout and hashing shares.
    var logins: LoginLimits
    /// How long a used refresh token may be replayed by a racing refresh.
    var refreshGrace: Duration
    /// Alerts: the per-user limit, delivery retries and bounds (through the egress policy), APNs when configured.
    var alerts: AlertSettings

    /// The settings `gateway serve` would run with, given its flags (`["--port", "9000"]`, without the command's name)
    /// and environment (`BROKERGATEWAY_*`; a config file when either names one).
    /// - Throws: ``SettingsError`` naming the setting, its flag and its environment variable, and what it must be.
    public init(arguments: [String], environment: [String: String]) async throws {
        try self.init(reader: try await Self.reader(arguments: arguments, environment: environment))
    }

    /// The providers in order of precedence: flags, environment, config file.
    static func reader(arguments: [String], environment: [String: String]) async throws -> ConfigReader {
        let known = Set(keys.map(\.flag))
        for argument in arguments where argument.hasPrefix("--") {
            let name = String(argument.split(separator: "=", maxSplits: 1)[0])
            guard known.contains(name) else {
                throw SettingsError("unknown option \(name.prefix(64)); `gateway settings` lists every setting")
            }
        }
        var providers: [any ConfigProvider] = [
            CommandLineArgumentsProvider(arguments: ["gateway"] + arguments),
            EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: ["brokergateway"]),
        ]
        let early = ConfigReader(providers: providers)
        if let path = early.string(forKey: ["configFile"]), !path.isEmpty {
            guard FileManager.default.isReadableFile(atPath: path) else { throw SettingsError("configFile: cannot read \(path)") }
            do {
                let location = ConfigReader(provider: InMemoryProvider(values: ["filePath": .init(.string(path), isSecret: false)]))
                providers.append(try await FileProvider<JSONSnapshot>(config: location))
            } catch {
                throw SettingsError("configFile: \(path) is not a JSON object of settings")
            }
        }
        return ConfigReader(providers: providers)
    }

    init(reader: ConfigReader) throws {
        func key(_ components: String...) -> SettingKey {
            // The table above is the only list; every key read here is in it.
            Self.keys.first { $0.key == components } ?? SettingKey(key: components, kind: .text, defaultValue: "", summary: "")
        }
        func text(_ setting: SettingKey) throws -> String {
            if let value = reader.string(forKey: setting.configKey) {
                guard !value.isEmpty else {
                    throw SettingsError("\(setting.fileKey) (\(setting.flag), \(setting.environmentVariable)) must not be empty")
                }
                return value
            }
            if let number = reader.int(forKey: setting.configKey) { return String(number) }
            return setting.defaultValue
        }
        func whole(_ setting: SettingKey) throws -> Int {
            let raw = try text(setting)
            guard case .whole(let range) = setting.kind, let number = Int(raw), range.contains(number) else {
                if case .whole(let range) = setting.kind {
                    throw SettingsError(
                        "\(setting.fileKey) (\(setting.flag), \(setting.environmentVariable)) must be a whole number from \(range.lowerBound) to \(range.upperBound)"
                    )
                }
                throw SettingsError("\(setting.fileKey) is not a number setting")
            }
            return number
        }
        func choice(_ setting: SettingKey) throws -> String {
            let raw = try text(setting).lowercased()
            guard case .choice(let allowed) = setting.kind, allowed.contains(raw) else {
                if case .choice(let allowed) = setting.kind {
                    throw SettingsError(
                        "\(setting.fileKey) (\(setting.flag), \(setting.environmentVariable)) must be one of: \(allowed.joined(separator: ", "))"
                    )
                }
                throw SettingsError("\(setting.fileKey) is not a choice setting")
            }
            return raw
        }

        host = try text(key("host"))
        port = try whole(key("port"))
        dataDirectory = URL(fileURLWithPath: try text(key("dataDir")), isDirectory: true).standardizedFileURL
        let database = try text(key("databaseUrl"))
        let poolMax = try whole(key("databasePoolMax"))
        if database == key("databaseUrl").defaultValue {
            databasePath = dataDirectory.appendingPathComponent(SQLiteStore.databaseFileName).path
        } else if database.hasPrefix("sqlite://") {
            databasePath = String(database.dropFirst("sqlite://".count))
        } else if PostgresStoreSettings.isPostgresURL(database) {
            databasePath = ""
            do {
                var postgres = try PostgresStoreSettings(url: database)
                postgres.maximumConnections = poolMax
                self.postgres = postgres
            } catch let error as PostgresURLError {
                // Never the URL itself: it holds the password.
                throw SettingsError("databaseUrl (--database-url, BROKERGATEWAY_DATABASE_URL): \(error.description)")
            }
        } else if database.contains("://") {
            throw SettingsError("databaseUrl: only SQLite (a path or sqlite:///path) or PostgreSQL (postgres://…) is supported")
        } else {
            databasePath = database
        }
        sandboxesEnabled = try choice(key("sandbox")) == "on"
        sandboxOptions = SandboxOptions(
            rateLimits: SandboxOptions.RateLimits(rawValue: try choice(key("sandboxRateLimits"))) ?? .on,
            latencyMs: try whole(key("sandboxLatencyMs")),
            marketHours: SandboxOptions.MarketHours(rawValue: try choice(key("sandboxMarketHours"))) ?? .alwaysOpen
        )
        sourceTimeout = .milliseconds(try whole(key("sourceTimeoutMs")))
        requestTimeout = .milliseconds(try whole(key("requestTimeoutMs")))
        shutdownGrace = .milliseconds(try whole(key("shutdownGraceMs")))
        maxBodyBytes = try whole(key("maxBodyBytes"))
        logLevel = Logger.Level(rawValue: try choice(key("logLevel"))) ?? .info
        orderSettings = OrderSettings(
            brokerTimeout: .milliseconds(try whole(key("orders", "brokerTimeoutMs"))),
            idempotencyRetention: TimeInterval(try whole(key("orders", "idempotencyRetentionHours")) * 3600),
            reconcileGrace: TimeInterval(try whole(key("orders", "reconcileGraceSeconds"))),
            previewLifetime: TimeInterval(try whole(key("orders", "previewLifetimeSeconds")))
        )
        reconcileInterval = .milliseconds(try whole(key("orders", "reconcileIntervalMs")))
        orderWatchInterval = .milliseconds(try whole(key("orders", "watchIntervalMs")))
        stream = StreamSettings(
            quoteInterval: .milliseconds(try whole(key("stream", "quoteIntervalMs"))),
            holdingsInterval: .milliseconds(try whole(key("stream", "holdingsIntervalMs"))),
            feedInterval: .milliseconds(try whole(key("stream", "feedIntervalMs"))),
            orderWatchInterval: .milliseconds(try whole(key("orders", "watchIntervalMs"))),
            streamsPerUser: try whole(key("stream", "perUser"))
        )
        readMaxAge = .milliseconds(try whole(key("reads", "maxAgeMs")))
        coalesceReads = try choice(key("reads", "coalesce")) == "on"
        executor = ConcurrencyExecutor(rawValue: try choice(key("executor"))) ?? .global
        pipeline = PipelineSettings(
            breakerConsecutiveFailures: try whole(key("breaker", "consecutiveFailures")),
            breakerCoolDown: .milliseconds(try whole(key("breaker", "coolDownMs"))),
            maxRetries: try whole(key("retries", "max"))
        )
        limits = TenantLimits(
            tenantRequestsPerSecond: try whole(key("limits", "tenantRequestsPerSecond")),
            tenantBurst: try whole(key("limits", "tenantBurst")),
            keyRequestsPerSecond: try whole(key("limits", "keyRequestsPerSecond")),
            keyBurst: try whole(key("limits", "keyBurst")),
            fanOutsInFlight: try whole(key("limits", "fanOutsInFlight")),
            callsPerConnection: try whole(key("limits", "callsPerConnection"))
        )
        server = ServerLimits(
            headerTimeout: .milliseconds(try whole(key("server", "headerTimeoutMs"))),
            idleTimeout: .milliseconds(try whole(key("server", "idleTimeoutMs"))),
            bodyTimeout: .milliseconds(try whole(key("server", "bodyTimeoutMs"))),
            maxConnections: try whole(key("server", "maxConnections")),
            maxConnectionsPerClient: try whole(key("server", "maxConnectionsPerClient")),
            maxConnectionAge: .milliseconds(try whole(key("server", "maxConnectionAgeMs"))),
            maxHeaderBytes: try whole(key("server", "maxHeaderBytes"))
        )
        responseBudgetBytes = try whole(key("brokers", "responseBudgetBytes"))
        let traces = try text(key("otel", "tracesEndpoint"))
        if traces == key("otel", "tracesEndpoint").defaultValue {
            tracesEndpoint = nil
        } else {
            guard let url = URL(string: traces), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil,
                traces.count <= 512
            else {
                throw SettingsError(
                    "otel.tracesEndpoint (--otel-traces-endpoint, BROKERGATEWAY_OTEL_TRACES_ENDPOINT) must be an http(s) URL such as http://127.0.0.1:4318/v1/traces"
                )
            }
            guard Self.exportsTraces else {
                throw SettingsError(
                    "otel.tracesEndpoint (--otel-traces-endpoint, BROKERGATEWAY_OTEL_TRACES_ENDPOINT) needs a gateway built with the OTLP trait: `swift build --traits OTLP` (this build has no trace exporter)"
                )
            }
            tracesEndpoint = traces
        }
        // A list: the command line splits `a,b` into two values, the environment keeps one string, the file holds
        // either; all of them are read, never silently dropped for the default.
        let allowKey = key("egress", "allow")
        let allow: String
        if let list = reader.stringArray(forKey: allowKey.configKey) {
            allow = list.joined(separator: ",")
        } else {
            allow = try text(allowKey)
        }
        do {
            egress = allow == allowKey.defaultValue ? EgressPolicy() : try EgressPolicy(allowList: allow)
        } catch {
            throw SettingsError("egress.allow (--egress-allow, BROKERGATEWAY_EGRESS_ALLOW): \(error)")
        }
        linkStateLifetime = .seconds(try whole(key("connections", "linkStateLifetimeSeconds")))
        exportEnabled = try choice(key("connections", "export")) == "on"
        accessTokenLifetime = .seconds(try whole(key("sessions", "accessTokenSeconds")))
        maxDevicesPerUser = try whole(key("sessions", "maxDevicesPerUser"))
        logins = LoginLimits(
            perAddressPerMinute: try whole(key("sessions", "loginsPerMinutePerAddress")),
            perAddressBurst: try whole(key("sessions", "loginBurstPerAddress")),
            perEmailPerMinute: try whole(key("sessions", "loginsPerMinutePerEmail")),
            perEmailBurst: try whole(key("sessions", "loginBurstPerEmail")),
            hashingSlots: try whole(key("sessions", "hashingSlots")),
            hashingQueuePerTenant: try whole(key("sessions", "hashingQueuePerTenant"))
        )
        refreshGrace = .seconds(try whole(key("sessions", "refreshGraceSeconds")))
        let apnsKeys = ["teamId", "keyId", "keyFile", "topic"].map { key("apns", $0) }
        let apnsValues = try apnsKeys.map { setting -> String? in
            let value = try text(setting)
            return value == setting.defaultValue ? nil : value
        }
        var apns: APNsSettings?
        if apnsValues.contains(where: { $0 != nil }) {
            guard let teamId = apnsValues[0], let keyId = apnsValues[1], let keyFile = apnsValues[2], let topic = apnsValues[3] else {
                throw SettingsError("apns.teamId, apns.keyId, apns.keyFile and apns.topic are set together or not at all")
            }
            let environment = APNsSettings.Environment(rawValue: try choice(key("apns", "environment"))) ?? .production
            do {
                apns = try APNsSettings.load(teamId: teamId, keyId: keyId, keyFile: keyFile, topic: topic, environment: environment)
            } catch let error as GatewayError {
                throw SettingsError("apns.keyFile (--apns-key-file, BROKERGATEWAY_APNS_KEY_FILE): \(error.message)")
            }
        }
        alerts = AlertSettings(
            maxAlertsPerUser: try whole(key("alerts", "maxPerUser")),
            maxAttempts: try whole(key("alerts", "maxAttempts")),
            baseDelay: .milliseconds(try whole(key("alerts", "retryBaseDelayMs"))),
            maxDelay: .milliseconds(try whole(key("alerts", "retryMaxDelayMs"))),
            timeout: .milliseconds(try whole(key("alerts", "timeoutMs"))),
            transport: HTTPClientTransport(policy: egress),
            apns: apns,
            maxConcurrentDeliveries: try whole(key("alerts", "maxConcurrentDeliveries")),
            maxConcurrentPerTenant: try whole(key("alerts", "maxConcurrentPerTenant")),
            maxConcurrentPerDestination: try whole(key("alerts", "maxConcurrentPerDestination")),
            maxPendingPerTenant: try whole(key("alerts", "maxPendingPerTenant"))
        )
        let publicURL = try text(key("publicUrl"))
        if publicURL == key("publicUrl").defaultValue {
            self.publicURL = nil
        } else {
            guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil,
                url.query == nil, url.fragment == nil, publicURL.count <= 512
            else {
                throw SettingsError("publicUrl (--public-url, BROKERGATEWAY_PUBLIC_URL) must be an http(s) URL such as https://gateway.example.com")
            }
            self.publicURL = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        }
    }

    /// The table of settings as Markdown (what `gateway settings` prints and the README shows).
    static func markdownTable() -> String {
        var lines = ["| Flag | Environment | Config file | Default | Meaning |", "|---|---|---|---|---|"]
        for setting in keys {
            lines.append(
                "| `\(setting.flag)` | `\(setting.environmentVariable)` | `\(setting.fileKey)` | `\(setting.defaultValue)` | \(setting.summary) |"
            )
        }
        return lines.joined(separator: "\n")
    }
}

/// A setting that cannot be used, or a list of brokers that cannot be served: what is wrong, said for the operator.
public struct SettingsError: Error, CustomStringConvertible {
    /// The problem: the setting's key, flag and environment variable, and what it must be.
    public var description: String
    init(_ description: String) { self.description = description }
}
