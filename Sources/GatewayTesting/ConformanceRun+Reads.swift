import Foundation
import GatewayCore
import GatewayModel

/// The account, market-data and watchlist checks.
extension ConformanceRun {
    func accountChecks(_ adapter: any BrokerAdapter) async {
        let connectionId = connection.id
        let kind = self.kind
        await operation(
            .clients,
            declared: {
                let clients = try await call { try await adapter.clients() }
                try expect(!clients.isEmpty, "clients() answered no client: a linked login reaches at least one")
                for client in clients {
                    try expect(!client.id.isEmpty, "a client has an empty id")
                    try expect(client.connectionId == connectionId, "client \(client.id) has connectionId '\(client.connectionId)'")
                    try expect(client.broker == kind, "client \(client.id) says broker \(client.broker)")
                }
                return "\(clients.count) client(s) of the connection"
            },
            undeclared: { try await expectRefusal("clients") { try await adapter.clients() } }
        )
        await operation(
            .accounts,
            declared: {
                let accounts = try await call { try await adapter.accounts() }
                try expect(!accounts.isEmpty, "accounts() answered no account")
                for account in accounts {
                    try expect(!account.id.isEmpty, "an account has an empty id")
                    try expect(
                        account.connectionId == connectionId,
                        "account \(account.id) has connectionId '\(account.connectionId)', not the link's \(connectionId)"
                    )
                    try expect(account.broker == kind, "account \(account.id) says broker \(account.broker)")
                    try expect(!account.currency.isEmpty, "account \(account.id) has no currency")
                }
                let ids = accounts.map(\.id)
                self.accountIds = ids
                try expect(Set(ids).count == ids.count, "accounts() lists an id twice: \(ids)")
                if let wanted = target.accountId {
                    try expect(ids.contains(wanted), "the target's account \(wanted) is not among \(ids)")
                }
                self.accountId = target.accountId ?? ids.first
                return "\(accounts.count) account(s), all of the connection"
            },
            undeclared: {
                self.accountId = target.accountId
                self.accountIds = target.accountId.map { [$0] } ?? []
                return try await expectRefusal("accounts") { try await adapter.accounts() }
            }
        )
        let accountIds = self.accountIds
        let accountId = self.accountId
        await operation(
            .balances,
            declared: {
                let all = try await call { try await adapter.balances(accountId: nil) }
                try checkBalances(all, accountIds: accountIds)
                guard let accountId else { return "\(all.count) balance(s)" }
                let one = try await call { try await adapter.balances(accountId: accountId) }
                try checkBalances(one, accountIds: [accountId])
                return "\(all.count) balance(s) in all, \(one.count) of account \(accountId), all of the link's accounts"
            },
            undeclared: { try await expectRefusal("balances") { try await adapter.balances(accountId: nil) } }
        )
        await operation(
            .positions,
            declared: {
                let positions = try await call { try await adapter.positions(accountId: nil) }
                for position in positions {
                    let name = "position \(position.instrument.symbol)"
                    try expect(position.connectionId == connectionId, "\(name) has connectionId '\(position.connectionId)'")
                    try expect(accountIds.contains(position.accountId), "\(name) is of account '\(position.accountId)', not one of \(accountIds)")
                    try expect(!position.instrument.symbol.isEmpty, "a position has an empty symbol")
                    try expect(position.quantity.isSane && position.quantity != 0, "\(name) has quantity \(position.quantity)")
                    try expect(!position.currency.isEmpty, "\(name) has no currency")
                    for (field, value) in [
                        ("averagePrice", position.averagePrice), ("marketValue", position.marketValue), ("lastPrice", position.lastPrice),
                    ] {
                        if let value { try expect(value.isSane, "\(name)'s \(field) is NaN") }
                    }
                    if let price = position.lastPrice { try expect(price >= 0, "\(name)'s lastPrice is negative (\(price))") }
                }
                return "\(positions.count) position(s), all of the link's accounts"
            },
            undeclared: { try await expectRefusal("positions") { try await adapter.positions(accountId: nil) } }
        )
    }

