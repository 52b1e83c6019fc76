import Foundation
import Hummingbird
import SandboxKit

/// Historical bars (`/v2/stocks/bars`, `/v2/stocks/{symbol}/bars`, `/v1beta3/crypto/us/bars`) and snapshots
/// (`/v2/stocks/snapshots`, `/v2/stocks/{symbol}/snapshot`, `/v1beta3/crypto/us/snapshots`), all sampled from the
/// shared market (``MarketBars``), so a bar, a snapshot and a latest quote of one moment agree.
///
/// Bars run from `start` (default: the start of the current day) to `end` (default: now), both inclusive on the bar's
/// opening time, `limit` (1–10,000, default 1,000) bars per page across all symbols, symbols in alphabetical order,
/// `sort` `asc` (default) or `desc`; a page that stops early says where the next one begins in `next_page_token`.
/// There is no data before 2016 (Alpaca's history starts there). With market hours `regular`, stock bars exist only
/// where the extended session (04:00–20:00 New York, weekdays) trades; crypto trades around the clock.
extension AlpacaRoutes {
    static let maximumBarLimit = 10_000
    static let defaultBarLimit = 1_000
    /// 2016-01-01T00:00:00Z.
    static let earliestBar: Int64 = 1_451_606_400
    static let adjustments: Set<String> = ["raw", "split", "dividend", "spin-off", "all"]

    struct BarQuery {
        var timeframe: AlpacaTimeframe
        var start: Int64?
        var end: Int64?
        var limit: Int
        var descending: Bool
        var pageToken: (symbol: String, start: Int64)?
    }

    // MARK: Parsing

    static func barQuery(_ request: Request, stocks: Bool) throws -> BarQuery {
        let query = request.queryParameters
        guard let timeframeText = query["timeframe"], !timeframeText.isEmpty else { throw badRequest("missing timeframe") }
        guard let timeframe = AlpacaTimeframe(timeframeText) else { throw badRequest("invalid timeframe") }
        func instant(_ name: String) throws -> Int64? {
            guard let text = query[name], !text.isEmpty else { return nil }
            guard let date = Timestamp.parse(text) else { throw badRequest("invalid \(name): \(text) (use RFC 3339 or YYYY-MM-DD)") }
            return Int64(date.timeIntervalSince1970.rounded(.up))
        }
        let start = try instant("start")
        let end = try instant("end")
        if let start, let end, end < start { throw badRequest("end should not be before start") }
        var limit = defaultBarLimit
        if let text = query["limit"], !text.isEmpty {
            guard let value = Int(text), (1...maximumBarLimit).contains(value) else {
                throw badRequest("invalid limit: must be between 1 and \(maximumBarLimit)")
            }
            limit = value
        }
        var descending = false
        if let sort = query["sort"], !sort.isEmpty {
            guard sort == "asc" || sort == "desc" else { throw badRequest("invalid sort: must be asc or desc") }
            descending = sort == "desc"
        }
        if stocks {
            if let feed = query["feed"], !feed.isEmpty, !feeds.contains(feed) { throw badRequest("invalid feed") }
            if let adjustment = query["adjustment"], !adjustment.isEmpty,
                !adjustment.split(separator: ",").allSatisfy({ adjustments.contains(String($0)) })
            {
                throw badRequest("invalid adjustment")
            }
        }
        var pageToken: (symbol: String, start: Int64)?
        if let token = query["page_token"], !token.isEmpty {
            guard let parsed = Self.parsePageToken(token) else { throw badRequest("invalid page_token") }
            pageToken = (parsed.0, parsed.1)
        }
        return BarQuery(timeframe: timeframe, start: start, end: end, limit: limit, descending: descending, pageToken: pageToken)
    }

    /// Tokens are base64 of `SYMBOL|unix seconds of the next bar`, opaque to clients as Alpaca's are.
    static func pageToken(symbol: String, start: Int64) -> String {
        Data("\(symbol)|\(start)".utf8).base64EncodedString()
    }

    static func parsePageToken(_ token: String) -> (String, Int64)? {
        guard token.count <= 512, let data = Data(base64Encoded: token), let text = String(data: data, encoding: .utf8),
            let bar = text.lastIndex(of: "|"), let seconds = Int64(text[text.index(after: bar)...])
        else { return nil }
        return (String(text[..<bar]), seconds)
    }

    // MARK: Bars

