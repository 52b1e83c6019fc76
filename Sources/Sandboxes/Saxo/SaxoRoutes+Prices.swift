import Foundation
import Hummingbird
import SandboxKit

/// `trade/v1/infoprices`, `trade/v1/prices/subscriptions` (snapshot only) and `chart/v1|v3/charts`.
extension SaxoRoutes {
    static let priceFieldGroups = [
        "Commissions", "DisplayAndFormat", "Greeks", "HistoricalChanges", "InstrumentPriceDetails", "MarketDepth", "PriceInfo",
        "PriceInfoDetails", "Quote", "Timestamps",
    ]

    static func priceRoutes(_ sandbox: SaxoSandbox, into routes: inout [Route]) {
        let prices = PriceHandlers(sandbox: sandbox)
        routes.append(Route(.get, "trade/v1/infoprices") { call in try prices.infoPrice(call) })
        routes.append(Route(.get, "trade/v1/infoprices/list") { call in try prices.infoPrices(call) })
        routes.append(Route(.post, "trade/v1/prices/subscriptions") { call in try await prices.subscribe(call) })
        routes.append(
            Route(.delete, "trade/v1/prices/subscriptions/{ContextId}/{ReferenceId}") { call in
                let key = "\(call.session)|\(call.parameter("ContextId"))|\(call.parameter("ReferenceId"))"
                sandbox.withSubscriptions { _ = $0.removeValue(forKey: key) }
                return Response(status: .accepted)
            }
        )
        routes.append(
            Route(.delete, "trade/v1/prices/subscriptions/{ContextId}") { call in
                let prefix = "\(call.session)|\(call.parameter("ContextId"))|"
                sandbox.withSubscriptions { subscriptions in
                    for key in subscriptions.keys where key.hasPrefix(prefix) { subscriptions.removeValue(forKey: key) }
                }
                return Response(status: .accepted)
            }
        )
        routes.append(Route(.get, "chart/v1/charts") { call in try prices.chart(call, version: 1) })
        routes.append(Route(.get, "chart/v3/charts") { call in try prices.chart(call, version: 3) })
    }

    struct PriceHandlers: Sendable {
        let sandbox: SaxoSandbox

        /// Field groups from a query or body list; names Saxo knows but the sandbox does not render are accepted and ignored.
        private func groups(_ names: [String], default defaults: [String]) -> Set<String> {
            let cleaned = names.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !cleaned.isEmpty else { return Set(defaults) }
            return Set(cleaned.compactMap { name in SaxoRoutes.priceFieldGroups.first { $0.caseInsensitiveCompare(name) == .orderedSame } })
        }

        private func amount(_ call: SaxoCall) throws(SaxoAPIError) -> Decimal? {
            guard let text = call.query["Amount"], !text.isEmpty else { return nil }
            guard let value = DecimalText.parse(text), value > 0 else {
                throw .invalidModelState("Amount", "The value '\(text)' is not valid for Amount.")
            }
            return value
        }

        func infoPrice(_ call: SaxoCall) throws -> Response {
            var problems: [(field: String, problems: [String])] = []
            let uic = call.query["Uic"].flatMap { Int($0) }
            if uic == nil { problems.append(("Uic", ["The Uic field is required."])) }
            let assetType = call.query["AssetType"].flatMap(SaxoAssetType.canonical)
            if assetType == nil { problems.append(("AssetType", ["The AssetType field is required."])) }
            guard problems.isEmpty, let uic, let assetType else { throw SaxoAPIError.invalidModelState(problems) }
            guard let instrument = sandbox.instruments.find(uic: uic, assetType: assetType) else {
                throw SaxoAPIError.trading("IllegalInstrumentId", "Instrument ID is invalid")
            }
            try SaxoRoutes.checkAccountKey(call.query["AccountKey"], call.client)
            let fieldGroups = groups((call.query["FieldGroups"] ?? "").split(separator: ",").map(String.init), default: ["Quote"])
            return .json(try snapshot(instrument, amount: amount(call), fieldGroups: fieldGroups))
        }

        func infoPrices(_ call: SaxoCall) throws -> Response {
            var problems: [(field: String, problems: [String])] = []
            let uics = try SaxoRoutes.uicList(call.query["Uics"], name: "Uics")
            if uics == nil { problems.append(("Uics", ["The Uics field is required."])) }
            let assetType = call.query["AssetType"].flatMap(SaxoAssetType.canonical)
            if assetType == nil { problems.append(("AssetType", ["The AssetType field is required."])) }
            guard problems.isEmpty, let assetType else { throw SaxoAPIError.invalidModelState(problems) }
            try SaxoRoutes.checkAccountKey(call.query["AccountKey"], call.client)
            // Saxo answers in the order the Uics were asked for.
            let ordered = (call.query["Uics"] ?? "").split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            var seen: Set<Int> = []
            let instruments = ordered.filter { seen.insert($0).inserted }.compactMap { sandbox.instruments.find(uic: $0, assetType: assetType) }
            let fieldGroups = groups((call.query["FieldGroups"] ?? "").split(separator: ",").map(String.init), default: ["Quote"])
            let amount = try amount(call)
            let items = try instruments.map { try snapshot($0, amount: amount, fieldGroups: fieldGroups) }
            return .json(try SaxoRoutes.envelope(items, call, alwaysCount: false))
        }

