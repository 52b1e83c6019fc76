import Foundation
import Hummingbird
import SandboxKit

/// `/v2/positions` and `/v2/orders`.
extension AlpacaRoutes {
    // MARK: Positions

    func positions(_ context: SandboxRequestContext) throws -> Response {
        let id = try accountID(context)
        return .json(try sandbox.withBook(id) { book, env in AlpacaWire.positions(book, env: env) })
    }

    func position(_ context: SandboxRequestContext) throws -> Response {
        let id = try accountID(context)
        let symbol = symbolParameter(context)
        return .json(
            try sandbox.withBook(id) { book, env in
                guard let instrument = sandbox.assets.resolve(symbol), let position = book.positions[instrument.symbol] else {
                    throw AlpacaAPIError.notFound("position does not exist")
                }
                return AlpacaWire.position(
                    position,
                    valuation: env.valuation(instrument),
                    qtyAvailable: max(0, position.qty - book.heldForOrders(instrument)),
                    now: env.now
                )
            }
        )
    }

    func closePosition(_ request: Request, _ context: SandboxRequestContext) throws -> Response {
        let id = try accountID(context)
        let symbol = symbolParameter(context)
        let query = request.queryParameters
        func decimal(_ name: String) throws(AlpacaAPIError) -> Decimal? {
            guard let text = query[name], !text.isEmpty else { return nil }
            guard let value = DecimalText.parse(text) else { throw .invalid("invalid \(name)") }
            return value
        }
        let qty = try decimal("qty")
        let percentage = try decimal("percentage")
        if qty != nil, percentage != nil { throw AlpacaAPIError.invalid("only one of qty or percentage may be specified") }
        if let percentage, DecimalText.fractionDigits(percentage) > 9 {
            throw AlpacaAPIError.invalid("percentage must have at most 9 decimal places")
        }
        return .json(
            try sandbox.withBook(id) { book, env in
                guard let instrument = sandbox.assets.resolve(symbol) else { throw AlpacaAPIError.notFound("position not found: \(symbol)") }
                return AlpacaWire.order(try book.closePosition(instrument, qty: qty, percentage: percentage, env: env))
            }
        )
    }

    func closeAllPositions(_ request: Request, _ context: SandboxRequestContext) throws -> Response {
        let id = try accountID(context)
        let cancelOrders = try Self.parseBool(request.queryParameters["cancel_orders"], name: "cancel_orders") ?? false
        let results: JSON = try sandbox.withBook(id) { book, env in
            if cancelOrders { _ = book.cancelAll(env: env) }
            let positions = book.positions.values.sorted { $0.instrument.symbol < $1.instrument.symbol }
            return .array(
                positions.map { position in
                    let symbol = JSON.string(AlpacaAssets.positionSymbol(position.instrument))
                    do throws(AlpacaAPIError) {
                        let order = try book.closePosition(position.instrument, qty: nil, percentage: nil, env: env)
                        return ["symbol": symbol, "status": 200, "body": AlpacaWire.order(order)]
                    } catch {
                        return ["symbol": symbol, "status": .int(Int(error.status.code)), "body": error.body]
                    }
                }
            )
        }
        return .json(results, status: .init(code: 207))
    }

    // MARK: Orders

    func submit(_ request: Request, _ context: SandboxRequestContext) async throws -> Response {
        let id = try accountID(context)
        let orderRequest = try AlpacaOrderRequest(json: try await body(request, context), assets: sandbox.assets)
        return .json(try sandbox.withBook(id) { book, env in AlpacaWire.order(try book.submit(orderRequest, env: env)) })
    }

