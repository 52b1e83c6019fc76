import Foundation
import Hummingbird
import SandboxKit

/// `trade/v2/orders` (place, change, cancel, precheck) and the seed app's legacy `trade/v1/orders`.
///
/// Order endpoints answer 200 with `{"OrderId":"76300001"}`; their errors are nested in `ErrorInfo`.
/// An identical POST/PATCH within ``SaxoSandboxConfiguration/duplicateOrderWindow`` seconds is a 409 unless its
/// `X-Request-ID` differs from the earlier request's.
extension SaxoRoutes {
    static func tradingRoutes(_ sandbox: SaxoSandbox, into routes: inout [Route]) {
        let orders = OrderHandlers(sandbox: sandbox)
        routes.append(Route(.post, "trade/v2/orders/precheck") { call in try await orders.precheck(call) })
        routes.append(Route(.post, "trade/v2/orders") { call in try await orders.place(call, version: 2) })
        routes.append(Route(.patch, "trade/v2/orders") { call in try await orders.change(call, orderID: nil) })
        routes.append(Route(.delete, "trade/v2/orders") { call in try orders.cancelByInstrument(call) })
        routes.append(Route(.delete, "trade/v2/orders/{OrderIds}") { call in try orders.cancel(call, ids: call.parameter("OrderIds")) })

        // The "original orders endpoint" (undocumented today) the seed app uses: no ManualOrder, OrderId in the path.
        routes.append(Route(.post, "trade/v1/orders") { call in try await orders.place(call, version: 1) })
        routes.append(Route(.patch, "trade/v1/orders/{OrderId}") { call in try await orders.change(call, orderID: call.parameter("OrderId")) })
        routes.append(Route(.delete, "trade/v1/orders/{OrderIds}") { call in try orders.cancel(call, ids: call.parameter("OrderIds")) })
    }

    struct OrderHandlers: Sendable {
        let sandbox: SaxoSandbox

        /// Runs `body`, nesting any Saxo error in `ErrorInfo` as the order endpoints do.
        private func orderErrors<T>(_ body: () async throws -> T) async throws -> T {
            do {
                return try await body()
            } catch let error as SaxoAPIError {
                throw error.wrapped ? error : error.asOrderError
            }
        }

        private func syncOrderErrors<T>(_ body: () throws -> T) throws -> T {
            do {
                return try body()
            } catch let error as SaxoAPIError {
                throw error.wrapped ? error : error.asOrderError
            }
        }

        private func fingerprint(_ call: SaxoCall, _ json: JSON) -> String {
            "\(call.session)|\(call.request.method.rawValue)|\(SaxoPath(call.request.uri.path).segments.joined(separator: "/").lowercased())|\(json.serialized)"
        }

        func place(_ call: SaxoCall, version: Int) async throws -> Response {
            try await orderErrors {
                let json = try await call.body()
                let fingerprint = fingerprint(call, json)
                let requestID = call.request.headers[HeaderName.requestID]
                try sandbox.checkDuplicate(fingerprint, requestID: requestID)
                let request = try SaxoPlaceOrderRequest.parse(
                    json,
                    instruments: sandbox.instruments,
                    requireManualOrder: version >= 2,
                    now: sandbox.market.now
                )
                try SaxoRoutes.checkAccountKey(request.accountKey, call.client)
                let orderID = try sandbox.withBook(call.client.clientKey) { (book, env) throws(SaxoAPIError) in try book.place(request, env: env) }
                sandbox.rememberOrderRequest(fingerprint, requestID: requestID)
                return Response.json(
                    SaxoWire.object([("ExternalReference", request.externalReference.map(JSON.string)), ("OrderId", .string(orderID))])
                )
            }
        }

        func change(_ call: SaxoCall, orderID: String?) async throws -> Response {
            try await orderErrors {
                let json = try await call.body()
                let fingerprint = fingerprint(call, json)
                let requestID = call.request.headers[HeaderName.requestID]
                try sandbox.checkDuplicate(fingerprint, requestID: requestID)
                let request = try SaxoChangeOrderRequest.parse(
                    json,
                    orderID: orderID,
                    requireManualOrder: orderID == nil,
                    now: sandbox.market.now
                )
                try SaxoRoutes.checkAccountKey(request.accountKey, call.client)
                let changed = try sandbox.withBook(call.client.clientKey) { (book, env) throws(SaxoAPIError) in try book.change(request, env: env) }
                sandbox.rememberOrderRequest(fingerprint, requestID: requestID)
                return Response.json(["OrderId": .string(changed)])
            }
        }

