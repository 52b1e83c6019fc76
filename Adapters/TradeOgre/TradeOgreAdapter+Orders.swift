public import Foundation
import GatewayCore
public import GatewayModel
import Logging

extension TradeOgreAdapter {
    // MARK: Reading orders

    /// `POST /account/orders` lists open orders only (with `market` when one symbol is asked for). The list gives only
    /// what remains of each order, so every order kept is then read by uuid for its size and fills (at most
    /// `balanceConcurrency` reads at once): a partly filled order reads as partially_filled with its whole quantity.
    /// An order that closes between the two calls (`Order not found`) is left out; any other failure fails the call.
    /// TradeOgre keeps no order history: `state=all` lists the open orders too, `state=closed` is unprocessable.
    /// Newest first.
    public func orders(_ query: OrderQuery) async throws -> [Order] {
        try check(query.accountId)
        if query.state == .closed {
            throw GatewayError.unprocessable([
                FieldProblem(field: "state", problem: "TradeOgre lists open orders only: use open")
            ]).with(broker: .tradeogre)
        }
        try requireKeys()
        var markets: [MarketName] = []
        for (index, symbol) in query.symbols.enumerated() {
            markets.append(try market(of: InstrumentReference(symbol: symbol), field: "symbols[\(index)]"))
        }
        let form: [(String, String)] = markets.count == 1 ? [("market", markets[0].wire(naming))] : []
        let open = try await fetch([TradeOgreOpenOrder].self, .openOrders(), form: form)
        var listed = try open.map { try Order(tradeOgre: $0, connectionId: connectionId, accountId: Self.accountId, naming: naming) }
        if markets.count > 1 {
            let symbols = Set(markets.map(\.symbol))
            listed = listed.filter { symbols.contains($0.instrument.symbol) }
        }
        if let after = query.after { listed = listed.filter { ($0.createdAt ?? .distantPast) > after } }
        if let until = query.until { listed = listed.filter { ($0.createdAt ?? .distantFuture) <= until } }
        listed.sort { ($0.createdAt ?? .distantPast) > ($1.createdAt ?? .distantPast) }
        listed = Array(listed.prefix(max(1, query.limit)))
        return try await withFills(listed)
    }

    /// Each listed order read by uuid, in the list's order, a bounded number at a time.
    func withFills(_ listed: [Order]) async throws -> [Order] {
        let limit = max(1, configuration.balanceConcurrency)
        let found = try await withThrowingTaskGroup(of: (Int, Order?).self) { group in
            var next = 0
            var results: [Int: Order] = [:]
            func start() {
                let index = next
                let uuid = listed[index].brokerOrderId ?? ""
                next += 1
                let entry = listed[index]
                group.addTask {
                    do {
                        return (index, try await readOrder(uuid: uuid, clientOrderId: nil))
                    } catch let error as GatewayError where Self.isOrderNotFound(error) {
                        return (index, nil)
                    } catch let error as GatewayError where ![.unauthorized, .forbidden].contains(error.code) {
                        // One order's detail failed: the list keeps the order as listed (without its fills), and says so.
                        ReadGaps.record(
                            GatewayError(
                                error.code,
                                "TradeOgre order \(uuid) could not be read in detail (\(error.message)): it is listed without its fills",
                                broker: .tradeogre,
                                retryable: error.retryable,
                                retryAfter: error.retryAfter
                            )
                        )
                        return (index, entry)
                    }
                }
            }
            while next < listed.count, next < limit { start() }
            while let (index, order) = try await group.next() {
                if let order { results[index] = order }
                if next < listed.count { start() }
            }
            return results
        }
        return listed.indices.compactMap { found[$0] }
    }

    /// `GET /account/order/{uuid}`. The answer has no status: remaining 0 is filled, a fill with something left is
    /// partially filled, else open. A canceled order is no longer answered: `not_found`.
    public func order(brokerOrderId: String) async throws -> Order {
        try requireKeys()
        return try await readOrder(uuid: brokerOrderId, clientOrderId: nil)
    }

