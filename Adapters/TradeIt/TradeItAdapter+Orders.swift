import Foundation
import GatewayCore
public import GatewayModel
import Logging

extension TradeItAdapter {
    /// `order/getAllOrderStatus` for each account (or the one asked for), then filtered here by state and symbols and cut
    /// to the query's limit, since TradeIt filters nothing.
    public func orders(_ query: OrderQuery) async throws -> [Order] {
        let numbers = try await accountNumbers(query.accountId)
        let all = try await forEachAccount(numbers) { number in
            let response = try await sessionCall(TradeItOrderStatusResponse.self, "order/getAllOrderStatus") {
                TradeItAccountRequest(token: $0.token, accountNumber: number)
            }
            return try (response.orderStatusDetailsList ?? []).map {
                try Order(tradeIt: $0, connectionId: connectionId, accountId: number)
            }
        }
        let symbols = Set(query.symbols.map { $0.uppercased() })
        let selected = all.filter { order in
            let stateMatches =
                switch query.state {
                case .open: order.status.isActive
                case .closed: !order.status.isActive
                case .all: true
                }
            return stateMatches && (symbols.isEmpty || symbols.contains(order.instrument.symbol))
        }
        return Array(selected.prefix(max(query.limit, 1)))
    }

    /// `order/getSingleOrderStatus`, asked of each account in turn, since an order number does not name its account.
    public func order(brokerOrderId: String) async throws -> Order {
        // The order number alone does not say its account: ask each account until one knows it.
        for number in try await accountNumbers(nil) {
            do {
                return try await singleOrder(brokerOrderId, account: number)
            } catch let error as GatewayError where error.code == .notFound {
                continue
            }
        }
        throw GatewayError(.notFound, "TradeIt: no order \(brokerOrderId)", broker: .tradeit)
    }

    func singleOrder(_ orderNumber: String, account: String, clientOrderId: String? = nil) async throws -> Order {
        let response = try await sessionCall(TradeItOrderStatusResponse.self, "order/getSingleOrderStatus") {
            TradeItOrderNumberRequest(token: $0.token, accountNumber: account, orderNumber: orderNumber)
        }
        guard let details = response.orderStatusDetailsList?.first else {
            throw TradeItErrors.malformed("order/getSingleOrderStatus answered no order")
        }
        return try Order(tradeIt: details, connectionId: connectionId, accountId: account, clientOrderId: clientOrderId)
    }

    /// TradeIt has no client order ids; the gateway reconciles a lost placement by matching the order list.
    public func order(clientOrderId: String, accountId: String) async throws -> Order? { nil }

    // MARK: Preview and place

    /// TradeIt's own preview (`order/previewStockOrEtfOrder` or `order/previewCryptoOrder`): its estimates and warnings,
    /// with its `orderId` kept as the broker preview id.
    public func previewOrder(_ request: OrderRequest) async throws -> OrderPreview {
        let (preview, _) = try await brokerPreview(request)
        let details = preview.orderDetails
        let estimatedPrice: Decimal? =
            switch request.type {
            case .limit, .stopLimit: request.limitPrice
            case .stop: request.stopPrice
            case .market: (request.side.isBuy ? details?.askPrice : details?.bidPrice) ?? details?.lastPrice
            }
        let warnings = (details?.warnings ?? []).compactMap(\.message) + (preview.warningsList ?? []) + (preview.ackWarningsList ?? [])
        return OrderPreview(
            id: RandomIdentifier.uuid(),
            expiresAt: configuration.now().addingTimeInterval(configuration.previewLifetime),
            request: request,
            currency: Self.currency(of: request),
            estimatedPrice: estimatedPrice,
            estimatedCost: details?.estimatedTotalValue ?? details?.estimatedOrderValue,
            estimatedCommission: details?.estimatedOrderCommission,
            warnings: warnings,
            brokerPreviewId: preview.orderId
        )
    }

