import Foundation
import GatewayCore
public import GatewayModel
import Logging
import Synchronization

extension SaxoAdapter {
    /// `trade/v1/infoprices/list`, one call per asset type (concurrently), after resolving each symbol to its
    /// `Uic`. Instruments Saxo has no price for are left out; the answer keeps the order asked for.
    public func quotes(_ instruments: [InstrumentReference]) async throws -> [Quote] {
        var problems: [FieldProblem] = []
        for (index, reference) in instruments.enumerated() where reference.impliedAssetClass.saxoAssetTypes.isEmpty {
            problems.append(FieldProblem(field: "instruments[\(index)]", problem: "Saxo has no \(reference.impliedAssetClass.rawValue) prices"))
        }
        guard problems.isEmpty else { throw GatewayError.unprocessable(problems).with(broker: .saxo) }
        let resolved = try await boundedMap(instruments, limit: 4) { try await resolve($0) }
        var byType: [String: [Int]] = [:]
        var order: [String] = []
        for instrument in resolved {
            guard let identity = instrument.saxoIdentity else { continue }
            if byType[identity.assetType] == nil { order.append(identity.assetType) }
            if !(byType[identity.assetType]?.contains(identity.uic) ?? false) {
                byType[identity.assetType, default: []].append(identity.uic)
            }
        }
        let groups = order.map { ($0, byType[$0] ?? []) }
        let prices = try await boundedMap(groups, limit: 4) { group in
            try await fetchList(SaxoInfoPrice.self, .infoPrices(uics: group.1, assetType: group.0))
        }.flatMap { $0 }
        var byKey: [String: SaxoInfoPrice] = [:]
        for price in prices {
            if let uic = price.uic, let assetType = price.assetType { byKey[Self.key(uic: uic, assetType: assetType)] = price }
        }
        var seen: Set<String> = []
        var quotes: [Quote] = []
        for var instrument in resolved {
            guard let identity = instrument.saxoIdentity else { continue }
            let key = Self.key(uic: identity.uic, assetType: identity.assetType)
            guard seen.insert(key).inserted, let price = byKey[key] else { continue }
            instrument.currency = instrument.currency ?? price.displayAndFormat?.currency
            instrument.name = instrument.name ?? price.displayAndFormat?.description
            quotes.append(Quote(saxo: price, instrument: instrument, connectionId: connectionId))
        }
        return quotes
    }

    /// `ref/v1/instruments?Keywords=&AssetTypes=&$top=`. Option roots (`SummaryType` `ContractOptionRoot`) are left
    /// out: their `Identifier` is not a Uic.
    public func searchInstruments(_ text: String, assetClass: AssetClass?) async throws -> [Instrument] {
        let needle = text.trimmingCharacters(in: .whitespaces)
        guard !needle.isEmpty else {
            throw GatewayError.unprocessable([FieldProblem(field: "text", problem: "must not be empty")])
        }
        let assetTypes = assetClass?.saxoAssetTypes ?? []
        if assetClass != nil, assetTypes.isEmpty { return [] }
        let hits = try await fetchList(
            SaxoInstrument.self,
            .instruments(keywords: needle, assetTypes: assetTypes, top: configuration.searchLimit)
        )
        let instruments = hits.filter { ($0.summaryType ?? "Instrument") == "Instrument" }.map(Instrument.init(saxo:))
        remember(instruments)
        return Array(instruments.prefix(configuration.searchLimit))
    }