    /// TradeOgre has no client order ids, so there is nothing to look up: always `nil`. A placement whose answer
    /// was lost is found instead by `OrderMatcher` among ``orders(_:)``, from the intent the gateway journaled (or
    /// ``placement(clientOrderId:)``'s `intent` for a placement this adapter sent).
    public func order(clientOrderId: String, accountId: String) async throws -> Order? {
        try check(accountId)
        return nil
    }

    /// What this adapter sent for a placement, if it sent it (the last 256 are kept).
    public func placement(clientOrderId: String) -> PlacementRecord? {
        session.placement(clientOrderId: clientOrderId)
    }

    // MARK: Preview

    /// Emulated from the ticker and the available balance of the currency the order spends: the price is the limit,
    /// the cost `limit × quantity` in the quote currency; for a buy, `buyingPowerAfter` is the available quote
    /// currency less the cost. Warnings say when the balance does not cover the order, and when the limit crosses the
    /// book (the order trades at once, at the book's prices or better).
    public func previewOrder(_ request: OrderRequest) async throws -> OrderPreview {
        try validate(request)
        try check(request.accountId)
        try requireKeys()
        let market = try market(of: request.instrument, field: "symbol")
        let limit = request.limitPrice ?? 0
        let buying = request.side.isBuy
        let spent = buying ? market.quote : market.base
        async let tickerCall = fetch(TradeOgreTicker.self, .ticker(market: market.wire(naming)))
        async let balanceCall = fetch(TradeOgreBalance.self, .balance(), form: [("currency", spent)])
        let (ticker, balance) = try await (tickerCall, balanceCall)

        let quantity = try request.units(at: .tradeogre)
        let cost = limit * quantity
        var warnings: [String] = []
        var buyingPowerAfter: Decimal?
        if buying {
            buyingPowerAfter = balance.available - cost
            if cost > balance.available { warnings.append("the estimated cost exceeds the available \(spent) balance") }
            if let ask = ticker.ask, ask > 0, limit >= ask {
                warnings.append("the limit is at or above the ask: the order trades at once, at the ask or better")
            }
        } else {
            if quantity > balance.available { warnings.append("the quantity exceeds the available \(spent) balance") }
            if let bid = ticker.bid, bid > 0, limit <= bid {
                warnings.append("the limit is at or below the bid: the order trades at once, at the bid or better")
            }
        }
        return OrderPreview(
            id: RandomIdentifier.uuid(),
            expiresAt: configuration.now().addingTimeInterval(configuration.previewLifetime),
            request: request,
            currency: market.quote,
            estimatedPrice: limit,
            estimatedCost: cost,
            buyingPowerAfter: buyingPowerAfter,
            warnings: warnings
        )
    }

    // MARK: Placing, cancelling, changing

