import Foundation
import GatewayCore
import HTTPTypes

/// Every TradeOgre call the adapter makes. Paths are relative to the API root (which includes `/api/v1`).
struct Endpoint: Sendable {
    enum Access: Sendable { case `public`, `private` }

    var method: HTTPRequest.Method
    var path: String
    var access: Access

    static func markets() -> Endpoint { Endpoint(method: .get, path: "/markets", access: .public) }
    static func ticker(market: String) -> Endpoint {
        Endpoint(method: .get, path: "/ticker/\(segment(market))", access: .public)
    }
    static func orderBook(market: String) -> Endpoint {
        Endpoint(method: .get, path: "/orders/\(segment(market))", access: .public)
    }
    static func chart(interval: String, market: String) -> Endpoint {
        Endpoint(method: .get, path: "/chart/\(interval)/\(segment(market))", access: .public)
    }

    static func balances() -> Endpoint { Endpoint(method: .get, path: "/account/balances", access: .private) }
    /// Form `currency`.
    static func balance() -> Endpoint { Endpoint(method: .post, path: "/account/balance", access: .private) }
    /// Form `market` (optional).
    static func openOrders() -> Endpoint { Endpoint(method: .post, path: "/account/orders", access: .private) }
    static func order(uuid: String) -> Endpoint {
        Endpoint(method: .get, path: "/account/order/\(segment(uuid))", access: .private)
    }
    /// Form `market`, `quantity`, `price`.
    static func buy() -> Endpoint { Endpoint(method: .post, path: "/order/buy", access: .private) }
    static func sell() -> Endpoint { Endpoint(method: .post, path: "/order/sell", access: .private) }
    /// Form `uuid`.
    static func cancel() -> Endpoint { Endpoint(method: .post, path: "/order/cancel", access: .private) }

    var isWrite: Bool { path.hasPrefix("/order/") }

    static func segment(_ text: String) -> String { BrokerURL.escape(text) }
}
