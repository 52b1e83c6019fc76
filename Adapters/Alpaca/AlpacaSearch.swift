import Foundation

/// Client-side filtering of `GET /v2/assets` for `searchInstruments`.
enum AlpacaSearch {
    /// Assets whose symbol (either crypto spelling) or a word of whose name starts with `needle` (upper-cased),
    /// best first: exact symbol, then symbol prefix, then name; at most `limit`.
    static func rank(_ assets: [AlpacaAsset], needle: String, limit: Int) -> [AlpacaAsset] {
        let compactNeedle = needle.replacingOccurrences(of: "/", with: "")
        var scored: [(score: Int, asset: AlpacaAsset)] = []
        for asset in assets {
            let symbol = asset.symbol.uppercased()
            let compact = symbol.replacingOccurrences(of: "/", with: "")
            let score: Int
            if symbol == needle || compact == compactNeedle {
                score = 0
            } else if symbol.hasPrefix(needle) || compact.hasPrefix(compactNeedle) {
                score = 1
            } else if let name = asset.name?.uppercased(),
                name.hasPrefix(needle) || name.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).contains(where: { $0.hasPrefix(needle) })
            {
                score = 2
            } else {
                continue
            }
            scored.append((score, asset))
        }
        // Stable: equal scores keep Alpaca's order, then the shorter symbol first.
        return scored.enumerated()
            .sorted { lhs, rhs in
                if lhs.element.score != rhs.element.score { return lhs.element.score < rhs.element.score }
                if lhs.element.asset.symbol.count != rhs.element.asset.symbol.count {
                    return lhs.element.asset.symbol.count < rhs.element.asset.symbol.count
                }
                return lhs.offset < rhs.offset
            }
            .prefix(max(0, limit))
            .map(\.element.asset)
    }
}
