import Foundation
import GatewayCore
import GatewayModel
import HTTPTypes

/// Every Saxo OpenAPI call the adapter makes: method, path (relative to the base URL) and query. Bodies, headers
/// and timeouts are set by the caller. `ClientKey` and `AccountKey` look like base64 (`+`, `/`, `=`), so every query
/// value and path segment is percent-encoded.
struct Endpoint: Sendable {
    var method: HTTPRequest.Method
    var path: String
    var query: [(name: String, value: String)] = []

    static let positionFieldGroups = "DisplayAndFormat,NetPositionBase,NetPositionView"
    static let priceFieldGroups = "DisplayAndFormat,PriceInfo,PriceInfoDetails,Quote"

    static func usersMe() -> Endpoint { Endpoint(method: .get, path: "/port/v1/users/me") }
    static func clientsMe() -> Endpoint { Endpoint(method: .get, path: "/port/v1/clients/me") }
    static func accountsMe() -> Endpoint { Endpoint(method: .get, path: "/port/v1/accounts/me") }

    static func balances(clientKey: String, accountKey: String) -> Endpoint {
        Endpoint(method: .get, path: "/port/v1/balances", query: [("ClientKey", clientKey), ("AccountKey", accountKey)])
    }

    static func netPositions(clientKey: String, accountKey: String) -> Endpoint {
        Endpoint(
            method: .get,
            path: "/port/v1/netpositions",
            query: [("ClientKey", clientKey), ("AccountKey", accountKey), ("FieldGroups", positionFieldGroups)]
        )
    }

    static func openOrders() -> Endpoint {
        Endpoint(method: .get, path: "/port/v1/orders/me", query: [("FieldGroups", "DisplayAndFormat")])
    }

    static func order(clientKey: String, orderId: String) -> Endpoint {
        Endpoint(
            method: .get,
            path: "/port/v1/orders/\(segment(clientKey))/\(segment(orderId))",
            query: [("FieldGroups", "DisplayAndFormat")]
        )
    }

    /// Every audit entry of one order (`EntryType=All`: a `Last` entry alone could be a refused change request).
    static func orderActivities(orderId: String) -> Endpoint {
        Endpoint(
            method: .get,
            path: "/cs/v1/audit/orderactivities",
            query: [("OrderId", orderId), ("EntryType", "All"), ("FieldGroups", "DisplayAndFormat")]
        )
    }

    /// The latest audit entry of each order of an account whose latest activity is at or after `from`.
    static func latestOrderActivities(accountKey: String, from: Date) -> Endpoint {
        Endpoint(
            method: .get,
            path: "/cs/v1/audit/orderactivities",
            query: [
                ("AccountKey", accountKey), ("EntryType", "Last"), ("FromDateTime", SaxoTimestamp.format(from)),
                ("FieldGroups", "DisplayAndFormat"),
            ]
        )
    }

    static func placeOrder() -> Endpoint { Endpoint(method: .post, path: "/trade/v2/orders") }
    static func changeOrder() -> Endpoint { Endpoint(method: .patch, path: "/trade/v2/orders") }
    static func precheck() -> Endpoint { Endpoint(method: .post, path: "/trade/v2/orders/precheck") }
    static func cancelOrder(orderId: String, accountKey: String) -> Endpoint {
        Endpoint(method: .delete, path: "/trade/v2/orders/\(segment(orderId))", query: [("AccountKey", accountKey)])
    }

    static func instruments(keywords: String, assetTypes: [String], top: Int) -> Endpoint {
        var query: [(String, String)] = [("Keywords", keywords)]
        if !assetTypes.isEmpty { query.append(("AssetTypes", assetTypes.joined(separator: ","))) }
        query.append(("$top", String(top)))
        return Endpoint(method: .get, path: "/ref/v1/instruments", query: query)
    }

    static func instruments(uics: [Int], assetType: String) -> Endpoint {
        Endpoint(
            method: .get,
            path: "/ref/v1/instruments",
            query: [("Uics", uics.map(String.init).joined(separator: ",")), ("AssetTypes", assetType)]
        )
    }

    static func infoPrices(uics: [Int], assetType: String) -> Endpoint {
        Endpoint(
            method: .get,
            path: "/trade/v1/infoprices/list",
            query: [
                ("Uics", uics.map(String.init).joined(separator: ",")), ("AssetType", assetType),
                ("FieldGroups", priceFieldGroups),
            ]
        )
    }

    static func chart(uic: Int, assetType: String, horizon: Int, count: Int, upTo: Date) -> Endpoint {
        Endpoint(
            method: .get,
            path: "/chart/v3/charts",
            query: [
                ("AssetType", assetType), ("Uic", String(uic)), ("Horizon", String(horizon)), ("Count", String(count)),
                ("Mode", "UpTo"), ("Time", SaxoTimestamp.format(upTo)),
            ]
        )
    }

    static func watchlists() -> Endpoint { Endpoint(method: .get, path: "/ref/v1/watchlists") }
    static func watchlist(id: String) -> Endpoint {
        Endpoint(method: .get, path: "/ref/v1/watchlists/\(segment(id))")
    }

    /// The absolute URL under `baseURL`.
    func url(base: String) -> String {
        BrokerURL.make(base: base, path: path, query: query)
    }

    static func segment(_ id: String) -> String { BrokerURL.escape(id) }
}