        private func snapshot(_ instrument: SaxoInstrument, amount: Decimal?, fieldGroups: Set<String>) throws(SaxoAPIError) -> JSON {
            let env = sandbox.environment()
            guard let quote = env.quote(instrument) else { throw SaxoAPIError.forStatus(503) }
            let history = fieldGroups.contains("HistoricalChanges") ? historicalChanges(instrument, env: env) : []
            return SaxoWire.priceSnapshot(instrument, quote: quote, amount: amount, fieldGroups: fieldGroups, history: history, env: env)
        }

        /// Percent changes against the price path 1 week … 6 months ago.
        private func historicalChanges(_ instrument: SaxoInstrument, env: SaxoTradingEnvironment) -> [(String, Decimal)] {
            let path = PricePath(instrument: instrument.market, seed: env.market.configuration.seed)
            let bucketSeconds = Int64(env.market.configuration.bucketSeconds)
            func mid(daysAgo: Int64) -> Decimal {
                let seconds = Int64(env.now.timeIntervalSince1970.rounded(.down)) - daysAgo * 86_400
                return path.price(bucket: Timestamp.floorDiv(seconds, bucketSeconds))
            }
            let current = env.quote(instrument)?.mid ?? mid(daysAgo: 0)
            return [
                ("PercentChange1Month", 30), ("PercentChange2Months", 61), ("PercentChange3Months", 91), ("PercentChange6Months", 182),
                ("PercentChangeWeekly", 7),
            ].map { name, days in
                let then = mid(daysAgo: Int64(days))
                return (name, then.isZero ? 0 : (current - then) / then * 100)
            }
        }

        /// `POST trade/v1/prices/subscriptions` → 201 with a snapshot. The seed app sends `"Uics": 18`; a single Uic there
        /// is taken as `Uic`.
        func subscribe(_ call: SaxoCall) async throws -> Response {
            let json = try await call.body()
            var fields = try SaxoFields(json)
            let contextID = fields.required("ContextId") { $0.string($1) }
            let referenceID = fields.required("ReferenceId") { $0.string($1) }
            for (name, value) in [("ContextId", contextID), ("ReferenceId", referenceID)] {
                if let value,
                    value.isEmpty || value.count > 50 || !value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
                {
                    fields.problem(name, "\(name) must be 1-50 characters of letters, digits, '_' or '-'.")
                }
            }
            let refreshRate = fields.int("RefreshRate")
            var instrument: SaxoInstrument?
            var amount: Decimal?
            var fieldGroups: Set<String> = ["Quote"]
            var accountKey: String?
            if var arguments = fields.required("Arguments", { $0.object($1) }) {
                var uic = arguments.int("Uic")
                if uic == nil, arguments.has("Uics") {
                    let text = arguments.string("Uics") ?? ""
                    let uics = text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                    if uics.count == 1 { uic = uics[0] } else { arguments.problem("Uics", "A price subscription takes exactly one Uic.") }
                } else if uic == nil {
                    arguments.problem("Uic", "The Uic field is required.")
                }
                let assetType = arguments.required("AssetType") { f, key -> String? in
                    guard let text = f.string(key) else { return nil }
                    guard let canonical = SaxoAssetType.canonical(text) else {
                        f.problem(key, "Error converting value \"\(text)\" to type 'AssetType'.")
                        return nil
                    }
                    return canonical
                }
                amount = arguments.decimal("Amount")
                accountKey = arguments.string("AccountKey")
                _ = arguments.bool("RequireTradableQuote")
                if let list = arguments.value("FieldGroups") {
                    if let items = list.arrayValue {
                        fieldGroups = groups(items.compactMap(\.stringValue), default: ["Quote"])
                    } else if let text = list.stringValue {
                        fieldGroups = groups(text.split(separator: ",").map(String.init), default: ["Quote"])
                    } else {
                        arguments.problem("FieldGroups", "FieldGroups must be a list of field group names.")
                    }
                }
                fields.merge(arguments)
                if arguments.problems.isEmpty, let uic, let assetType {
                    instrument = sandbox.instruments.find(uic: uic, assetType: assetType)
                    if instrument == nil { throw SaxoAPIError.trading("IllegalInstrumentId", "Instrument ID is invalid") }
                }
            }
            guard fields.problems.isEmpty, let contextID, let referenceID, let instrument else {
                throw SaxoAPIError.invalidModelState(fields.problems)
            }
            try SaxoRoutes.checkAccountKey(accountKey, call.client)
            let snapshot = try snapshot(instrument, amount: amount, fieldGroups: fieldGroups)
            let key = "\(call.session)|\(contextID)|\(referenceID)"
            sandbox.withSubscriptions {
                $0[key] = SaxoPriceSubscription(contextID: contextID, referenceID: referenceID, instrument: instrument)
            }
            return .json(
                [
                    "ContextId": .string(contextID),
                    "Format": "application/json",
                    "InactivityTimeout": 30,
                    "ReferenceId": .string(referenceID),
                    "RefreshRate": .int(max(0, refreshRate ?? 1000)),
                    "Snapshot": snapshot,
                    "State": "Active",
                ],
                status: .created
            )
        }