    /// Always previews and places in one call: TradeIt places only a previewed `orderId`, and a fresh preview means a
    /// stale one (from an earlier `POST /v1/orders/preview`) is never placed.
    public func placeOrder(_ request: OrderRequest) async throws -> Order {
        let (preview, isCrypto) = try await brokerPreview(request)
        let placed = try await sessionCall(
            TradeItPlaceResponse.self,
            isCrypto ? "order/placeCryptoOrder" : "order/placeStockOrEtfOrder",
            write: true
        ) { TradeItPlaceRequest(token: $0.token, orderId: preview.orderId) }
        // The place answer has no state: read it once; if that read fails, the order is still placed (pending_new).
        do {
            return try await singleOrder(placed.orderNumber, account: request.accountId, clientOrderId: request.clientOrderId)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            context.logger.debug("tradeit order read after place failed", metadata: ["orderNumber": "\(placed.orderNumber)"])
            return Order(
                id: placed.orderNumber,
                brokerOrderId: placed.orderNumber,
                clientOrderId: request.clientOrderId ?? placed.orderNumber,
                connectionId: connectionId,
                broker: .tradeit,
                accountId: request.accountId,
                instrument: Instrument(symbol: request.instrument.symbol.uppercased(), assetClass: isCrypto ? .crypto : .equity),
                side: request.side,
                type: request.type,
                timeInForce: request.timeInForce,
                quantity: request.quantity ?? 0,
                limitPrice: request.limitPrice,
                stopPrice: request.stopPrice,
                status: .pendingNew,
                brokerStatus: nil
            )
        }
    }

    /// `order/previewStockOrEtfOrder` or `order/previewCryptoOrder` (status `REVIEW_ORDER`).
    func brokerPreview(_ request: OrderRequest) async throws -> (TradeItPreviewResponse, crypto: Bool) {
        let problems = request.problems() + Self.rules(request)
        guard problems.isEmpty else { throw GatewayError.unprocessable(problems).with(broker: .tradeit) }
        _ = try await accountNumbers(request.accountId)
        let isCrypto = request.instrument.impliedAssetClass == .crypto
        let quantity = DecimalText.format(try request.units(at: .tradeit))
        let limit = request.limitPrice.map(DecimalText.format)
        let stop = request.stopPrice.map(DecimalText.format)
        let preview: TradeItPreviewResponse
        if isCrypto {
            preview = try await sessionCall(
                TradeItPreviewResponse.self,
                "order/previewCryptoOrder",
                write: true,
                expecting: "REVIEW_ORDER"
            ) {
                TradeItPreviewCryptoRequest(
                    token: $0.token,
                    accountNumber: request.accountId,
                    orderPair: request.instrument.symbol.uppercased(),
                    orderAction: request.side.tradeIt,
                    orderQuantity: quantity,
                    orderQuantityType: "BASE_CURRENCY",
                    orderPriceType: request.type.tradeIt,
                    orderLimitPrice: limit,
                    orderStopPrice: stop,
                    orderExpiration: request.timeInForce.rawValue
                )
            }
        } else {
            preview = try await sessionCall(
                TradeItPreviewResponse.self,
                "order/previewStockOrEtfOrder",
                write: true,
                expecting: "REVIEW_ORDER"
            ) {
                TradeItPreviewStockRequest(
                    token: $0.token,
                    accountNumber: request.accountId,
                    orderSymbol: request.instrument.symbol.uppercased(),
                    orderAction: request.side.tradeIt,
                    orderQuantity: quantity,
                    orderPriceType: request.type.tradeIt,
                    orderLimitPrice: limit,
                    orderStopPrice: stop,
                    orderExpiration: request.timeInForce.rawValue,
                    userDisabledMargin: false
                )
            }
        }
        return (preview, isCrypto)
    }

