import Foundation
import Hummingbird
import SandboxKit

/// `port/v1/...`: client, accounts, user, balances, net positions, positions and open orders.
extension SaxoRoutes {
    static let netPositionFieldGroups = ["NetPositionBase", "NetPositionView", "DisplayAndFormat", "ExchangeInfo", "Greeks", "SinglePosition"]
    static let positionFieldGroups = [
        "PositionBase", "PositionView", "DisplayAndFormat", "ExchangeInfo", "Costs", "Greeks", "PositionIdOnly",
    ]
    static let orderFieldGroups = ["DisplayAndFormat", "ExchangeInfo", "Greeks"]
    static let balanceFieldGroups = ["CalculateCashForTrading", "MarginOverview"]

    static func portfolioRoutes(_ sandbox: SaxoSandbox, into routes: inout [Route]) {
        let me = SaxoRoutes.PortfolioHandlers(sandbox: sandbox)

        routes.append(Route(.get, "port/v1/clients/me") { call in .json(SaxoWire.client(call.client)) })
        routes.append(
            Route(.get, "port/v1/clients/{ClientKey*}") { call in
                guard call.parameter("ClientKey") == call.client.clientKey else { throw SaxoAPIError.notFound("Client not found") }
                return .json(SaxoWire.client(call.client))
            }
        )
        routes.append(Route(.get, "port/v1/users/me") { call in .json(SaxoWire.user(call.client, lastLogin: call.lastLogin)) })
        // The UserKey is the `uid` claim of the access token (a client's UserKey is its ClientKey).
        routes.append(
            Route(.get, "port/v1/users/{UserKey*}") { call in
                guard call.parameter("UserKey") == call.client.clientKey else { throw SaxoAPIError.notFound("User not found") }
                return .json(SaxoWire.user(call.client, lastLogin: call.lastLogin))
            }
        )
        routes.append(
            Route(.get, "port/v1/accounts/me") { call in
                .json(try SaxoRoutes.envelope([SaxoWire.account(call.client)], call, alwaysCount: false))
            }
        )
        routes.append(
            Route(.get, "port/v1/accounts") { call in
                try SaxoRoutes.checkClientKey(call, call.client, required: true)
                return .json(try SaxoRoutes.envelope([SaxoWire.account(call.client)], call, alwaysCount: false))
            }
        )
        routes.append(
            Route(.get, "port/v1/accounts/{AccountKey*}") { call in
                guard call.parameter("AccountKey") == call.client.accountKey else { throw SaxoAPIError.notFound("Account not found") }
                return .json(SaxoWire.account(call.client))
            }
        )

        routes.append(Route(.get, "port/v1/balances/me") { call in try me.balance(call, mine: true) })
        routes.append(Route(.get, "port/v1/balances") { call in try me.balance(call, mine: false) })

        routes.append(Route(.get, "port/v1/netpositions/me") { call in try me.netPositions(call, mine: true) })
        routes.append(Route(.get, "port/v1/netpositions") { call in try me.netPositions(call, mine: false) })
        routes.append(Route(.get, "port/v1/netpositions/{NetPositionId}") { call in try me.netPosition(call) })

        routes.append(Route(.get, "port/v1/positions/me") { call in try me.positions(call, mine: true) })
        routes.append(Route(.get, "port/v1/positions") { call in try me.positions(call, mine: false) })
        routes.append(Route(.get, "port/v1/positions/{PositionId}") { call in try me.position(call) })

        routes.append(Route(.get, "port/v1/orders/me") { call in try me.orders(call, mine: true) })
        routes.append(Route(.get, "port/v1/orders") { call in try me.orders(call, mine: false) })
        routes.append(Route(.get, "port/v1/orders/{OrderId}/details") { call in try me.orderDetails(call) })
        routes.append(Route(.get, "port/v1/orders/{ClientKey*}/{OrderId}") { call in try me.order(call) })
    }

    struct PortfolioHandlers: Sendable {
        let sandbox: SaxoSandbox

        func balance(_ call: SaxoCall, mine: Bool) throws -> Response {
            if !mine {
                try SaxoRoutes.checkClientKey(call, call.client, required: true)
                try SaxoRoutes.checkAccountKey(call.query["AccountKey"], call.client)
            }
            let groups = try SaxoRoutes.fieldGroups(call, allowed: SaxoRoutes.balanceFieldGroups, default: [])
            let currency = call.client.currency
            let rate = sandbox.configuration.fxMarginRate
            return .json(
                try sandbox.withBook(call.client.clientKey) { book, env in
                    SaxoWire.balance(book.accountValuation(env: env), currency: currency, marginRate: rate, fieldGroups: groups)
                }
            )
        }

        func netPositions(_ call: SaxoCall, mine: Bool) throws -> Response {
            if !mine {
                try SaxoRoutes.checkClientKey(call, call.client, required: true)
                try SaxoRoutes.checkAccountKey(call.query["AccountKey"], call.client)
            }
            let groups = try SaxoRoutes.fieldGroups(
                call,
                allowed: SaxoRoutes.netPositionFieldGroups,
                default: ["NetPositionBase", "NetPositionView"]
            )
            let client = call.client
            let items = try sandbox.withBook(call.client.clientKey) { book, env in
                book.netPositionValuations(env: env).map { SaxoWire.netPosition($0, client: client, fieldGroups: groups) }
            }
            return .json(try SaxoRoutes.envelope(items, call, alwaysCount: true))
        }