    func stockBars(_ request: Request, symbol: String?) throws -> Response {
        let query = try Self.barQuery(request, stocks: true)
        if let symbol {
            let instrument = sandbox.assets.resolve(symbol).flatMap { $0.assetClass == .equity ? $0 : nil }
            let page = bars(of: instrument.map { [$0] } ?? [], query, zone: .newYork)
            return .json([
                "bars": .array(page.bars.first?.bars ?? []),
                "symbol": .string(instrument?.symbol ?? symbol.uppercased()),
                "next_page_token": page.next.map(JSON.string) ?? .null,
            ])
        }
        guard let list = request.queryParameters["symbols"], !list.isEmpty else { throw Self.badRequest("missing symbols") }
        var instruments: [MarketInstrument] = []
        for raw in list.split(separator: ",") {
            let requested = raw.trimmingCharacters(in: .whitespaces).uppercased()
            if let instrument = sandbox.assets.resolve(requested), instrument.assetClass == .equity,
                !instruments.contains(where: { $0.symbol == instrument.symbol })
            {
                instruments.append(instrument)
            }
        }
        return .json(Self.barPage(bars(of: instruments, query, zone: .newYork)))
    }

    func cryptoBars(_ request: Request, _ context: SandboxRequestContext) throws -> Response {
        let instruments = try cryptoInstruments(request, context)
        let query = try Self.barQuery(request, stocks: false)
        return .json(Self.barPage(bars(of: instruments, query, zone: .chicago)))
    }

    static func barPage(_ page: (bars: [(symbol: String, bars: [JSON])], next: String?)) -> JSON {
        [
            "bars": .object(page.bars.map { JSON.Member(key: $0.symbol, value: .array($0.bars)) }),
            "next_page_token": page.next.map(JSON.string) ?? .null,
        ]
    }

    /// One page of bars: symbols in alphabetical order, each one's bars in the query's order, `limit` in all.
    func bars(
        of instruments: [MarketInstrument],
        _ query: BarQuery,
        zone: AlpacaBarCalendar.Zone
    ) -> (bars: [(symbol: String, bars: [JSON])], next: String?) {
        let market = sandbox.market
        let now = market.now
        let nowSeconds = Timestamp.unixSeconds(now)
        let calendar = AlpacaBarCalendar(timeframe: query.timeframe, zone: zone)
        let today = AlpacaBarCalendar(timeframe: AlpacaTimeframe.oneDay, zone: zone).start(containing: nowSeconds)
        let first = max(query.start ?? today, Self.earliestBar)
        let last = min(query.end ?? nowSeconds, nowSeconds)
        let keepsHours = sandbox.configuration.marketHours == .regular
        var remaining = query.limit
        var result: [(symbol: String, bars: [JSON])] = []
        for instrument in instruments.sorted(by: { $0.symbol < $1.symbol }) {
            if let token = query.pageToken, instrument.symbol < token.symbol { continue }
            let sampler = MarketBars(instrument: instrument, market: market, now: now)
            let checksHours = keepsHours && instrument.assetClass == .equity
            var cursor: Int64
            if let token = query.pageToken, token.symbol == instrument.symbol {
                // A token names a bar's start; one edited by hand is put back on the grid, never trusted off it.
                let anchor = min(max(token.start, first), last)
                cursor = calendar.start(containing: anchor)
                if !query.descending, cursor < anchor { cursor = calendar.next(after: cursor) }
            } else if query.descending {
                cursor = calendar.start(containing: last)
            } else {
                cursor = calendar.start(containing: first)
                if cursor < first { cursor = calendar.next(after: cursor) }
            }
            var list: [JSON] = []
            while cursor >= first, cursor <= last {
                let end = calendar.next(after: cursor)
                if !checksHours || AlpacaBarCalendar.stockSessionHas(start: cursor, end: end, unit: query.timeframe.unit) {
                    if remaining == 0 {
                        if !list.isEmpty { result.append((instrument.symbol, list)) }
                        return (result, Self.pageToken(symbol: instrument.symbol, start: cursor))
                    }
                    if let bar = sampler.bar(start: cursor, end: end) {
                        list.append(AlpacaWire.bar(bar))
                        remaining -= 1
                    }
                }
                cursor = query.descending ? calendar.previous(before: cursor) : end
            }
            if !list.isEmpty { result.append((instrument.symbol, list)) }
        }
        return (result, nil)
    }

    // MARK: Snapshots

    func stockSnapshots(_ request: Request, symbol: String?) throws -> Response {
        let query = request.queryParameters
        if let feed = query["feed"], !feed.isEmpty, !Self.feeds.contains(feed) { throw Self.badRequest("invalid feed") }
        if let symbol {
            guard let instrument = sandbox.assets.resolve(symbol), instrument.assetClass == .equity,
                case .object(let members)? = snapshot(instrument)
            else {
                throw AlpacaAPIError.data(.notFound, "no snapshot found for \(symbol.uppercased())")
            }
            return .json(.object([.init(key: "symbol", value: .string(instrument.symbol))] + members))
        }
        guard let list = query["symbols"], !list.isEmpty else { throw Self.badRequest("missing symbols") }
        var members: [JSON.Member] = []
        for raw in list.split(separator: ",") {
            let requested = raw.trimmingCharacters(in: .whitespaces).uppercased()
            guard let instrument = sandbox.assets.resolve(requested), instrument.assetClass == .equity,
                !members.contains(where: { $0.key == instrument.symbol }), let body = snapshot(instrument)
            else { continue }
            members.append(.init(key: instrument.symbol, value: body))
        }
        // Alpaca's multi-symbol stock snapshot has no wrapper key: `{"AAPL": {...}}` (alpaca-py reads it `no_sub_key`).
        return .json(.object(members))
    }