    /// `POST /order/buy` or `/order/sell` with `market`, `quantity`, `price`, then a best-effort read of the new
    /// order for its fills. What was sent is recorded first (see ``placement(clientOrderId:)``).
    ///
    /// The answer carries only a uuid: when the read-back fails the order is reported open (TradeOgre documents a uuid
    /// for an order that rests on the book). An answer without a uuid means the order filled at once.
    public func placeOrder(_ request: OrderRequest) async throws -> Order {
        try validate(request)
        try check(request.accountId)
        try requireKeys()
        guard let clientOrderId = request.clientOrderId else {
            throw GatewayError.invalid("clientOrderId", "is required").with(broker: .tradeogre)
        }
        guard let limit = request.limitPrice else {
            throw GatewayError.unprocessable([FieldProblem(field: "limitPrice", problem: "is required for limit orders")])
                .with(broker: .tradeogre)
        }
        let quantity = try request.units(at: .tradeogre)
        let market = try market(of: request.instrument, field: "symbol")
        let side: OrderSide = request.side.isBuy ? .buy : .sell
        session.record(
            PlacementRecord(
                clientOrderId: clientOrderId,
                instrument: request.instrument,
                side: side,
                price: limit,
                quantity: quantity,
                sentAt: configuration.now()
            )
        )
        let placement = try await fetch(
            TradeOgrePlacement.self,
            side == .buy ? .buy() : .sell(),
            form: [
                ("market", market.wire(naming)), ("quantity", DecimalText.format(quantity)),
                ("price", DecimalText.format(limit)),
            ]
        )
        let instrument = Instrument(tradeOgre: market, naming: naming)
        guard let uuid = placement.uuid else {
            return Order(
                id: clientOrderId,
                brokerOrderId: nil,
                clientOrderId: clientOrderId,
                connectionId: connectionId,
                broker: .tradeogre,
                accountId: Self.accountId,
                instrument: instrument,
                side: side,
                type: .limit,
                timeInForce: .gtc,
                quantity: quantity,
                limitPrice: limit,
                status: .filled,
                filledQuantity: quantity,
                createdAt: configuration.now()
            )
        }
        do {
            return try await readOrder(uuid: uuid, clientOrderId: clientOrderId)
        } catch {
            context.logger.warning(
                "tradeogre order placed but not read back",
                metadata: ["error": "\((error as? GatewayError)?.code.rawValue ?? "other")"]
            )
            return Order(
                id: uuid,
                brokerOrderId: uuid,
                clientOrderId: clientOrderId,
                connectionId: connectionId,
                broker: .tradeogre,
                accountId: Self.accountId,
                instrument: instrument,
                side: side,
                type: .limit,
                timeInForce: .gtc,
                quantity: quantity,
                limitPrice: limit,
                status: .open,
                createdAt: configuration.now()
            )
        }
    }

    /// Reads the order (`GET /account/order/{uuid}`), then `POST /order/cancel` with its uuid.
    ///
    /// - A filled order cannot be canceled: `conflict`.
    /// - An order TradeOgre no longer answers for (`Order not found`) was already canceled: filled orders stay
    ///   answerable, so it is reported from what the gateway knew, canceled (or filled if it had filled completely).
    ///   Cancelling twice is therefore harmless.
    /// - A cancel refused with `Order not found` (the order filled or was canceled meanwhile) is read again to say which.
    public func cancelOrder(_ order: Order) async throws -> Order {
        try requireKeys()
        let uuid = try brokerId(of: order)
        let current: Order
        do {
            current = try await readOrder(uuid: uuid, clientOrderId: order.clientOrderId)
        } catch let error as GatewayError where Self.isOrderNotFound(error) {
            return Self.alreadyClosed(order)
        }
        if current.status == .filled { throw stateConflict(uuid: uuid, status: .filled) }
        do {
            _ = try await fetch(TradeOgreEnvelope.self, .cancel(), form: [("uuid", uuid)])
        } catch let error as GatewayError where Self.isOrderNotFound(error) {
            let again: Order
            do {
                again = try await readOrder(uuid: uuid, clientOrderId: order.clientOrderId)
            } catch let readError as GatewayError where Self.isOrderNotFound(readError) {
                return Self.alreadyClosed(current)
            }
            if again.status == .filled { throw stateConflict(uuid: uuid, status: .filled) }
            throw error
        }
        var canceled = current
        canceled.status = .canceled
        return canceled
    }

