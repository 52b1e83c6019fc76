import Foundation
import Hummingbird
import SandboxKit

/// `GET cs/v1/audit/orderactivities`: the order-activity audit, where an order's end is read once it has left
/// `port/v1/orders`.
///
/// Source: Saxo's reference, developer.saxo/openapi/referencedocs/cs/v1/audit-orderactivities/get__cs_audit_orderactivities,
/// and its guide developer.saxo/openapi/learn/audit-orderactivities. What they say, and what the sandbox does:
/// - Query: `OrderId`, `ClientKey`, `AccountKey`, `CorrelationKey` (each narrows to entries of that value);
///   `EntryType` `All` (the default: every entry) or `Last` ("only the latest state of an order, ignoring
///   ToDateTime"); `Status` (a list of `OrderLogStatus`, comma-separated); `FromDateTime` / `ToDateTime` (UTC,
///   inclusive, on `ActivityTime`); `FieldGroups` (only `DisplayAndFormat`); `IncludeSubAccounts` (a sandbox
///   client has none); `$top` and `$skiptoken` ("an entity id to start retrieving entries from, normally only used
///   in generated nextlinks").
/// - Answer: the list envelope `{"__count":2,"Data":[…],"__next":"…"}`, entries in `LogId` order, each an
///   `OrderActivitiesResponse`: `AccountId`, `ActivityTime`, `Amount`, `AssetType`, `AveragePrice`, `BuySell`,
///   `ClientId`, `CorrelationKey`, `DisplayAndFormat`, `Duration`, `ExecutionPrice`, `ExternalReference`,
///   `FillAmount`, `FilledAmount`, `HandledBy`, `LogId` (a string), `OrderId`, `OrderRelation`, `OrderType`,
///   `PositionId`, `Price`, `Status`, `SubStatus`, `Uic`.
///
/// Where the documents are silent the sandbox does the least surprising thing: `$top` defaults to and is capped at
/// 1000 like the portfolio lists; `$skiptoken` is the `LogId` of the first entry of the next page; with
/// `EntryType=Last`, `Status` and `FromDateTime` filter the latest entries (not the entries before them); the reference
/// also says `ToDateTime` "cannot be used with EntryType=Last", and the sandbox ignores it there, as the `EntryType`
/// description says; `FilledAmount` and the price members are sent only once there is something to say (null
/// members are omitted everywhere in Saxo's answers).
extension SaxoRoutes {
    static let orderActivityFieldGroups = ["DisplayAndFormat"]

    static func auditRoutes(_ sandbox: SaxoSandbox, into routes: inout [Route]) {
        routes.append(Route(.get, "cs/v1/audit/orderactivities") { call in try orderActivities(call, sandbox: sandbox) })
    }

    /// The filters of one audit query, parsed; every bad value is a 400 naming the parameter.
    struct OrderActivityQuery {
        enum EntryType: String, CaseIterable { case All, Last }

        var orderID: String?
        var correlationKey: String?
        var entryType: EntryType = .All
        var statuses: Set<SaxoOrderLogStatus> = []
        var from: Date?
        var to: Date?
        var top = 1000
        var skipToken: Int?
        var displayAndFormat = false

        static func parse(_ call: SaxoCall) throws(SaxoAPIError) -> OrderActivityQuery {
            var query = OrderActivityQuery()
            var problems: [(field: String, problems: [String])] = []
            func text(_ name: String) -> String? {
                guard let value = call.query[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
                return value
            }
            query.orderID = text("OrderId")
            query.correlationKey = text("CorrelationKey")
            if let value = text("EntryType") {
                if let type = EntryType.allCases.first(where: { $0.rawValue.caseInsensitiveCompare(value) == .orderedSame }) {
                    query.entryType = type
                } else {
                    problems.append(("EntryType", ["The value '\(value)' is not valid for EntryType."]))
                }
            }
            if let value = text("Status") {
                for raw in value.split(separator: ",") {
                    let name = raw.trimmingCharacters(in: .whitespaces)
                    if let status = SaxoOrderLogStatus.allCases.first(where: { $0.rawValue.caseInsensitiveCompare(name) == .orderedSame }) {
                        query.statuses.insert(status)
                    } else {
                        problems.append(("Status", ["The value '\(name)' is not valid for Status."]))
                    }
                }
            }
            for (name, keyPath) in [("FromDateTime", \OrderActivityQuery.from), ("ToDateTime", \OrderActivityQuery.to)] {
                guard let value = text(name) else { continue }
                if let date = Timestamp.parse(value) {
                    query[keyPath: keyPath] = date
                } else {
                    problems.append((name, ["The value '\(value)' is not a valid UtcDateTime."]))
                }
            }
            if let value = text("IncludeSubAccounts"), !["true", "false"].contains(value.lowercased()) {
                problems.append(("IncludeSubAccounts", ["The value '\(value)' is not valid for IncludeSubAccounts."]))
            }
            if !problems.isEmpty { throw .invalidModelState(problems) }
            if let value = text("$top") {
                guard let top = Int(value), top >= 0 else { throw .invalidQuery("$top", value) }
                query.top = min(top, 1000)
            }
            if let value = text("$skiptoken") {
                guard let token = Int(value) else { throw .invalidQuery("$skiptoken", value) }
                query.skipToken = token
            }
            query.displayAndFormat = try SaxoRoutes.fieldGroups(call, allowed: orderActivityFieldGroups, default: []).contains("DisplayAndFormat")
            return query
        }

        /// The entries this query selects from `log` (oldest first), before paging.
        func select(_ log: [SaxoOrderActivity]) -> [SaxoOrderActivity] {
            var entries = log.filter { entry in
                (orderID.map { $0 == entry.orderId } ?? true) && (correlationKey.map { $0 == entry.correlationKey } ?? true)
            }
            if entryType == .Last {
                var latest: [String: Int] = [:]
                for (index, entry) in entries.enumerated() { latest[entry.orderId] = index }
                let kept = Set(latest.values)
                entries = entries.enumerated().filter { kept.contains($0.offset) }.map(\.element)
            }
            return entries.filter { entry in
                (statuses.isEmpty || statuses.contains(entry.status))
                    && (from.map { entry.activityTime >= $0 } ?? true)
                    && (entryType == .Last || (to.map { entry.activityTime <= $0 } ?? true))
            }
        }
    }