    func cryptoSnapshots(_ request: Request, _ context: SandboxRequestContext) throws -> Response {
        let instruments = try cryptoInstruments(request, context)
        var members: [JSON.Member] = []
        for instrument in instruments {
            if let body = snapshot(instrument) { members.append(.init(key: instrument.symbol, value: body)) }
        }
        return .json(["snapshots": .object(members)])
    }

    /// `{"latestTrade","latestQuote","minuteBar","dailyBar","prevDailyBar"}`: the minute bar is the last complete
    /// minute; the daily bar is today's (in progress), or with market hours kept, the last trading day's.
    func snapshot(_ instrument: MarketInstrument) -> JSON? {
        let market = sandbox.market
        let now = market.now
        guard let quote = market.quote(symbol: instrument.symbol, at: now) else { return nil }
        let isStock = instrument.assetClass == .equity
        let sampler = MarketBars(instrument: instrument, market: market, now: now)
        let nowSeconds = Timestamp.unixSeconds(now)
        let minute = Timestamp.floorDiv(nowSeconds, 60) * 60 - 60
        let daily = AlpacaBarCalendar(timeframe: AlpacaTimeframe.oneDay, zone: isStock ? .newYork : .chicago)
        let checksHours = isStock && sandbox.configuration.marketHours == .regular
        func tradingDay(atOrBefore start: Int64) -> Int64 {
            var day = start
            for _ in 0..<7 where checksHours && !AlpacaBarCalendar.stockSessionHas(start: day, end: daily.next(after: day), unit: .day) {
                day = daily.previous(before: day)
            }
            return day
        }
        let day = tradingDay(atOrBefore: daily.start(containing: nowSeconds))
        let previousDay = tradingDay(atOrBefore: daily.previous(before: day))
        func render(_ start: Int64, _ end: Int64) -> JSON { sampler.bar(start: start, end: end).map(AlpacaWire.bar) ?? .null }
        return [
            "latestTrade": isStock ? AlpacaWire.stockTrade(quote, instrument: instrument) : AlpacaWire.cryptoTrade(quote),
            "latestQuote": isStock ? AlpacaWire.stockQuote(quote, instrument: instrument) : AlpacaWire.cryptoQuote(quote),
            "minuteBar": render(minute, minute + 60),
            "dailyBar": render(day, daily.next(after: day)),
            "prevDailyBar": render(previousDay, daily.next(after: previousDay)),
        ]
    }

    /// The `symbols` of a crypto data request, checked as the crypto data API checks them; unknown pairs are left
    /// out (Alpaca answers only the pairs it has).
    func cryptoInstruments(_ request: Request, _ context: SandboxRequestContext) throws -> [MarketInstrument] {
        guard context.pathParameter("loc") == "us" else { throw AlpacaAPIError.data(.notFound, "not found") }
        guard let list = request.queryParameters["symbols"], !list.isEmpty else { throw Self.badRequest("missing symbols") }
        let requested = list.split(separator: ",").map(String.init)
        let malformed = requested.filter { !Self.isCryptoPair($0) }
        if !malformed.isEmpty {
            throw Self.badRequest("Invalid symbol(s): \(malformed.joined(separator: ",")) does not match ^[A-Z]+/[A-Z]+$")
        }
        var instruments: [MarketInstrument] = []
        for symbol in requested {
            guard let instrument = sandbox.assets.resolve(symbol), instrument.assetClass == .crypto,
                !instruments.contains(where: { $0.symbol == instrument.symbol })
            else { continue }
            instruments.append(instrument)
        }
        return instruments
    }
}

extension AlpacaWire {
    /// A bar: `{"t":"2022-02-01T05:00:00Z","o":174,"h":174.84,"l":172.31,"c":174.61,"v":85998033,"n":732412,"vw":173.703516}`.
    static func bar(_ bar: MarketBars.Bar) -> JSON {
        [
            "t": .string(Timestamp.format(bar.time, fractionDigits: 0)),
            "o": number(bar.open),
            "h": number(bar.high),
            "l": number(bar.low),
            "c": number(bar.close),
            "v": number(bar.volume),
            "n": .number(String(bar.trades)),
            "vw": number(bar.vwap),
        ]
    }
}