    func checkBalances(_ balances: [Balance], accountIds: [String]) throws {
        for balance in balances {
            let name = "balance \(balance.currency) of \(balance.accountId)"
            try expect(balance.connectionId == connection.id, "\(name) has connectionId '\(balance.connectionId)'")
            try expect(accountIds.contains(balance.accountId), "\(name) is not of one of \(accountIds)")
            try expect(!balance.currency.isEmpty, "a balance of \(balance.accountId) has no currency")
            try expect(
                balance.total.isSane && balance.available.isSane && balance.held.isSane,
                "\(name) has a NaN amount"
            )
            try expect(balance.held >= 0, "\(name) holds a negative amount (\(balance.held))")
        }
    }

    func marketDataChecks(_ adapter: any BrokerAdapter) async {
        let instrument = target.instrument
        let symbol = instrument.symbol
        let connectionId = connection.id
        await operation(
            .quotes,
            declared: {
                let quotes = try await call { try await adapter.quotes([instrument]) }
                try expect(quotes.count == 1, "quotes([\(symbol)]) answered \(quotes.count) quotes, not 1")
                let quote = quotes[0]
                try expect(quote.instrument.symbol.uppercased() == symbol.uppercased(), "the quote is of \(quote.instrument.symbol), not \(symbol)")
                if let id = quote.connectionId { try expect(id == connectionId, "the quote has connectionId '\(id)'") }
                for (field, value) in [("bid", quote.bid), ("ask", quote.ask), ("last", quote.last)] {
                    if let value { try expect(value.isSane && value > 0, "the quote's \(field) is \(value)") }
                }
                try expect(quote.bid != nil || quote.ask != nil || quote.last != nil, "the quote of \(symbol) has no price at all")
                if let bid = quote.bid, let ask = quote.ask { try expect(bid <= ask, "the quote's bid \(bid) is above its ask \(ask)") }
                return "a quote of \(symbol)"
            },
            undeclared: { try await expectRefusal("quotes") { try await adapter.quotes([instrument]) } }
        )
        let text = target.searchText
        await operation(
            .searchInstruments,
            declared: {
                let found = try await call { try await adapter.searchInstruments(text, assetClass: nil) }
                try expect(!found.isEmpty, "searching '\(text)' found nothing")
                try expect(found.allSatisfy { !$0.symbol.isEmpty }, "an instrument found has an empty symbol")
                return "'\(text)' found \(found.count) instrument(s)"
            },
            undeclared: { try await expectRefusal("searchInstruments") { try await adapter.searchInstruments(text, assetClass: nil) } }
        )
        let interval = target.candleInterval
        await operation(
            .candles,
            declared: {
                let series = try await call { try await adapter.candles(instrument, interval: interval, count: 5) }
                try expect(series.instrument.symbol.uppercased() == symbol.uppercased(), "the candles are of \(series.instrument.symbol)")
                try expect(series.interval == interval, "the candles are \(series.interval), not \(interval)")
                try expect(series.candles.count <= 5, "5 candles asked, \(series.candles.count) answered")
                let times = series.candles.map(\.time)
                try expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "the candles are not oldest first, one per time")
                for candle in series.candles {
                    let prices = [candle.open, candle.high, candle.low, candle.close]
                    try expect(prices.allSatisfy { $0.isSane && $0 >= 0 }, "a candle at \(candle.time) has a NaN or negative price")
                    try expect(
                        candle.low <= min(candle.open, candle.close) && candle.high >= max(candle.open, candle.close),
                        "the candle at \(candle.time) has open/close outside low...high"
                    )
                }
                return "\(series.candles.count) candle(s) of \(interval.rawValue), oldest first"
            },
            undeclared: {
                try await expectRefusal("candles") { try await adapter.candles(instrument, interval: interval, count: 5) }
            }
        )
        await operation(
            .orderBook,
            declared: {
                let book = try await call { try await adapter.orderBook(instrument, depth: 5) }
                try expect(book.instrument.symbol.uppercased() == symbol.uppercased(), "the book is of \(book.instrument.symbol)")
                try expect(book.bids.count <= 5 && book.asks.count <= 5, "depth 5 asked, \(book.bids.count)/\(book.asks.count) levels answered")
                for level in book.bids + book.asks {
                    try expect(
                        level.price.isSane && level.price > 0 && level.size.isSane && level.size > 0,
                        "a level is \(level.size) at \(level.price)"
                    )
                }
                let bids = book.bids.map(\.price)
                let asks = book.asks.map(\.price)
                try expect(zip(bids, bids.dropFirst()).allSatisfy { $0 > $1 }, "the bids are not highest first")
                try expect(zip(asks, asks.dropFirst()).allSatisfy { $0 < $1 }, "the asks are not lowest first")
                if let bid = bids.first, let ask = asks.first { try expect(bid < ask, "the book is crossed: bid \(bid), ask \(ask)") }
                return "\(book.bids.count) bid and \(book.asks.count) ask level(s), in canonical order"
            },
            undeclared: { try await expectRefusal("orderBook") { try await adapter.orderBook(instrument, depth: 5) } }
        )
    }

    func watchlistChecks(_ adapter: any BrokerAdapter) async {
        let instrument = target.instrument
        let name = "conformance-\(UUID().uuidString.prefix(8).lowercased())"
        let listing = declares(.watchlists)
        await operation(
            .watchlists,
            declared: {
                let lists = try await call { try await adapter.watchlists() }
                for list in lists {
                    try expect(!list.id.isEmpty && !list.name.isEmpty, "a watchlist has an empty id or name")
                }
                return "\(lists.count) watchlist(s)"
            },
            undeclared: { try await expectRefusal("watchlists") { try await adapter.watchlists() } }
        )
        var created: Watchlist?
        await operation(
            .createWatchlist,
            declared: {
                let list = try await call { try await adapter.createWatchlist(name: name, instruments: [instrument]) }
                created = list
                try expect(!list.id.isEmpty, "the created watchlist has an empty id")
                try expect(list.name == name, "the created watchlist is named '\(list.name)', not '\(name)'")
                try expect(
                    list.instruments.map { $0.symbol.uppercased() } == [instrument.symbol.uppercased()],
                    "the created watchlist holds \(list.instruments.map(\.symbol)), not [\(instrument.symbol)]"
                )
                if listing {
                    let lists = try await call { try await adapter.watchlists() }
                    try expect(lists.contains { $0.id == list.id }, "watchlists() does not list the one just created")
                }
                return "created '\(name)' holding \(instrument.symbol)"
            },
            undeclared: {
                try await expectRefusal("createWatchlist") { try await adapter.createWatchlist(name: name, instruments: [instrument]) }
            }
        )
        let missing = "conformance-missing-watchlist"
        await operation(
            .updateWatchlist,
            declared: {
                guard let list = created else { return "not exercised: no watchlist could be created (createWatchlist)" }
                let renamed = name + "-renamed"
                let updated = try await call { try await adapter.updateWatchlist(id: list.id, name: renamed, instruments: nil) }
                try expect(updated.id == list.id, "the renamed watchlist's id changed from \(list.id) to \(updated.id)")
                try expect(updated.name == renamed, "the renamed watchlist is named '\(updated.name)', not '\(renamed)'")
                try expect(
                    updated.instruments.map { $0.symbol.uppercased() } == list.instruments.map { $0.symbol.uppercased() },
                    "renaming alone changed the instruments to \(updated.instruments.map(\.symbol))"
                )
                return "renamed, instruments kept"
            },
            undeclared: {
                let id = created?.id ?? missing
                return try await expectRefusal("updateWatchlist") { try await adapter.updateWatchlist(id: id, name: "x", instruments: nil) }
            }
        )
        await operation(
            .deleteWatchlist,
            declared: {
                guard let list = created else { return "not exercised: no watchlist could be created (createWatchlist)" }
                try await call { try await adapter.deleteWatchlist(id: list.id) }
                if listing {
                    let lists = try await call { try await adapter.watchlists() }
                    try expect(!lists.contains { $0.id == list.id }, "watchlists() still lists the deleted watchlist")
                }
                return "deleted"
            },
            undeclared: {
                let id = created?.id ?? missing
                return try await expectRefusal("deleteWatchlist") { try await adapter.deleteWatchlist(id: id) }
            }
        )
    }
}