        /// `DELETE trade/v2/orders/{OrderIds}?AccountKey=`: `{"Orders":[{"OrderId":"1"},{"OrderId":"2","ErrorInfo":{...}}]}`;
        /// 404 (same body) when none of the ids is a working order.
        func cancel(_ call: SaxoCall, ids text: String) throws -> Response {
            try syncOrderErrors {
                guard let accountKey = call.query["AccountKey"], !accountKey.isEmpty else {
                    throw SaxoAPIError.invalidModelState("AccountKey", "The AccountKey field is required.")
                }
                try SaxoRoutes.checkAccountKey(accountKey, call.client)
                let ids = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                guard !ids.isEmpty else { throw SaxoAPIError.invalidModelState("OrderIds", "The OrderIds field is required.") }
                let results: [(String, Bool)] = try sandbox.withBook(call.client.clientKey) { book, env in
                    ids.map { ($0, book.cancel(orderID: $0, at: env.now)) }
                }
                let body: JSON = [
                    "Orders": .array(
                        results.map { id, cancelled in
                            cancelled
                                ? ["OrderId": .string(id)]
                                : ["ErrorInfo": SaxoAPIError.orderNotFound(id).errorInfo, "OrderId": .string(id)]
                        }
                    )
                ]
                return Response.json(body, status: results.contains { $0.1 } ? .ok : .notFound)
            }
        }

        /// `DELETE trade/v2/orders?AccountKey=&AssetType=&Uic=`: cancels every working order on the instrument.
        func cancelByInstrument(_ call: SaxoCall) throws -> Response {
            try syncOrderErrors {
                var problems: [(field: String, problems: [String])] = []
                let accountKey = call.query["AccountKey"] ?? ""
                if accountKey.isEmpty { problems.append(("AccountKey", ["The AccountKey field is required."])) }
                let assetType = call.query["AssetType"].flatMap(SaxoAssetType.canonical)
                if assetType == nil { problems.append(("AssetType", ["The AssetType field is required."])) }
                let uic = call.query["Uic"].flatMap { Int($0) }
                if uic == nil { problems.append(("Uic", ["The Uic field is required."])) }
                guard problems.isEmpty, let assetType, let uic else { throw SaxoAPIError.invalidModelState(problems) }
                try SaxoRoutes.checkAccountKey(accountKey, call.client)
                let cancelled: [String] = try sandbox.withBook(call.client.clientKey) { book, env in
                    let ids = book.orders.filter { $0.instrument.uic == uic && $0.instrument.assetType == assetType }.map(\.id)
                    for id in ids { _ = book.cancel(orderID: id, at: env.now) }
                    return ids
                }
                return Response.json(["Orders": .array(cancelled.map { ["OrderId": .string($0)] })])
            }
        }

        /// `POST trade/v2/orders/precheck`: 200 with `PreCheckResult` `Ok` or `Error` (+ `ErrorInfo`) for trading problems;
        /// a malformed request is still a 400.
        func precheck(_ call: SaxoCall) async throws -> Response {
            try await orderErrors {
                let json = try await call.body()
                let request = try SaxoPlaceOrderRequest.parse(
                    json,
                    instruments: sandbox.instruments,
                    requireManualOrder: false,
                    now: sandbox.market.now
                )
                try SaxoRoutes.checkAccountKey(request.accountKey, call.client)
                let terms = SaxoOrderTerms(
                    instrument: request.instrument,
                    side: request.side,
                    amount: request.amount,
                    type: request.type,
                    price: request.price,
                    stopLimitPrice: request.stopLimitPrice,
                    trailingStopDistance: request.trailingStopDistance
                )
                let body: JSON = try sandbox.withBook(call.client.clientKey) { book, env in
                    let required = book.cashRequired(terms, env: env)
                    let conversion = env.rate(from: request.instrument.market.currency, to: env.accountCurrency) ?? 1
                    var members: [(String, JSON?)] = [
                        ("EstimatedCashRequired", SaxoWire.money(required)),
                        ("EstimatedCashRequiredCurrency", .string(env.accountCurrency)),
                        ("InstrumentToAccountConversionRate", SaxoWire.number(conversion, scale: 8)),
                    ]
                    do throws(SaxoAPIError) {
                        try book.validate(terms, excluding: nil, env: env)
                        members.append(("PreCheckResult", "Ok"))
                    } catch {
                        members.append(("ErrorInfo", error.errorInfo))
                        members.append(("PreCheckResult", "Error"))
                    }
                    return SaxoWire.object(members)
                }
                return Response.json(body)
            }
        }
    }
}