        /// `GET chart/v1/charts` → `{"Data":[...],"DataVersion":n}`; `GET chart/v3/charts` adds `ChartInfo` (and
        /// `DisplayAndFormat` when asked) and honours `FieldGroups`.
        func chart(_ call: SaxoCall, version: Int) throws -> Response {
            var problems: [(field: String, problems: [String])] = []
            let query = call.query
            let assetType = query["AssetType"].flatMap(SaxoAssetType.canonical)
            if assetType == nil { problems.append(("AssetType", ["The AssetType field is required."])) }
            let uic = query["Uic"].flatMap { Int($0) }
            if uic == nil { problems.append(("Uic", ["The Uic field is required."])) }
            let horizon = query["Horizon"].flatMap { Int($0) }
            if horizon.map({ !SaxoCharts.horizons.contains($0) }) ?? true {
                problems.append(
                    ("Horizon", ["Horizon must be one of \(SaxoCharts.horizons.sorted().map(String.init).joined(separator: ", ")) minutes."])
                )
            }
            var count = SaxoCharts.maximumCount
            if let text = query["Count"], !text.isEmpty {
                if let value = Int(text), (1...SaxoCharts.maximumCount).contains(value) {
                    count = value
                } else {
                    problems.append(("Count", ["Count must be between 1 and \(SaxoCharts.maximumCount)."]))
                }
            }
            var mode = SaxoCharts.Mode.latest
            let timeText = query["Time"].flatMap { $0.isEmpty ? nil : $0 }
            let time = timeText.flatMap { Timestamp.parse($0) }
            if timeText != nil, time == nil { problems.append(("Time", ["The value '\(timeText!)' is not a valid time."])) }
            switch query["Mode"]?.lowercased() {
            case nil, "": if let time { mode = .upTo(time) }
            case "upto": if let time { mode = .upTo(time) } else { problems.append(("Time", ["Time is required with Mode."])) }
            case "from": if let time { mode = .from(time) } else { problems.append(("Time", ["Time is required with Mode."])) }
            default: problems.append(("Mode", ["Mode must be From or UpTo."]))
            }
            guard problems.isEmpty, let assetType, let uic, let horizon else { throw SaxoAPIError.invalidModelState(problems) }
            guard let instrument = sandbox.instruments.find(uic: uic, assetType: assetType) else {
                throw SaxoAPIError.trading("IllegalInstrumentId", "Instrument ID is invalid")
            }
            let now = sandbox.market.now
            let bars = SaxoCharts(instrument: instrument.market, market: sandbox.market, now: now).bars(horizon: horizon, count: count, mode: mode)
            let data = JSON.array(bars.map { SaxoWire.chartBar($0, instrument: instrument) })
            let dataVersion = JSON.int64(Int64(now.timeIntervalSince1970.rounded(.down)) % 2_147_483_647)
            guard version >= 3 else { return .json(["Data": data, "DataVersion": dataVersion]) }
            let requested = Set(
                (query["FieldGroups"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
            )
            let wants = { (name: String) in requested.isEmpty ? name == "chartinfo" || name == "data" : requested.contains(name) }
            return .json(
                SaxoWire.object([
                    (
                        "ChartInfo",
                        wants("chartinfo")
                            ? SaxoWire.object([
                                ("DelayedByMinutes", 0),
                                ("ExchangeId", .string(instrument.listing.exchangeId)),
                                ("FirstSampleTime", bars.first.map { SaxoWire.time($0.time) }),
                                ("Horizon", .int(horizon)),
                            ]) : nil
                    ),
                    ("Data", wants("data") ? data : nil),
                    ("DataVersion", dataVersion),
                    ("DisplayAndFormat", wants("displayandformat") ? SaxoWire.displayAndFormat(instrument) : nil),
                ])
            )
        }
    }
}
