import Foundation
import SandboxKit

/// `balance/getAccountOverview` and `position/getPositions`.
extension TradeItRoutes {
    func accountOverview(_ body: TradeItFields, v1: Bool) throws -> JSON {
        let token = body.string("token")
        let market = self.market
        let valuation = try sandbox.withBook(token: token, accountNumber: body.string("accountNumber")) { book in
            book.valuation(market: market)
        }
        return TradeItWire.accountOverview(valuation, token: token, v1: v1)
    }

    func positions(_ body: TradeItFields) throws -> JSON {
        let token = body.string("token")
        let page: Int
        if let text = body.string("page") {
            guard let value = Int(text), value >= 0 else { throw TradeItAPIError.parameter("page must be a whole number, 0 or more.") }
            page = value
        } else {
            page = 0
        }
        let size = configuration.positionsPageSize
        let market = self.market
        let holdings = try sandbox.withBook(token: token, accountNumber: body.string("accountNumber")) { book in
            book.holdings.sorted { $0.key < $1.key }
        }
        let totalPages = max(1, (holdings.count + size - 1) / size)
        let positions: [JSON] = holdings.dropFirst(page * size).prefix(size).compactMap { symbol, holding in
            guard let instrument = market.instrument(symbol: symbol), let quote = market.quote(symbol: symbol) else { return nil }
            return TradeItWire.position(symbol: symbol, holding: holding, instrument: instrument, quote: quote)
        }
        return TradeItWire.positions(positions, page: page, totalPages: totalPages, token: token)
    }
}
