import Foundation
import Hummingbird
import SandboxKit

/// `root/v1/sessions/capabilities`: Saxo's samples elevate the trade session right after signing in.
extension SaxoRoutes {
    static func rootRoutes(_ sandbox: SaxoSandbox, into routes: inout [Route]) {
        routes.append(
            Route(.get, "root/v1/sessions/capabilities") { _ in
                .json(["AuthenticationLevel": "Authenticated", "DataLevel": "Premium", "TradeLevel": "FullTradingAndChat"])
            }
        )
        for method in [HTTPRequest.Method.put, .patch] {
            routes.append(
                Route(method, "root/v1/sessions/capabilities") { call in
                    var fields = try SaxoFields(try await call.body())
                    let level = fields.string("TradeLevel")
                    guard let level, ["OrdersOnly", "FullTradingAndChat"].contains(level) else {
                        throw SaxoAPIError.invalidModelState("TradeLevel", "TradeLevel must be OrdersOnly or FullTradingAndChat.")
                    }
                    return Response(status: .accepted)
                }
            )
        }
    }
}
