import Foundation
public import GatewayCore
public import GatewayModel
import Logging
import Synchronization

/// Saxo OpenAPI (SIM or live, or the built-in sandbox) as a `BrokerAdapter`, for one connection.
///
/// Every call carries an OAuth access token that `SaxoTokenManager` keeps fresh (refreshed before it expires, and
/// once after a 401, for all concurrent callers at once). Saxo addresses accounts by `AccountKey` and clients by
/// `ClientKey`, so the adapter learns the connection's accounts once (`port/v1/accounts/me`) and maps the
/// `AccountId`s callers use; instruments are addressed by `Uic` + `AssetType`, resolved from canonical symbols
/// through `ref/v1/instruments` and remembered.
public struct SaxoAdapter: BrokerAdapter {
    /// Always `.saxo`.
    public var kind: BrokerKind { .saxo }
    /// What Saxo supports, emulates or refuses (see `SaxoAdapterFactory`).
    public var capabilities: Capabilities { SaxoAdapterFactory.saxoCapabilities }

    let context: AdapterContext
    let configuration: SaxoConfiguration
    let session: Session
    let tokens: SaxoTokenManager

    /// Per-connection state shared by every copy of the adapter.
    final class Session: Sendable {
        let accounts = Mutex<[SaxoAccount]?>(nil)
        let clientKey = Mutex<String?>(nil)
        /// Instruments seen, by `"<Uic>|<AssetType>"`.
        let instruments = Mutex<[String: Instrument]>([:])
        /// Canonical references resolved, by `"<assetClass>|<SYMBOL>"`.
        let resolutions = Mutex<[String: Instrument]>([:])
    }

    /// Binds the adapter to one connection, with its own token manager; makes no call.
    public init(context: AdapterContext, configuration: SaxoConfiguration) {
        self.context = context
        self.configuration = configuration
        self.session = Session()
        self.tokens = SaxoTokenManager(configuration: configuration, context: context)
    }

    var connectionId: String { context.connection.id }

    // MARK: Account

    /// Obtains (or refreshes) a token, then reads `port/v1/users/me`.
    public func validateCredentials() async throws {
        _ = try await fetch(SaxoUser.self, .usersMe())
        // A token that cannot be renewed: the connection says when it stops working.
        if configuration.credentials.refreshToken == nil {
            var detail = [
                "reason": "linked with an access token alone (no refresh token): it cannot be renewed, so link again "
                    + "with a new token before it expires"
            ]
            if let expiresAt = configuration.credentials.accessTokenExpiresAt {
                detail["expiresAt"] = RFC3339Timestamp.format(expiresAt)
            }
            try await context.saveStatus(.active, detail)
        }
    }

    /// The connection's client from `port/v1/clients/me`; its `ClientKey` is remembered for balance and position reads.
    public func clients() async throws -> [Client] {
        let client = try await fetch(SaxoClient.self, .clientsMe())
        session.clientKey.withLock { $0 = client.clientKey }
        return [Client(saxo: client, connectionId: connectionId)]
    }

    /// The connection's accounts from `port/v1/accounts/me`, read fresh and remembered for mapping `AccountId`s to
    /// `AccountKey`s.
    public func accounts() async throws -> [Account] {
        try await saxoAccounts(fresh: true).map { try Account(saxo: $0, connectionId: connectionId) }
    }

    /// `port/v1/balances?ClientKey=&AccountKey=` for each account (at most `accountConcurrency` at once).
    public func balances(accountId: String?) async throws -> [Balance] {
        let accounts = try await saxoAccounts(matching: accountId)
        let clientKey = try await self.clientKey()
        let connectionId = self.connectionId
        return try await boundedMap(accounts, limit: configuration.accountConcurrency) { account in
            let balance = try await fetch(
                SaxoBalance.self,
                .balances(clientKey: account.clientKey ?? clientKey, accountKey: account.accountKey)
            )
            return try Balance(
                saxo: balance,
                connectionId: connectionId,
                accountId: account.accountId,
                fallbackCurrency: account.currency ?? "",
                asOf: nil
            )
        }
    }

    /// `port/v1/netpositions` with `DisplayAndFormat,NetPositionBase,NetPositionView`, for each account. Net
    /// positions with amount 0 (closed today) are left out.
    public func positions(accountId: String?) async throws -> [Position] {
        let accounts = try await saxoAccounts(matching: accountId)
        let clientKey = try await self.clientKey()
        let connectionId = self.connectionId
        let perAccount = try await boundedMap(accounts, limit: configuration.accountConcurrency) { account in
            let items = try await fetchList(
                SaxoNetPosition.self,
                .netPositions(clientKey: account.clientKey ?? clientKey, accountKey: account.accountKey)
            )
            return try items.compactMap {
                try Position(saxo: $0, connectionId: connectionId, accountId: account.accountId)
            }
        }
        let positions = perAccount.flatMap { $0 }
        remember(positions.map(\.instrument))
        return positions
    }

