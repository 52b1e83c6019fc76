import Foundation
import Hummingbird
import SandboxKit

/// `ref/v1/instruments` (search, details) and the seed app's `ref/v1/watchlists`.
extension SaxoRoutes {
    static func referenceDataRoutes(_ sandbox: SaxoSandbox, into routes: inout [Route]) {
        let instruments = sandbox.instruments
        routes.append(Route(.get, "ref/v1/instruments") { call in try searchInstruments(call, instruments) })
        routes.append(
            Route(.get, "ref/v1/instruments/details") { call in
                let uics = try uicList(call.query["Uics"], name: "Uics")
                let assetTypes = try assetTypeList(call.query["AssetTypes"])
                let env = sandbox.environment()
                let matches = instruments.all.filter { instrument in
                    (uics.map { $0.contains(instrument.uic) } ?? true) && (assetTypes.map { $0.contains(instrument.assetType) } ?? true)
                }
                return .json(try envelope(matches.map { SaxoWire.instrumentDetails($0, env: env) }, call, alwaysCount: true))
            }
        )
        routes.append(
            Route(.get, "ref/v1/instruments/details/{Uic}/{AssetType}") { call in
                guard let uic = Int(call.parameter("Uic")), let assetType = SaxoAssetType.canonical(call.parameter("AssetType")),
                    let instrument = instruments.find(uic: uic, assetType: assetType)
                else {
                    throw SaxoAPIError.notFound("Instrument \(call.parameter("Uic"))/\(call.parameter("AssetType")) was not found.")
                }
                return .json(SaxoWire.instrumentDetails(instrument, env: sandbox.environment()))
            }
        )

        // Saxo's public OpenAPI has no watchlist resource (WatchlistId only appears as a filter); the seed app calls
        // `ref/v1/watchlists` and `ref/v1/watchlists/{WatchlistId}`, so the sandbox serves a plausible design:
        // a list of `{WatchlistId, Name, InstrumentCount}` and a detail with `Instruments:[{Uic, AssetType, Symbol, Description}]`.
        routes.append(
            Route(.get, "ref/v1/watchlists") { call in
                let items = call.client.watchlists.map { list in
                    SaxoWire.object([
                        ("InstrumentCount", .int(members(list, instruments).count)),
                        ("Name", .string(list.name)),
                        ("WatchlistId", .string(list.id)),
                    ])
                }
                return .json(try envelope(items, call, alwaysCount: true))
            }
        )
        routes.append(
            Route(.get, "ref/v1/watchlists/{WatchlistId}") { call in
                guard let list = call.client.watchlists.first(where: { $0.id == call.parameter("WatchlistId") }) else {
                    throw SaxoAPIError.notFound("Watchlist \(call.parameter("WatchlistId")) was not found.")
                }
                let items = members(list, instruments).map { instrument in
                    SaxoWire.object([
                        ("AssetType", .string(instrument.assetType)),
                        ("Description", .string(instrument.listing.description)),
                        ("Symbol", .string(instrument.listing.symbol)),
                        ("Uic", .int(instrument.uic)),
                    ])
                }
                return .json(
                    SaxoWire.object([("Instruments", .array(items)), ("Name", .string(list.name)), ("WatchlistId", .string(list.id))])
                )
            }
        )
    }

    private static func members(_ list: SaxoSandboxWatchlist, _ instruments: SaxoInstruments) -> [SaxoInstrument] {
        list.members.compactMap { instruments.find(uic: $0.uic, assetType: $0.assetType) }
    }

    /// `GET ref/v1/instruments?Keywords=&AssetTypes=&Uics=&ExchangeId=&$top=&$skip=`. Every keyword (split on spaces
    /// and commas) must appear in the symbol or the description, case-insensitively.
    private static func searchInstruments(_ call: SaxoCall, _ instruments: SaxoInstruments) throws -> Response {
        let uics = try uicList(call.query["Uics"], name: "Uics")
        let assetTypes = try assetTypeList(call.query["AssetTypes"])
        let keywords = (call.query["Keywords"] ?? "").lowercased().split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        let exchange = call.query["ExchangeId"].flatMap { $0.isEmpty ? nil : $0.lowercased() }
        let matches = instruments.all.filter { instrument in
            if let uics, !uics.contains(instrument.uic) { return false }
            if let assetTypes, !assetTypes.contains(instrument.assetType) { return false }
            if let exchange, instrument.listing.exchangeId.lowercased() != exchange { return false }
            let haystack = (instrument.listing.symbol + " " + instrument.listing.description + " " + instrument.market.symbol).lowercased()
            return keywords.allSatisfy { haystack.contains($0) }
        }
        return .json(try envelope(matches.map(SaxoWire.instrumentSummary), call, alwaysCount: false))
    }

    static func uicList(_ text: String?, name: String) throws(SaxoAPIError) -> Set<Int>? {
        guard let text, !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        var result: Set<Int> = []
        for part in text.split(separator: ",") {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard let uic = Int(trimmed) else { throw .invalidModelState(name, "The value '\(trimmed)' is not valid for \(name).") }
            result.insert(uic)
        }
        return result
    }

    static func assetTypeList(_ text: String?) throws(SaxoAPIError) -> Set<String>? {
        guard let text, !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        var result: Set<String> = []
        for part in text.split(separator: ",") {
            guard let assetType = SaxoAssetType.canonical(String(part)) else {
                throw .invalidModelState("AssetTypes", "The value '\(part)' is not valid for AssetTypes.")
            }
            result.insert(assetType)
        }
        return result
    }
}