    /// TradeIt's own limits, checked before anything is sent.
    static func rules(_ request: OrderRequest) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        if request.notional != nil { problems.append(OrderRequest.notionalProblem(at: .tradeit)) }
        if ![.day, .gtc].contains(request.timeInForce) {
            problems.append(FieldProblem(field: "timeInForce", problem: "must be day or gtc at TradeIt"))
        }
        switch request.instrument.impliedAssetClass {
        case .equity, .etf: break
        case .crypto:
            if request.type == .stop || request.type == .stopLimit {
                problems.append(FieldProblem(field: "type", problem: "must be market or limit for crypto at TradeIt"))
            }
        default:
            problems.append(FieldProblem(field: "assetClass", problem: "must be equity, etf or crypto at TradeIt"))
        }
        return problems
    }

    static func currency(of request: OrderRequest) -> String {
        if request.instrument.impliedAssetClass == .crypto, let quote = request.instrument.symbol.split(separator: "/").last {
            return String(quote).uppercased()
        }
        return "USD"
    }

    // MARK: Cancel and modify

    /// `order/cancelOrder` with the order's account and number; the answer is the order's status after the request, keeping
    /// the gateway's order id.
    public func cancelOrder(_ order: Order) async throws -> Order {
        guard let number = order.brokerOrderId else {
            throw GatewayError(.invalidRequest, "TradeIt: the order has no broker order number", broker: .tradeit)
        }
        let response = try await sessionCall(TradeItOrderStatusResponse.self, "order/cancelOrder", write: true) {
            TradeItOrderNumberRequest(token: $0.token, accountNumber: order.accountId, orderNumber: number)
        }
        guard let details = response.orderStatusDetailsList?.first else {
            throw TradeItErrors.malformed("order/cancelOrder answered no order")
        }
        var canceled = try Order(tradeIt: details, connectionId: connectionId, accountId: order.accountId, clientOrderId: order.clientOrderId)
        canceled.id = order.id
        return canceled
    }

    /// Emulated: cancel, then place the changed order. If the cancel succeeds and the placement fails, the error says
    /// exactly that, so nobody believes the original still works.
    public func modifyOrder(_ order: Order, _ modification: OrderModification) async throws -> Order {
        let canceled = try await cancelOrder(order)
        let quantity = (modification.quantity ?? order.quantity) - canceled.filledQuantity
        let type = modification.type ?? order.type
        let replacement = OrderRequest(
            connectionId: order.connectionId,
            accountId: order.accountId,
            instrument: InstrumentReference(symbol: order.instrument.symbol, assetClass: order.instrument.assetClass),
            side: order.side,
            type: type,
            timeInForce: modification.timeInForce ?? order.timeInForce,
            quantity: quantity,
            limitPrice: type.needsLimitPrice ? (modification.limitPrice ?? order.limitPrice) : nil,
            stopPrice: type.needsStopPrice ? (modification.stopPrice ?? order.stopPrice) : nil,
            clientOrderId: order.clientOrderId
        )
        do {
            guard quantity > 0 else {
                throw GatewayError.unprocessable([FieldProblem(field: "quantity", problem: "must exceed the quantity already filled")])
            }
            var placed = try await placeOrder(replacement)
            placed.id = order.id
            return placed
        } catch {
            let cause = (error as? GatewayError)
            throw GatewayError(
                cause?.code ?? .upstreamUnavailable,
                "TradeIt: the original order \(order.brokerOrderId ?? order.id) was cancelled and the replacement was not placed: \(cause?.message ?? "\(error)")",
                broker: .tradeit,
                retryable: false,
                details: cause?.details ?? [],
                brokerCode: cause?.brokerCode
            )
        }
    }

    // MARK: Quotes

    /// Equities through TradeIt's own market data (`marketdata/getQuotes`, all at once, keyed by the app's key, no
    /// session); crypto pairs through the broker's (`brokermarketdata/getCryptoQuote`, one pair a call, which needs a
    /// session and an account). Symbols TradeIt does not list are left out of its answer.
    public func quotes(_ instruments: [InstrumentReference]) async throws -> [Quote] {
        let pairs = instruments.filter { $0.impliedAssetClass == .crypto }
        var equities: [String] = []
        var unsupported: [FieldProblem] = []
        for (index, reference) in instruments.enumerated() where reference.impliedAssetClass != .crypto {
            switch reference.impliedAssetClass {
            case .equity, .etf:
                let symbol = reference.symbol.uppercased()
                if !equities.contains(symbol) { equities.append(symbol) }
            default:
                unsupported.append(
                    FieldProblem(field: "instruments[\(index)]", problem: "TradeIt quotes equities and crypto pairs only")
                )
            }
        }
        guard unsupported.isEmpty else { throw GatewayError.unprocessable(unsupported).with(broker: .tradeit) }
        var quotes: [Quote] = []
        if !equities.isEmpty {
            let response = try await call(
                TradeItQuotesResponse.self,
                "marketdata/getQuotes",
                TradeItQuotesRequest(apiKey: configuration.apiKey, symbols: equities.joined(separator: ","))
            )
            quotes += (response.quotes ?? []).compactMap { Quote(tradeIt: $0, connectionId: connectionId) }
        }
        guard !pairs.isEmpty else { return quotes }
        guard let account = try await accountNumbers(nil).first else {
            throw GatewayError(.forbidden, "TradeIt: the connection has no account to quote with", broker: .tradeit)
        }
        for instrument in pairs {
            let pair = instrument.symbol.uppercased()
            let response = try await sessionCall(TradeItCryptoQuoteResponse.self, "brokermarketdata/getCryptoQuote") {
                TradeItCryptoQuoteRequest(token: $0.token, accountNumber: account, pair: pair)
            }
            quotes.append(Quote(tradeIt: response, pair: pair, connectionId: connectionId))
        }
        return quotes
    }
}

extension GatewayError {
    func with(broker: BrokerKind) -> GatewayError {
        var copy = self
        copy.broker = broker
        return copy
    }
}
