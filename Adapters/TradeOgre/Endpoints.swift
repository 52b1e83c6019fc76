import Foundation

/// Every TradeOgre call the adapter makes. Paths are relative to the API root (which includes `/api/v1`).
struct Endpoint: Sendable {
    enum Access: Sendable { case `public`, `private` }

    var method: String
    var path: String
    var access: Access

    static func markets() -> Endpoint { Endpoint(method: "GET", path: "/markets", access: .public) }
    static func ticker(market: String) -> Endpoint {
        Endpoint(method: "GET", path: "/ticker/\(segment(market))", access: .public)
    }
    static func chart(interval: String, market: String) -> Endpoint {
        Endpoint(method: "GET", path: "/chart/\(interval)/\(segment(market))", access: .public)
    }

    static func balances() -> Endpoint { Endpoint(method: "GET", path: "/account/balances", access: .private) }
    /// Form `currency`.
    static func balance() -> Endpoint { Endpoint(method: "POST", path: "/account/balance", access: .private) }
    /// Form `market` (optional).
    static func openOrders() -> Endpoint { Endpoint(method: "POST", path: "/account/orders", access: .private) }
    static func order(uuid: String) -> Endpoint {
        Endpoint(method: "GET", path: "/account/order/\(segment(uuid))", access: .private)
    }
    /// Form `market`, `quantity`, `price`.
    static func buy() -> Endpoint { Endpoint(method: "POST", path: "/order/buy", access: .private) }
    static func sell() -> Endpoint { Endpoint(method: "POST", path: "/order/sell", access: .private) }
    /// Form `uuid`.
    static func cancel() -> Endpoint { Endpoint(method: "POST", path: "/order/cancel", access: .private) }

    var isWrite: Bool { path.hasPrefix("/order/") }

    /// RFC 3986 unreserved characters stay; everything else (`/` included) is percent-encoded.
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func segment(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text }

    /// `a=1&b=2`, in the given order.
    static func form(_ fields: [(String, String)]) -> Data {
        Data(fields.map { "\(segment($0.0))=\(segment($0.1))" }.joined(separator: "&").utf8)
    }
}
