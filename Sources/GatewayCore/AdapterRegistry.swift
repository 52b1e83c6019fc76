public import GatewayModel
public import Logging
import Synchronization

/// The adapter kinds this gateway knows, and one live adapter per connection.
///
/// Adapters are cached per connection so that per-connection state (a broker session, a token being refreshed)
/// is shared by every request. A connection whose configuration (broker, base URL, settings) changes gets a fresh
/// adapter; status changes keep it (the adapter itself reported them, and keeps its session). Whoever replaces a
/// connection's credentials from outside the adapter (a completed link, an import) calls `evict`.
public final class AdapterRegistry: Sendable {
    /// One factory per broker kind (a later factory of a kind replaces an earlier one); fixed at init. `/v1/brokers`
    /// lists exactly these.
    public let factories: [BrokerKind: any BrokerAdapterFactory]
    let transport: any BrokerTransport
    /// The chain every adapter's call passes through, and its per-connection health.
    public let pipeline: BrokerPipeline
    let logger: Logger
    /// The policy linking checks a connection's URLs against (the transport applies the same policy at call time).
    public let egress: EgressPolicy
    let sandboxes: Mutex<[String: SandboxRegistration]>
    let cache = Mutex<[String: (version: ConnectionDescriptor, adapter: any BrokerAdapter)]>([:])

    /// A registry whose adapters send through `transport` (the gateway's one `HTTPClientTransport`, or a test
    /// double) wrapped in `pipeline`; `egress` is the policy linking checks URLs against, and should be the
    /// transport's own.
    ///
    /// A factory whose kind is not well formed (`BrokerKind.problem(with:)`) is left out and logged as an error: the
    /// API document and every client's decoder refuse such a kind, so its connections could never be linked, and
    /// listing it would break every client's read of `/v1/brokers`.
    public init(
        factories: [any BrokerAdapterFactory],
        transport: any BrokerTransport,
        logger: Logger,
        pipeline: BrokerPipeline = BrokerPipeline(),
        egress: EgressPolicy = EgressPolicy()
    ) {
        var byKind: [BrokerKind: any BrokerAdapterFactory] = [:]
        for factory in factories {
            if let problem = BrokerKind.problem(with: factory.kind.rawValue) {
                logger.error(
                    "adapter left out: its broker kind is not well formed",
                    metadata: ["kind": .string(factory.kind.rawValue), "problem": .string(problem)]
                )
                continue
            }
            byKind[factory.kind] = factory
        }
        self.factories = byKind
        self.transport = transport
        self.pipeline = pipeline
        self.logger = logger
        self.egress = egress
        self.sandboxes = Mutex([:])
    }

    /// The kinds in a stable order.
    public var kinds: [BrokerKind] { factories.keys.sorted() }

    /// The factory of a kind, or `nil` when this gateway has no adapter for it.
    public func factory(for kind: BrokerKind) -> (any BrokerAdapterFactory)? { factories[kind] }

    /// The adapter for a connection, made on first use.
    public func adapter(
        for connection: ConnectionDescriptor,
        credentials: @Sendable () async throws -> BrokerCredentials,
        saveCredentials: @escaping @Sendable (BrokerCredentials) async throws -> Void = { _ in },
        saveStatus: @escaping @Sendable (ConnectionStatus, [String: String]?) async throws -> Void = { _, _ in }
    ) async throws -> any BrokerAdapter {
        if let cached = cache.withLock({ $0[connection.id] }), cached.version.broker == connection.broker,
            cached.version.baseURL == connection.baseURL, cached.version.settings == connection.settings
        {
            return cached.adapter
        }
        let adapter = try build(
            for: connection,
            credentials: try await credentials(),
            saveCredentials: saveCredentials,
            saveStatus: saveStatus,
            stored: true
        )
        cache.withLock { $0[connection.id] = (connection, adapter) }
        return adapter
    }

    /// A fresh adapter that is not cached: used to validate credentials before a connection is saved. Its calls go
    /// through a pipeline chain of their own (paced and measured, no breaker, no health record), since the
    /// connection has no id yet.
    public func makeAdapter(
        for connection: ConnectionDescriptor,
        credentials: BrokerCredentials,
        saveCredentials: @escaping @Sendable (BrokerCredentials) async throws -> Void = { _ in },
        saveStatus: @escaping @Sendable (ConnectionStatus, [String: String]?) async throws -> Void = { _, _ in }
    ) throws -> any BrokerAdapter {
        try build(
            for: connection,
            credentials: credentials,
            saveCredentials: saveCredentials,
            saveStatus: saveStatus,
            stored: false
        )
    }