    /// Candles for one instrument from `chart/v3/charts` (`Mode=UpTo` now, `Count` ≤ 1200), oldest first; FX as
    /// mid prices.
    public func candles(_ reference: InstrumentReference, interval: CandleInterval, count: Int) async throws -> CandleSeries {
        guard (1...1200).contains(count) else {
            throw GatewayError.unprocessable([FieldProblem(field: "count", problem: "must be 1 to 1200")])
        }
        let instrument = try await resolve(reference)
        let identity = try saxoIdentity(of: instrument)
        let chart = try await fetch(
            SaxoChart.self,
            .chart(
                uic: identity.uic,
                assetType: identity.assetType,
                horizon: interval.saxoHorizon,
                count: count,
                upTo: configuration.now()
            )
        )
        let candles = chart.data.compactMap(Candle.init(saxo:)).sorted { $0.time < $1.time }
        return CandleSeries(instrument: instrument, connectionId: connectionId, interval: interval, candles: candles)
    }

    /// Not offered (see the capability notes): no recorded MarketDepth payload to hold the mapping to, and the
    /// sandbox's depth is a single level.
    public func orderBook(_ instrument: InstrumentReference, depth: Int) async throws -> OrderBook {
        throw GatewayError.notSupported("order books", broker: .saxo)
    }

    // MARK: Instrument resolution

    /// The Saxo instrument a canonical reference names (with `brokerKey` `uic` + `assetType`), found through
    /// `ref/v1/instruments?Keywords=<EURUSD|AAPL>&AssetTypes=<types of the class>` and remembered. Among several
    /// exact matches (a share listed on several exchanges) the primary listing wins, else the first.
    func resolve(_ reference: InstrumentReference) async throws -> Instrument {
        let assetClass = reference.impliedAssetClass
        let cacheKey = "\(assetClass.rawValue)|\(reference.symbol.uppercased())"
        if let known = session.resolutions.withLock({ $0[cacheKey] }) { return known }
        let assetTypes = assetClass.saxoAssetTypes
        guard !assetTypes.isEmpty else {
            throw GatewayError.unprocessable([
                FieldProblem(field: "assetClass", problem: "Saxo instruments of class \(assetClass.rawValue) are not supported")
            ]).with(broker: .saxo)
        }
        let hits = try await fetchList(
            SaxoInstrument.self,
            .instruments(keywords: SaxoSymbol.keyword(for: reference), assetTypes: assetTypes, top: configuration.searchLimit)
        )
        let matches = hits.filter {
            ($0.summaryType ?? "Instrument") == "Instrument" && assetTypes.contains($0.assetType)
                && SaxoSymbol.matches($0, reference)
        }
        guard let hit = matches.first(where: { $0.primaryListing == $0.identifier }) ?? matches.first else {
            throw GatewayError.unprocessable([
                FieldProblem(field: "symbol", problem: "Saxo has no \(assetClass.rawValue) instrument '\(reference.symbol)'")
            ]).with(broker: .saxo)
        }
        let instrument = Instrument(saxo: hit)
        session.resolutions.withLock { $0[cacheKey] = instrument }
        remember([instrument])
        return instrument
    }

    /// Instruments by Saxo identity: remembered ones, and the rest from `ref/v1/instruments?Uics=&AssetTypes=` (one
    /// call per asset type).
    func instruments(for identities: [(Int, String)]) async throws -> [String: Instrument] {
        var result: [String: Instrument] = [:]
        var missing: [String: [Int]] = [:]
        let known = session.instruments.withLock { $0 }
        for (uic, assetType) in identities {
            let key = Self.key(uic: uic, assetType: assetType)
            if let instrument = known[key] {
                result[key] = instrument
            } else if !(missing[assetType]?.contains(uic) ?? false) {
                missing[assetType, default: []].append(uic)
            }
        }
        for (assetType, uics) in missing.sorted(by: { $0.key < $1.key }) {
            let hits = try await fetchList(SaxoInstrument.self, .instruments(uics: uics, assetType: assetType))
            let found = hits.filter { ($0.summaryType ?? "Instrument") == "Instrument" }.map(Instrument.init(saxo:))
            remember(found)
            for instrument in found {
                if let identity = instrument.saxoIdentity {
                    result[Self.key(uic: identity.uic, assetType: identity.assetType)] = instrument
                }
            }
        }
        return result
    }
}