        func netPosition(_ call: SaxoCall) throws -> Response {
            try SaxoRoutes.checkClientKey(call, call.client, required: true)
            let id = call.parameter("NetPositionId")
            let groups = try SaxoRoutes.fieldGroups(
                call,
                allowed: SaxoRoutes.netPositionFieldGroups,
                default: ["NetPositionBase", "NetPositionView"]
            )
            let client = call.client
            let item = try sandbox.withBook(call.client.clientKey) { book, env in
                book.netPositionValuations(env: env).first { $0.instrument.netPositionID.caseInsensitiveCompare(id) == .orderedSame }
                    .map { SaxoWire.netPosition($0, client: client, fieldGroups: groups) }
            }
            guard let item else { throw SaxoAPIError.notFound("Net position \(id) was not found.") }
            return .json(item)
        }

        func positions(_ call: SaxoCall, mine: Bool) throws -> Response {
            if !mine {
                try SaxoRoutes.checkClientKey(call, call.client, required: true)
                try SaxoRoutes.checkAccountKey(call.query["AccountKey"], call.client)
            }
            let groups = try SaxoRoutes.fieldGroups(call, allowed: SaxoRoutes.positionFieldGroups, default: ["PositionBase", "PositionView"])
            let netPositionID = call.query["NetPositionId"].flatMap { $0.isEmpty ? nil : $0 }
            let client = call.client
            let items = try sandbox.withBook(call.client.clientKey) { book, env in
                book.positions.filter { position in
                    netPositionID.map { position.instrument.netPositionID.caseInsensitiveCompare($0) == .orderedSame } ?? true
                }.map { SaxoWire.position(book.valuation(of: $0, env: env), client: client, fieldGroups: groups) }
            }
            return .json(try SaxoRoutes.envelope(items, call, alwaysCount: true))
        }

        func position(_ call: SaxoCall) throws -> Response {
            try SaxoRoutes.checkClientKey(call, call.client, required: true)
            let id = call.parameter("PositionId")
            let groups = try SaxoRoutes.fieldGroups(call, allowed: SaxoRoutes.positionFieldGroups, default: ["PositionBase", "PositionView"])
            let client = call.client
            let item = try sandbox.withBook(call.client.clientKey) { book, env in
                book.positions.first { $0.id == id }.map { SaxoWire.position(book.valuation(of: $0, env: env), client: client, fieldGroups: groups) }
            }
            guard let item else { throw SaxoAPIError.notFound("Position \(id) was not found.") }
            return .json(item)
        }

        func orders(_ call: SaxoCall, mine: Bool) throws -> Response {
            if !mine {
                try SaxoRoutes.checkClientKey(call, call.client, required: true)
                try SaxoRoutes.checkAccountKey(call.query["AccountKey"], call.client)
            }
            let groups = try SaxoRoutes.fieldGroups(call, allowed: SaxoRoutes.orderFieldGroups, default: [])
            if let status = call.query["Status"], !status.isEmpty,
                !["All", "Working"].contains(where: { $0.caseInsensitiveCompare(status) == .orderedSame })
            {
                throw SaxoAPIError.invalidModelState("Status", "The value '\(status)' is not valid for Status.")
            }
            let client = call.client
            let items = try sandbox.withBook(call.client.clientKey) { book, env in
                book.orders.map { SaxoWire.order($0, quote: env.quote($0.instrument), client: client, fieldGroups: groups) }
            }
            return .json(try SaxoRoutes.envelope(items, call, alwaysCount: true))
        }

        /// `GET port/v1/orders/{ClientKey}/{OrderId}`: a list envelope, empty once the order has filled or gone.
        func order(_ call: SaxoCall) throws -> Response {
            guard call.parameter("ClientKey") == call.client.clientKey else {
                throw SaxoAPIError.invalidModelState("ClientKey", "Invalid ClientKey '\(call.parameter("ClientKey"))'.")
            }
            let id = call.parameter("OrderId")
            let groups = try SaxoRoutes.fieldGroups(call, allowed: SaxoRoutes.orderFieldGroups, default: [])
            let client = call.client
            let items = try sandbox.withBook(call.client.clientKey) { book, env in
                book.orders.filter { $0.id == id }.map { SaxoWire.order($0, quote: env.quote($0.instrument), client: client, fieldGroups: groups) }
            }
            return .json(try SaxoRoutes.envelope(items, call, alwaysCount: true))
        }

        /// `GET port/v1/orders/{OrderId}/details?ClientKey=`: one object with display and exchange information.
        func orderDetails(_ call: SaxoCall) throws -> Response {
            try SaxoRoutes.checkClientKey(call, call.client, required: true)
            let id = call.parameter("OrderId")
            let client = call.client
            let item = try sandbox.withBook(call.client.clientKey) { book, env in
                book.order(id).map {
                    SaxoWire.order($0, quote: env.quote($0.instrument), client: client, fieldGroups: ["DisplayAndFormat", "ExchangeInfo"])
                }
            }
            guard let item else { throw SaxoAPIError.orderNotFound(id) }
            return .json(item)
        }
    }
}