    /// An adapter for a connection that is being linked under an id it will be saved with (or already has): its
    /// calls go through that connection's own pipeline chain from the first, so the adapter that proves the link can
    /// go on serving the connection (`adopt`) with the session or tokens the proof left it. Not cached; a link that
    /// fails calls `forget(connectionId:)` for an id that was never saved.
    public func makeLinkAdapter(
        for connection: ConnectionDescriptor,
        credentials: BrokerCredentials,
        saveCredentials: @escaping @Sendable (BrokerCredentials) async throws -> Void,
        saveStatus: @escaping @Sendable (ConnectionStatus, [String: String]?) async throws -> Void
    ) throws -> any BrokerAdapter {
        try build(
            for: connection,
            credentials: credentials,
            saveCredentials: saveCredentials,
            saveStatus: saveStatus,
            stored: true
        )
    }

    /// Makes an adapter that proved a connection's link that connection's cached adapter, replacing any other:
    /// a broker session it opened, or a token pair it rotated, is used rather than opened or spent again.
    public func adopt(_ adapter: any BrokerAdapter, for connection: ConnectionDescriptor) {
        cache.withLock { $0[connection.id] = (connection, adapter) }
    }

    /// An adapter whose every call goes through the pipeline: the connection's own chain when it is stored.
    func build(
        for connection: ConnectionDescriptor,
        credentials: BrokerCredentials,
        saveCredentials: @escaping @Sendable (BrokerCredentials) async throws -> Void,
        saveStatus: @escaping @Sendable (ConnectionStatus, [String: String]?) async throws -> Void,
        stored: Bool
    ) throws -> any BrokerAdapter {
        guard let factory = factories[connection.broker] else {
            throw GatewayError(.notSupported, "no adapter for broker kind '\(connection.broker)'")
        }
        let resolved = try resolve(baseURL: connection.baseURL)
        // Innermost, just above the network: marks each call with the sandbox origin it may reach (none for a
        // connection to a real broker), so a tenant's own loopback URL never inherits a sandbox's exemption.
        let transport = SandboxOriginTransport(wrapping: self.transport, sandboxOrigin: resolved.sandboxOrigin)
        var logger = self.logger
        logger[metadataKey: "connection"] = .string(connection.id)
        logger[metadataKey: "broker"] = .string(connection.broker.rawValue)
        let pipelined =
            stored
            ? pipeline.transport(wrapping: transport, connection: connection, limits: factory.rateLimits, logger: logger)
            : pipeline.ephemeralTransport(
                wrapping: transport,
                broker: connection.broker,
                limits: factory.rateLimits,
                logger: logger
            )
        let context = AdapterContext(
            connection: connection,
            baseURL: resolved.url,
            credentials: credentials,
            transport: pipelined,
            logger: logger,
            saveCredentials: saveCredentials,
            saveStatus: saveStatus,
            sockets: (self.transport as? any BrokerSocketTransport).map {
                SandboxOriginSocketTransport(wrapped: $0, sandboxOrigin: resolved.sandboxOrigin)
            }
        )
        return try factory.makeAdapter(context)
    }

    /// The adapter made for a connection, and the connection as it was then, if one is cached.
    public func cachedAdapter(connectionId: String) -> (connection: ConnectionDescriptor, adapter: any BrokerAdapter)? {
        cache.withLock { $0[connectionId] }.map { ($0.version, $0.adapter) }
    }

    /// Forgets the cached adapter of a connection (deleted, or its credentials changed). Its pipeline state (breaker,
    /// budgets, health) stays: the broker's view of the account has not changed; `forget` drops it too.
    public func evict(connectionId: String) {
        _ = cache.withLock { $0.removeValue(forKey: connectionId) }
    }

    /// Forgets a deleted connection: its cached adapter and its pipeline state.
    public func forget(connectionId: String) {
        evict(connectionId: connectionId)
        pipeline.forget(connectionId: connectionId)
    }
}