    /// Emulated as cancel, then place: TradeOgre cannot change an order. The replacement keeps the side, market and
    /// client order id, takes the new limit price and/or quantity (a new total: what already traded is subtracted),
    /// and has a new `brokerOrderId`. If the cancel fails nothing changed and its error is thrown. If the cancel
    /// succeeds and the placement fails, the error says exactly that: the original was cancelled and the replacement
    /// was not placed (or, when the venue's answer was lost, that whether it was placed is unknown).
    public func modifyOrder(_ order: Order, _ modification: OrderModification) async throws -> Order {
        let problems = TradeOgreRules.problems(for: modification)
        guard problems.isEmpty else { throw GatewayError.unprocessable(problems).with(broker: .tradeogre) }
        let uuid = try brokerId(of: order)
        let canceled = try await cancelOrder(order)
        guard canceled.status == .canceled else { throw stateConflict(uuid: uuid, status: canceled.status) }

        let quantity = (modification.quantity ?? canceled.quantity) - canceled.filledQuantity
        guard quantity > 0 else {
            throw GatewayError(
                .unprocessable,
                "TradeOgre: the original order \(uuid) was cancelled and the replacement was not placed: \(DecimalText.format(canceled.filledQuantity)) already traded, which leaves nothing to place",
                broker: .tradeogre,
                retryable: false,
                details: [FieldProblem(field: "quantity", problem: "must exceed the quantity already filled")]
            )
        }
        let replacement = OrderRequest(
            connectionId: order.connectionId,
            accountId: order.accountId,
            instrument: InstrumentReference(symbol: order.instrument.symbol, assetClass: .crypto),
            side: order.side,
            type: .limit,
            timeInForce: .gtc,
            quantity: quantity,
            limitPrice: modification.limitPrice ?? canceled.limitPrice,
            clientOrderId: order.clientOrderId
        )
        do {
            return try await placeOrder(replacement)
        } catch {
            throw Self.replacementFailed(original: uuid, cause: error)
        }
    }

    // MARK: Helpers

    func readOrder(uuid: String, clientOrderId: String?) async throws -> Order {
        let detail = try await fetch(TradeOgreOrderDetail.self, .order(uuid: uuid))
        return try Order(
            tradeOgre: detail,
            uuid: uuid,
            clientOrderId: clientOrderId,
            connectionId: connectionId,
            accountId: Self.accountId,
            naming: naming
        )
    }

    func validate(_ request: OrderRequest) throws {
        let problems = TradeOgreRules.problems(for: request)
        guard problems.isEmpty else { throw GatewayError.unprocessable(problems).with(broker: .tradeogre) }
    }

    func brokerId(of order: Order) throws -> String {
        guard let id = order.brokerOrderId, !id.isEmpty else {
            throw GatewayError.invalid("brokerOrderId", "is required to address a TradeOgre order").with(broker: .tradeogre)
        }
        return id
    }

    func stateConflict(uuid: String, status: OrderStatus) -> GatewayError {
        GatewayError(
            .conflict,
            "TradeOgre order \(uuid) is \(status.rawValue) and can no longer be canceled or changed",
            broker: .tradeogre,
            retryable: false
        )
    }

    static func isOrderNotFound(_ error: GatewayError) -> Bool {
        error.code == .notFound && error.brokerCode == "Order not found"
    }

    /// The rule for an order TradeOgre no longer answers for: filled if what traded is the whole order, else canceled.
    static func alreadyClosed(_ order: Order) -> Order {
        var closed = order
        closed.status = order.filledQuantity >= order.quantity && order.quantity > 0 ? .filled : .canceled
        return closed
    }

    /// The error of an emulated modify whose cancel succeeded and whose placement did not.
    static func replacementFailed(original uuid: String, cause: any Error) -> GatewayError {
        guard let cause = cause as? GatewayError else {
            return GatewayError(
                .internalError,
                "TradeOgre: the original order \(uuid) was cancelled and the replacement was not placed: \(cause)",
                broker: .tradeogre,
                retryable: false
            )
        }
        let unknownOutcome: Set<GatewayError.Code> = [.upstreamTimeout, .upstreamUnavailable, .malformedResponse]
        let message =
            unknownOutcome.contains(cause.code)
            ? "TradeOgre: the original order \(uuid) was cancelled and whether the replacement was placed is unknown (\(cause.message)); look for it among the open orders"
            : "TradeOgre: the original order \(uuid) was cancelled and the replacement was not placed: \(cause.message)"
        return GatewayError(
            cause.code,
            message,
            broker: .tradeogre,
            retryable: false,
            details: cause.details,
            brokerCode: cause.brokerCode
        )
    }
}