    // MARK: Watchlists

    /// Saxo's current reference documentation has no watchlist resource; the 2018 seed describes
    /// `ref/v1/watchlists`. The adapter asks for it and reports no broker-side lists when Saxo answers 404 (an
    /// unknown route); the gateway's own watchlists cover the rest.
    public func watchlists() async throws -> [Watchlist] {
        let response = try await exchange(.watchlists())
        if response.status == 404 { return [] }
        guard (200..<300).contains(response.status) else { throw SaxoErrors.error(for: response) }
        let lists = try decode(SaxoList<SaxoWatchlist>.self, from: response, what: "/ref/v1/watchlists").data
        var result: [Watchlist] = []
        for list in lists {
            guard let id = list.id else { continue }
            let items = try await fetch(SaxoWatchlistDetail.self, .watchlist(id: id)).items
            // Items that name themselves map directly; the others are looked up by Uic.
            let named = items.compactMap { item -> Instrument? in
                guard let symbol = item.symbol, let assetType = item.assetType else { return nil }
                return Instrument(saxoSymbol: symbol, assetType: assetType, uic: item.uic, name: item.description, currency: nil)
            }
            remember(named)
            let identities = items.compactMap { item in item.uic.flatMap { uic in item.assetType.map { (uic, $0) } } }
            let known = try await instruments(for: identities)
            let instruments = identities.compactMap { known[Self.key(uic: $0.0, assetType: $0.1)] }
            if let watchlist = Watchlist(saxo: list, instruments: instruments, connectionId: connectionId) {
                result.append(watchlist)
            }
        }
        return result
    }

    /// Refused: Saxo documents no call to create a watchlist (see ``watchlists()``).
    public func createWatchlist(name: String, instruments: [InstrumentReference]) async throws -> Watchlist {
        throw GatewayError.notSupported("creating watchlists", broker: .saxo)
    }

    /// Refused: Saxo documents no call to change a watchlist (see ``watchlists()``).
    public func updateWatchlist(id: String, name: String?, instruments: [InstrumentReference]?) async throws -> Watchlist {
        throw GatewayError.notSupported("changing watchlists", broker: .saxo)
    }

    /// Refused: Saxo documents no call to delete a watchlist (see ``watchlists()``).
    public func deleteWatchlist(id: String) async throws {
        throw GatewayError.notSupported("deleting watchlists", broker: .saxo)
    }

    // MARK: Helpers

    /// The connection's accounts: remembered after the first read unless `fresh`.
    func saxoAccounts(fresh: Bool = false) async throws -> [SaxoAccount] {
        if !fresh, let known = session.accounts.withLock({ $0 }) { return known }
        let accounts = try await fetchList(SaxoAccount.self, .accountsMe())
        session.accounts.withLock { $0 = accounts }
        if let key = accounts.lazy.compactMap(\.clientKey).first {
            session.clientKey.withLock { $0 = $0 ?? key }
        }
        return accounts
    }

    /// Every account, or the one named (`not_found` when the connection has no such account).
    func saxoAccounts(matching accountId: String?) async throws -> [SaxoAccount] {
        let accounts = try await saxoAccounts()
        guard let accountId else { return accounts }
        return [try await saxoAccount(accountId)]
    }

    func saxoAccount(_ accountId: String) async throws -> SaxoAccount {
        if let account = try await saxoAccounts().first(where: { $0.accountId == accountId }) { return account }
        // An account opened since the list was read.
        if let account = try await saxoAccounts(fresh: true).first(where: { $0.accountId == accountId }) { return account }
        throw GatewayError(.notFound, "this Saxo connection has no account '\(accountId)'", broker: .saxo)
    }

    /// The connection's `ClientKey`: from the accounts, else `port/v1/clients/me`.
    func clientKey() async throws -> String {
        if let key = session.clientKey.withLock({ $0 }) { return key }
        if let key = try await saxoAccounts().lazy.compactMap(\.clientKey).first {
            session.clientKey.withLock { $0 = key }
            return key
        }
        let client = try await fetch(SaxoClient.self, .clientsMe())
        session.clientKey.withLock { $0 = client.clientKey }
        return client.clientKey
    }

    static func key(uic: Int, assetType: String) -> String { "\(uic)|\(assetType)" }

    /// Remembers instruments by their Saxo identity, to name orders that arrive without `DisplayAndFormat`.
    func remember(_ instruments: [Instrument]) {
        let pairs = instruments.compactMap { instrument in
            instrument.saxoIdentity.map { (Self.key(uic: $0.uic, assetType: $0.assetType), instrument) }
        }
        guard !pairs.isEmpty else { return }
        session.instruments.withLock { known in
            for (key, instrument) in pairs where known[key] == nil { known[key] = instrument }
        }
    }
}
