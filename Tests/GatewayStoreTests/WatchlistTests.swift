import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

@Suite("Gateway-side watchlists")
struct WatchlistTests {
    static let aapl = Instrument(symbol: "AAPL", assetClass: .equity, exchange: "XNAS", brokerKey: ["asset_id": "b0b6dd9d"])
    static let eurusd = Instrument(symbol: "EUR/USD", assetClass: .fx, brokerKey: ["uic": "21", "assetType": "FxSpot"])

    @Test("create, get, list, update, delete", arguments: StoreBackend.all)
    func lifecycle(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            let created = try await store.createWatchlist(tenantId: tenant.id, userId: user.id, name: "  Core  ", instruments: [Self.aapl])
            #expect(created.id.hasPrefix("wl_"))
            #expect(created.name == "Core")
            #expect(created.connectionId == nil)
            let fetched = try #require(try await store.watchlist(tenantId: tenant.id, userId: user.id, id: created.id))
            #expect(fetched == created)
            #expect(fetched.instruments.first?.brokerKey == Self.aapl.brokerKey)
            #expect(fetched.instruments.first?.exchange == "XNAS")

            let renamed = try #require(
                try await store.updateWatchlist(tenantId: tenant.id, userId: user.id, id: created.id, name: "Core holdings", instruments: nil)
            )
            #expect(renamed.name == "Core holdings")
            #expect(renamed.instruments == [Self.aapl])
            #expect(try #require(renamed.updatedAt) > (try #require(created.updatedAt)))

            let refilled = try #require(
                try await store.updateWatchlist(
                    tenantId: tenant.id,
                    userId: user.id,
                    id: created.id,
                    name: nil,
                    instruments: [Self.eurusd, Self.aapl]
                )
            )
            #expect(refilled.name == "Core holdings")
            #expect(refilled.instruments == [Self.eurusd, Self.aapl])
            #expect(refilled.instruments.first?.brokerKey == Self.eurusd.brokerKey)
            #expect(try await store.watchlists(tenantId: tenant.id, userId: user.id) == [refilled])

            #expect(try await store.deleteWatchlist(tenantId: tenant.id, userId: user.id, id: created.id))
            #expect(try await store.deleteWatchlist(tenantId: tenant.id, userId: user.id, id: created.id) == false)
            #expect(try await store.watchlist(tenantId: tenant.id, userId: user.id, id: created.id) == nil)
            #expect(try await store.updateWatchlist(tenantId: tenant.id, userId: user.id, id: created.id, name: "x", instruments: nil) == nil)
        }
    }

    @Test("a duplicate name, or a rename onto another list's name, is a conflict", arguments: StoreBackend.all)
    func nameConflicts(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            let tech = try await store.createWatchlist(tenantId: tenant.id, userId: user.id, name: "Tech", instruments: [])
            let fx = try await store.createWatchlist(tenantId: tenant.id, userId: user.id, name: "FX", instruments: [])
            await expectGatewayError(.conflict) {
                try await store.createWatchlist(tenantId: tenant.id, userId: user.id, name: "Tech", instruments: [Self.aapl])
            }
            await expectGatewayError(.conflict) {
                try await store.updateWatchlist(tenantId: tenant.id, userId: user.id, id: fx.id, name: "Tech", instruments: nil)
            }
            // Keeping its own name is not a conflict.
            let same = try await store.updateWatchlist(tenantId: tenant.id, userId: user.id, id: tech.id, name: "Tech", instruments: [Self.aapl])
            #expect(same?.name == "Tech")
            #expect(try await store.watchlists(tenantId: tenant.id, userId: user.id).map(\.name) == ["Tech", "FX"])
        }
    }

    @Test("names must be 1 to 100 characters", arguments: StoreBackend.all, ["", "   ", String(repeating: "x", count: 101)])
    func invalidNames(backend: StoreBackend, name: String) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            await expectGatewayError(.invalidRequest) {
                try await store.createWatchlist(tenantId: tenant.id, userId: user.id, name: name, instruments: [])
            }
            let list = try await store.createWatchlist(tenantId: tenant.id, userId: user.id, name: "ok", instruments: [])
            await expectGatewayError(.invalidRequest) {
                try await store.updateWatchlist(tenantId: tenant.id, userId: user.id, id: list.id, name: name, instruments: nil)
            }
            let longest = try await store.createWatchlist(
                tenantId: tenant.id,
                userId: user.id,
                name: String(repeating: "é", count: 100),
                instruments: []
            )
            #expect(longest.name.count == 100)
        }
    }

    @Test("watchlists are listed oldest first, in a stable order", arguments: StoreBackend.all)
    func stableOrder(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            var created: [Watchlist] = []
            for index in 0..<8 {
                created.append(try await store.createWatchlist(tenantId: tenant.id, userId: user.id, name: "list \(index)", instruments: []))
            }
            #expect(try await store.watchlists(tenantId: tenant.id, userId: user.id) == created)
            _ = try await store.updateWatchlist(tenantId: tenant.id, userId: user.id, id: created[0].id, name: "renamed", instruments: nil)
            #expect(try await store.watchlists(tenantId: tenant.id, userId: user.id).map(\.id) == created.map(\.id))
        }
    }
}