    func orders(_ request: Request, _ context: SandboxRequestContext) throws -> Response {
        let id = try accountID(context)
        let query = request.queryParameters
        let status = query["status"].flatMap { $0.isEmpty ? nil : $0 } ?? "open"
        guard ["open", "closed", "all"].contains(status) else { throw AlpacaAPIError.invalid("invalid status") }
        var limit = 50
        if let text = query["limit"], !text.isEmpty {
            guard let value = Int(text), (1...500).contains(value) else { throw AlpacaAPIError.invalid("invalid limit") }
            limit = value
        }
        func time(_ name: String) throws(AlpacaAPIError) -> Date? {
            guard let text = query[name], !text.isEmpty else { return nil }
            guard let date = Timestamp.parse(text) else { throw .invalid("invalid \(name)") }
            return date
        }
        let after = try time("after")
        let until = try time("until")
        let direction = query["direction"].flatMap { $0.isEmpty ? nil : $0 } ?? "desc"
        guard direction == "asc" || direction == "desc" else { throw AlpacaAPIError.invalid("invalid direction") }
        _ = try Self.parseBool(query["nested"], name: "nested")
        var side: TradeSide?
        if let text = query["side"], !text.isEmpty {
            guard let value = TradeSide(rawValue: text) else { throw AlpacaAPIError.invalid("invalid side") }
            side = value
        }
        var symbols: Set<String>?
        if let text = query["symbols"], !text.isEmpty {
            symbols = Set(
                text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.map { sandbox.assets.resolve($0)?.symbol ?? $0 }
            )
        }

        return .json(
            try sandbox.withBook(id) { book, _ in
                var selected = book.orders.filter { order in
                    switch status {
                    case "open": guard order.status.isOpen else { return false }
                    case "closed": guard !order.status.isOpen else { return false }
                    default: break
                    }
                    if let after, order.submittedAt <= after { return false }
                    if let until, order.submittedAt >= until { return false }
                    if let side, order.side != side { return false }
                    if let symbols, !symbols.contains(order.instrument.symbol) { return false }
                    return true
                }
                // `orders` is in submission order already; newest first unless asked otherwise.
                if direction == "desc" { selected.reverse() }
                return .array(selected.prefix(limit).map(AlpacaWire.order))
            }
        )
    }

    func orderID(_ context: SandboxRequestContext) throws(AlpacaAPIError) -> UUID {
        guard let text = context.pathParameter("id"), let id = UUID(uuidString: text) else { throw .notFound("order not found") }
        return id
    }

    func order(_ context: SandboxRequestContext) throws -> Response {
        let id = try accountID(context)
        let orderID = try orderID(context)
        return .json(
            try sandbox.withBook(id) { book, _ in
                guard let order = book.order(orderID) else { throw AlpacaAPIError.notFound("order not found") }
                return AlpacaWire.order(order)
            }
        )
    }

    func orderByClientID(_ request: Request, _ context: SandboxRequestContext) throws -> Response {
        let id = try accountID(context)
        guard let clientOrderID = request.queryParameters["client_order_id"], !clientOrderID.isEmpty else {
            throw AlpacaAPIError.invalid("client_order_id is required")
        }
        return .json(
            try sandbox.withBook(id) { book, _ in
                guard let orderID = book.clientOrderIDs[clientOrderID], let order = book.order(orderID) else {
                    throw AlpacaAPIError.notFound("order not found")
                }
                return AlpacaWire.order(order)
            }
        )
    }

    func replace(_ request: Request, _ context: SandboxRequestContext) async throws -> Response {
        let id = try accountID(context)
        let orderID = try orderID(context)
        let replacement = try AlpacaReplaceRequest(json: try await body(request, context))
        return .json(try sandbox.withBook(id) { book, env in AlpacaWire.order(try book.replace(orderID: orderID, with: replacement, env: env)) })
    }

    func cancel(_ context: SandboxRequestContext) throws -> Response {
        let id = try accountID(context)
        let orderID = try orderID(context)
        _ = try sandbox.withBook(id) { book, env in try book.cancel(orderID: orderID, env: env).id }
        return Response(status: .noContent)
    }

    func cancelAll(_ context: SandboxRequestContext) throws -> Response {
        let id = try accountID(context)
        let results: JSON = try sandbox.withBook(id) { book, env in
            .array(book.cancelAll(env: env).map { ["id": AlpacaWire.uuid($0.id), "status": 200, "body": AlpacaWire.order($0)] })
        }
        return .json(results, status: .init(code: 207))
    }
}