    static func orderActivities(_ call: SaxoCall, sandbox: SaxoSandbox) throws -> Response {
        try checkClientKey(call, call.client, required: false)
        try checkAccountKey(call.query["AccountKey"], call.client)
        let query = try OrderActivityQuery.parse(call)
        let selected = try sandbox.withBook(call.client.clientKey) { book, _ in query.select(book.activities) }
        let start = query.skipToken.map { token in selected.firstIndex { $0.logId >= token } ?? selected.count } ?? 0
        let page = Array(selected[start...].prefix(query.top))
        var members: [(String, JSON?)] = [("__count", .int(selected.count))]
        let client = call.client
        let instruments = sandbox.instruments
        members.append(
            (
                "Data",
                .array(page.map { SaxoWire.orderActivity($0, client: client, instruments: instruments, displayAndFormat: query.displayAndFormat) })
            )
        )
        let next = start + page.count
        if query.top > 0, next < selected.count {
            members.append(("__next", .string(skipTokenURL(call, top: query.top, token: selected[next].logId))))
        }
        return .json(SaxoWire.object(members))
    }

    /// The same request with `$top` and `$skiptoken` set for the next page, as an absolute URL.
    static func skipTokenURL(_ call: SaxoCall, top: Int, token: Int) -> String {
        let host = call.request.head.authority ?? "localhost"
        var items = (call.request.uri.query ?? "").split(separator: "&", omittingEmptySubsequences: true).filter { item in
            let name = item.split(separator: "=", maxSplits: 1).first.map { String($0).removingPercentEncoding ?? String($0) } ?? ""
            return name != "$top" && name != "$skiptoken"
        }.map(String.init)
        items += ["$top=\(top)", "$skiptoken=\(token)"]
        return "http://\(host)\(call.request.uri.path)?\(items.joined(separator: "&"))"
    }
}

extension SaxoWire {
    /// An element of `GET cs/v1/audit/orderactivities`, e.g. (Saxo's guide, one fill of a market order)
    /// `{"ActivityTime":"2018-05-15T15:14:44.588000Z","AveragePrice":99.9,"FillAmount":500,"FilledAmount":500,
    /// "LogId":"34139674","OrderId":"1000001","Status":"FinalFill","SubStatus":"Confirmed",…}`.
    static func orderActivity(
        _ entry: SaxoOrderActivity,
        client: SaxoSandboxClient,
        instruments: SaxoInstruments,
        displayAndFormat: Bool
    ) -> JSON {
        let instrument = instruments.find(uic: entry.uic, assetType: entry.assetType)
        func price(_ value: Decimal?) -> JSON? {
            guard let value else { return nil }
            guard let instrument else { return number(value) }
            // An average of several fills may need more digits than a price.
            return number(value, scale: instrument.priceDecimals + 2)
        }
        var members: [(String, JSON?)] = [
            ("AccountId", .string(client.accountId)),
            ("ActivityTime", time(entry.activityTime)),
            ("Amount", number(entry.amount)),
            ("AssetType", .string(entry.assetType)),
            ("AveragePrice", price(entry.averagePrice)),
            ("BuySell", .string(entry.side == .buy ? "Buy" : "Sell")),
            ("ClientId", .string(client.clientId)),
            ("CorrelationKey", .string(entry.correlationKey)),
        ]
        if displayAndFormat, let instrument { members.append(("DisplayAndFormat", self.displayAndFormat(instrument))) }
        members += [
            (
                "Duration",
                object([
                    ("DurationType", .string(entry.durationType)),
                    ("ExpirationDateContainsTime", entry.expirationContainsTime.map(JSON.bool)),
                    ("ExpirationDateTime", entry.expirationText.map(JSON.string)),
                ])
            ),
            ("ExecutionPrice", price(entry.executionPrice)),
            ("ExternalReference", entry.externalReference.map(JSON.string)),
            ("FillAmount", entry.fillAmount.map { number($0) }),
            // Typed `JSON?`: a bare `nil` would become JSON's own `null` and be sent, where Saxo omits the member.
            ("FilledAmount", entry.filledAmount > 0 ? number(entry.filledAmount) as JSON? : nil),
            ("HandledBy", .string(entry.handledBy == .user ? client.userId : "System")),
            ("LogId", .string(String(entry.logId))),
            ("OrderId", .string(entry.orderId)),
            ("OrderRelation", "StandAlone"),
            ("OrderType", .string(entry.orderType)),
            ("PositionId", entry.positionId.map(JSON.string)),
            ("Price", price(entry.price)),
            ("Status", .string(entry.status.rawValue)),
            ("StopLimitPrice", price(entry.stopLimitPrice)),
            ("SubStatus", .string(entry.subStatus.rawValue)),
            ("Uic", .int(entry.uic)),
        ]
        return object(members)
    }
}
