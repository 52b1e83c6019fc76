public import Foundation
import NIOSSL
import PostgresNIO

/// Where the PostgreSQL store connects and how large its connection pool may grow.
///
/// The pool is postgres-nio's own (`PostgresClient`): connections are opened on demand up to
/// ``maximumConnections`` per process, kept idle for ``connectionIdleTimeout`` and then closed down to
/// ``minimumConnections``; an operation waits for a free connection when all are busy. With N gateway instances on
/// one server, the server sees up to N × ``maximumConnections`` connections: keep that under its `max_connections`
/// (100 by default).
///
/// Made from a URL, `postgres://user:password@host:port/database?sslmode=…`; the password never appears in
/// ``redactedDescription`` or in any error this type throws. The gateway sets ``maximumConnections`` from its own
/// setting (`databasePoolMax`).
public struct PostgresStoreSettings: Sendable {
    /// Whether the connection is encrypted (libpq's `sslmode` names).
    public enum TLSMode: String, Sendable, CaseIterable {
        /// Plain TCP (a server on loopback or a private network).
        case disable
        /// TLS when the server offers it, plain otherwise.
        case prefer
        /// TLS with the server's certificate verified against the system's trust roots, or no connection.
        case require
    }

    /// The server's host name or address (the URL's host).
    public var host: String
    /// The server's port (the URL's, 5432 when it names none).
    public var port: Int
    /// The role the store logs in as.
    public var username: String
    /// The role's password, if the server asks for one; never printed (see `redactedDescription`).
    public var password: String?
    /// The database holding the store's tables.
    public var database: String
    /// Whether and how the connection is encrypted (URL `sslmode`).
    public var tls: TLSMode
    /// The schema the store's tables live in; `nil`: the server's default search path (`public`). The tests give
    /// each test a schema of its own.
    public var schema: String?
    /// Connections opened at most at once by this process (default 20).
    public var maximumConnections: Int
    /// Connections kept open even when idle (URL `pool_min`, default 0).
    public var minimumConnections: Int
    /// How long an idle connection above ``minimumConnections`` stays open (default 60 s).
    public var connectionIdleTimeout: Duration
    /// How long opening one connection may take before the operation that needed it fails (URL
    /// `connect_timeout`, in seconds as libpq's; default 10 s).
    public var connectTimeout: Duration

    /// Settings given field by field (the tests'); the gateway makes them from its URL instead.
    public init(
        host: String,
        port: Int = 5432,
        username: String,
        password: String?,
        database: String,
        tls: TLSMode = .disable,
        schema: String? = nil,
        maximumConnections: Int = 20,
        minimumConnections: Int = 0,
        connectionIdleTimeout: Duration = .seconds(60),
        connectTimeout: Duration = .seconds(10)
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.tls = tls
        self.schema = schema
        self.maximumConnections = maximumConnections
        self.minimumConnections = minimumConnections
        self.connectionIdleTimeout = connectionIdleTimeout
        self.connectTimeout = connectTimeout
    }

    /// Whether `url` names a PostgreSQL database (`postgres://` or `postgresql://`).
    public static func isPostgresURL(_ url: String) -> Bool {
        let lowered = url.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Reads `postgres://user:password@host:port/database?sslmode=disable|prefer|require&pool_min=N&connect_timeout=S&schema=NAME`.
    /// User name and password may be percent-encoded.
    ///
    /// - Throws: ``PostgresURLError`` naming what is wrong, never quoting the URL (it may hold the password).
    public init(url text: String) throws {
        guard Self.isPostgresURL(text), let components = URLComponents(string: text) else {
            throw PostgresURLError("is not a postgres://user:password@host:port/database URL")
        }
        guard let host = components.host, !host.isEmpty else { throw PostgresURLError("has no host") }
        guard let user = components.user, !user.isEmpty else { throw PostgresURLError("has no user name") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw PostgresURLError("has no database name (…/database)") }
        self.init(
            host: host,
            port: components.port ?? 5432,
            username: components.percentEncodedUser?.removingPercentEncoding ?? user,
            password: components.percentEncodedPassword.map { $0.removingPercentEncoding ?? $0 },
            database: database
        )
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    throw PostgresURLError(
                        "sslmode must be one of: \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                tls = mode
            case "pool_min":
                guard let count = Int(value), count >= 0 else {
                    throw PostgresURLError("pool_min must be a whole number, 0 or more")
                }
                minimumConnections = count
            case "connect_timeout":
                guard let seconds = Int(value), (1...600).contains(seconds) else {
                    throw PostgresURLError("connect_timeout must be a whole number of seconds from 1 to 600")
                }
                connectTimeout = .seconds(seconds)
            case "schema":
                guard Self.isPlainIdentifier(value) else {
                    throw PostgresURLError("schema must be letters, digits and underscores, starting with a letter")
                }
                schema = value
            default:
                throw PostgresURLError("has an unknown parameter '\(item.name)' (known: sslmode, pool_min, connect_timeout, schema)")
            }
        }
        guard minimumConnections <= 100 else {
            throw PostgresURLError("pool_min must be at most 100")
        }
    }

    /// `postgres://user@host:port/database`: where the store connects, without the password.
    public var redactedDescription: String {
        "postgres://\(username)@\(host):\(port)/\(database)" + (schema.map { " (schema \($0))" } ?? "")
    }

    /// Letters, digits and underscores, starting with a letter: a schema name safe to write into a statement.
    static func isPlainIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, CharacterSet.letters.contains(first), text.count <= 63
        else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || CharacterSet.alphanumerics.contains($0)) }
    }

    /// The TLS of a single connection (the start-up probe) for these settings.
    var connectionTLS: PostgresConnection.Configuration.TLS {
        get throws {
            switch tls {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        }
    }

    /// The postgres-nio configuration for these settings.
    var clientConfiguration: PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS =
            switch self.tls {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var configuration = PostgresClient.Configuration(
            host: host,
            port: port,
            username: username,
            password: password,
            database: database,
            tls: tls
        )
        // postgres-nio requires 0 ≤ minimum < maximum: out-of-range values a library user set are clamped, never a trap.
        let maximum = max(1, maximumConnections)
        configuration.options.maximumConnections = maximum
        configuration.options.minimumConnections = min(max(0, minimumConnections), maximum - 1)
        configuration.options.connectionIdleTimeout = connectionIdleTimeout
        configuration.options.connectTimeout = connectTimeout
        configuration.options.additionalStartupParameters = [("application_name", "brokergateway")]
        if let schema {
            // A run-time parameter in the startup message: every pooled connection starts in the schema.
            configuration.options.additionalStartupParameters.append(("search_path", schema))
        }
        return configuration
    }
}

/// A PostgreSQL URL that cannot be used; says why without quoting it.
public struct PostgresURLError: Error, CustomStringConvertible, Sendable {
    /// What is wrong with the URL, worded without quoting it (it may hold a password).
    public var reason: String
    init(_ reason: String) { self.reason = reason }
    /// The reason as one sentence for the start-up failure.
    public var description: String { "the PostgreSQL URL \(reason)" }
}
