public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore

/// A watchlist as a client creates (`POST`) or changes (`PUT`) it.
public struct WatchlistInput: Sendable, Hashable {
    /// The list's name; required when creating.
    public var name: String?
    /// The instruments, in order; a change replaces them all.
    public var instruments: [InstrumentReference]?
    /// Create the list at this connection's broker instead of in the gateway (creation only).
    public var connectionId: String?

    /// An input as the API decoded it.
    public init(name: String? = nil, instruments: [InstrumentReference]? = nil, connectionId: String? = nil) {
        self.name = name
        self.instruments = instruments
        self.connectionId = connectionId
    }

    func problems(creating: Bool) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        if let name {
            if name.trimmingCharacters(in: .whitespaces).isEmpty || name.count > 100 {
                problems.append(FieldProblem(field: "name", problem: "must be 1 to 100 characters"))
            }
        } else if creating {
            problems.append(FieldProblem(field: "name", problem: "is required"))
        }
        if let instruments {
            if instruments.count > 200 { problems.append(FieldProblem(field: "instruments", problem: "must have at most 200 entries")) }
            for (index, instrument) in instruments.enumerated() where instrument.symbol.isEmpty || instrument.symbol.count > 32 {
                problems.append(FieldProblem(field: "instruments[\(index)].symbol", problem: "must be 1 to 32 characters"))
            }
        }
        if !creating, name == nil, instruments == nil {
            problems.append(FieldProblem(field: "body", problem: "must change name or instruments"))
        }
        if !creating, connectionId != nil {
            problems.append(FieldProblem(field: "connectionId", problem: "cannot be changed"))
        }
        return problems
    }
}

/// The gateway's own watchlists (in the store) and each broker's (behind opaque ids).
extension WatchlistService {
    static let brokerWatchlistPrefix = "bwl_"

    func gatewayWatchlist(_ watchlist: Watchlist, connection: ConnectionDescriptor) -> Watchlist {
        var watchlist = watchlist
        watchlist.id = OpaqueID.make(prefix: Self.brokerWatchlistPrefix, connectionId: connection.id, brokerId: watchlist.id)
        watchlist.connectionId = connection.id
        return watchlist
    }

    /// The gateway's own watchlists first, then each broker's, with a source line per broker.
    public func watchlists(owner: Owner, _ selection: Gateway.Selection) async throws -> FanOut<Watchlist> {
        let tenant = owner.tenant
        let gateway = self
        var result: FanOut<Watchlist> = try await fanOut(owner: owner, selection, operation: .watchlists, sharing: "") {
            adapter,
            connection -> [Watchlist] in
            guard adapter.capabilities.support(for: .watchlists) == .supported else { return [] }
            return try await adapter.watchlists().map { gateway.gatewayWatchlist($0, connection: connection) }
        }
        if selection.connectionId == nil, selection.broker == nil {
            result.data.insert(contentsOf: try await store.watchlists(tenantId: tenant.id, userId: owner.userId), at: 0)
        }
        return result
    }

    /// One of the user's watchlists, the gateway's or a broker's (read from the broker).
    public func watchlist(owner: Owner, id: String) async throws -> Watchlist {
        let tenant = owner.tenant
        if let (connection, adapter, brokerId) = try await brokerWatchlistTarget(owner: owner, id: id) {
            let lists = try await withDeadline(router.perSourceTimeout) { try await adapter.watchlists() }
            guard let found = lists.first(where: { $0.id == brokerId }) else { throw GatewayError(.notFound, "no watchlist '\(id)'") }
            return gatewayWatchlist(found, connection: connection)
        }
        guard let watchlist = try await store.watchlist(tenantId: tenant.id, userId: owner.userId, id: id) else {
            throw GatewayError(.notFound, "no watchlist '\(id)'")
        }
        return watchlist
    }

    /// Creates a watchlist in the gateway, or at the broker of `input.connectionId`.
    public func createWatchlist(owner: Owner, _ input: WatchlistInput) async throws -> Watchlist {
        let tenant = owner.tenant
        let problems = input.problems(creating: true)
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        let name = input.name ?? ""
        let instruments = input.instruments ?? []
        if let connectionId = input.connectionId {
            let connection = try await directory.activeConnection(owner: owner, id: connectionId, field: "connectionId")
            let adapter = try await directory.adapter(for: connection)
            guard adapter.capabilities.support(for: .createWatchlist) == .supported else {
                throw GatewayError.notSupported("watchlists", broker: connection.broker)
            }
            defer { directory.invalidateReads(connection: connection.id) }
            let created = try await withDeadline(router.perSourceTimeout) { try await adapter.createWatchlist(name: name, instruments: instruments) }
            return gatewayWatchlist(created, connection: connection)
        }
        return try await store.createWatchlist(tenantId: tenant.id, userId: owner.userId, name: name, instruments: instruments.map(Self.instrument))
    }

    /// Changes a watchlist's name or instruments, where it lives.
    public func updateWatchlist(owner: Owner, id: String, _ input: WatchlistInput) async throws -> Watchlist {
        let tenant = owner.tenant
        let problems = input.problems(creating: false)
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        if let (connection, adapter, brokerId) = try await brokerWatchlistTarget(owner: owner, id: id) {
            defer { directory.invalidateReads(connection: connection.id) }
            let updated = try await withDeadline(router.perSourceTimeout) {
                try await adapter.updateWatchlist(id: brokerId, name: input.name, instruments: input.instruments)
            }
            return gatewayWatchlist(updated, connection: connection)
        }
        guard
            let updated = try await store.updateWatchlist(
                tenantId: tenant.id,
                userId: owner.userId,
                id: id,
                name: input.name,
                instruments: input.instruments?.map(Self.instrument)
            )
        else {
            throw GatewayError(.notFound, "no watchlist '\(id)'")
        }
        return updated
    }

    /// Deletes one of the user's watchlists, where it lives.
    public func deleteWatchlist(owner: Owner, id: String) async throws {
        let tenant = owner.tenant
        if let (connection, adapter, brokerId) = try await brokerWatchlistTarget(owner: owner, id: id) {
            defer { directory.invalidateReads(connection: connection.id) }
            try await withDeadline(router.perSourceTimeout) { try await adapter.deleteWatchlist(id: brokerId) }
            return
        }
        guard try await store.deleteWatchlist(tenantId: tenant.id, userId: owner.userId, id: id) else {
            throw GatewayError(.notFound, "no watchlist '\(id)'")
        }
    }

    func brokerWatchlistTarget(owner: Owner, id: String) async throws -> (ConnectionDescriptor, any BrokerAdapter, String)? {
        let tenant = owner.tenant
        guard id.hasPrefix(Self.brokerWatchlistPrefix) else { return nil }
        guard let (connectionId, brokerId) = OpaqueID.parse(id, prefix: Self.brokerWatchlistPrefix),
            let connection = try await store.connection(tenantId: tenant.id, id: connectionId), owner.owns(connection)
        else { throw GatewayError(.notFound, "no watchlist '\(id)'") }
        if connection.status != .active { throw ConnectionDirectory.statusError(connection) }
        return (connection, try await directory.adapter(for: connection), brokerId)
    }

    static func instrument(_ reference: InstrumentReference) -> Instrument {
        let assetClass = reference.impliedAssetClass
        return Instrument(
            symbol: reference.symbol,
            assetClass: assetClass,
            currency: Instrument(symbol: reference.symbol, assetClass: assetClass).pair?.quote
        )
    }
}
