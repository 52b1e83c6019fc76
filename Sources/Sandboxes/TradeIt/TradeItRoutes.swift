import Foundation
import Hummingbird
import SandboxKit

/// The JSON API of ``TradeItSandbox``. Every call is `POST /api/v2/<path>` (also `/api/v1/<path>`) with a JSON body:
///
/// | path | body | answer besides the envelope (`status`, `token`, `shortMessage`, `longMessages`) |
/// |---|---|---|
/// | `preference/getBrokerList` (v1: `preference/getStocksOrEtfsBrokerList`) | `apiKey` | `brokerList` |
/// | `user/getOAuthLoginPopupUrlForMobile` | `apiKey`, `broker`, `interAppAddressCallback` | `oAuthURL` |
/// | `user/getOAuthLoginPopupUrlForWebApp` | `apiKey`, `broker` | `oAuthURL` |
/// | `user/getOAuthLoginPopupURLForTokenUpdate` | + `userId`, `userToken` | `oAuthURL` |
/// | `user/getOAuthAccessToken` | `apiKey`, `oAuthVerifier` | `userId`, `userToken`, `broker`, `activationTime` |
/// | `user/oAuthDelete` | `apiKey`, `userId`, `userToken` | |
/// | `user/authenticate` | `apiKey`, `userId`, `userToken` | `accounts`, or `INFORMATION_NEEDED` + `securityQuestion` |
/// | `user/answerSecurityQuestion` | `token`, `securityAnswer` | as authenticate |
/// | `user/keepSessionAlive`, `user/closeSession` | `token` | |
/// | `balance/getAccountOverview` | `token`, `accountNumber` | `accountOverview` (v1: its fields at top level) |
/// | `position/getPositions` | `token`, `accountNumber`, `page` (0-based) | `positions`, `currentPage`, `totalPages` |
/// | `order/previewStockOrEtfOrder` | `token`, `accountNumber`, `orderSymbol`, `orderAction`, `orderQuantity`, `orderPriceType`, `orderLimitPrice`?, `orderStopPrice`?, `orderExpiration` | `REVIEW_ORDER`, `orderId`, `orderDetails` |
/// | `order/placeStockOrEtfOrder` | `token`, `orderId` | `orderNumber`, `confirmationMessage`, `orderInfo` |
/// | `order/getAllOrderStatus` | `token`, `accountNumber` | `orderStatusDetailsList` |
/// | `order/getSingleOrderStatus`, `order/cancelOrder` | + `orderNumber` | `orderStatusDetailsList` (one; `NOT_FOUND` for an unknown number) |
/// | `order/previewCryptoOrder` | like the stock preview with `orderPair` (`BTC/USD`), `orderQuantityType` | `REVIEW_ORDER`, `orderId`, `orderDetails` |
/// | `order/placeCryptoOrder` | `token`, `orderId` | `orderNumber`, `confirmationMessage`, `orderDetails` |
/// | `brokermarketdata/getCryptoQuote` | `token`, `accountNumber`, `pair` | `ask`, `bid`, `last`, `open`, `dayHigh`, `dayLow`, `volume`, `dateTime` |
/// | `marketdata/getQuote` | `apiKey`, `symbol` | `symbol`, `companyName`, `askPrice`, `bidPrice`, `lastPrice`, `change`, `pctChange`, `low`, `high`, `volume`, `dateTime` |
/// | `marketdata/getQuotes` | `apiKey`, `symbols` (comma-separated) | `quotes`: a list of those (symbols not listed are left out) |
///
/// Numbers in answers are JSON numbers; numbers in requests may be numbers or strings (the Java SDK sends strings).
/// Handlers by aspect: linking (`+Linking`), sessions (`+Session`), `+Portfolio`, `+Orders`, `+MarketData`, and the
/// test hooks under `/_sandbox/tradeit` (`+TestHooks`).
struct TradeItRoutes: Sendable {
    let sandbox: TradeItSandbox

    typealias Handler = @Sendable (TradeItFields, Request, _ v1: Bool) throws -> JSON

    func register(on router: Router<SandboxRequestContext>) {
        let handlers: [(String, Handler)] = [
            ("preference/getBrokerList", { body, _, _ in try self.brokerList(body) }),
            ("user/getOAuthLoginPopupUrlForMobile", { b, r, _ in try self.popup(b, r, kind: .mobile) }),
            ("user/getOAuthLoginPopupUrlForWebApp", { b, r, _ in try self.popup(b, r, kind: .webApp) }),
            ("user/getOAuthLoginPopupURLForTokenUpdate", { b, r, _ in try self.popup(b, r, kind: .tokenUpdate) }),
            ("user/getOAuthLoginPopupURLForWebAppTokenUpdate", { b, r, _ in try self.popup(b, r, kind: .tokenUpdate) }),
            ("user/getOAuthAccessToken", { b, _, _ in try self.accessToken(b) }),
            ("user/oAuthDelete", { b, _, _ in try self.oAuthDelete(b) }),
            ("user/authenticate", { b, _, _ in try self.authenticate(b) }),
            ("user/answerSecurityQuestion", { b, _, _ in try self.answer(b) }),
            ("user/keepSessionAlive", { b, _, _ in try self.keepAlive(b) }),
            ("user/closeSession", { b, _, _ in try self.closeSession(b) }),
            ("balance/getAccountOverview", { b, _, v1 in try self.accountOverview(b, v1: v1) }),
            ("position/getPositions", { b, _, _ in try self.positions(b) }),
            ("order/previewStockOrEtfOrder", { b, _, _ in try self.preview(b, crypto: false) }),
            ("order/placeStockOrEtfOrder", { b, _, _ in try self.place(b, crypto: false) }),
            ("order/previewCryptoOrder", { b, _, _ in try self.preview(b, crypto: true) }),
            ("order/placeCryptoOrder", { b, _, _ in try self.place(b, crypto: true) }),
            ("order/getAllOrderStatus", { b, _, _ in try self.allOrders(b) }),
            ("order/getSingleOrderStatus", { b, _, _ in try self.singleOrder(b, cancel: false) }),
            ("order/cancelOrder", { b, _, _ in try self.singleOrder(b, cancel: true) }),
            ("brokermarketdata/getCryptoQuote", { b, _, _ in try self.cryptoQuote(b) }),
            ("marketdata/getQuote", { b, _, _ in try self.quote(b) }),
            ("marketdata/getQuotes", { b, _, _ in try self.quotes(b) }),
        ]
        for (version, v1) in [("v2", false), ("v1", true)] {
            for (path, handler) in handlers {
                router.post(RouterPath(stringLiteral: "api/\(version)/\(path)")) { request, context in
                    try await self.serve(request, context, v1: v1, handler)
                }
            }
        }
        router.post("api/v1/preference/getStocksOrEtfsBrokerList") { request, context in
            try await self.serve(request, context, v1: true) { body, _, _ in try self.brokerList(body) }
        }
        registerTestHooks(on: router)
    }

    func serve(_ request: Request, _ context: SandboxRequestContext, v1: Bool, _ handler: Handler) async throws -> Response {
        let body = try await TradeItFields.read(request, context)
        return .json(try handler(body, request, v1))
    }

    var market: MarketEngine { sandbox.market }
    var configuration: TradeItSandboxConfiguration { sandbox.configuration }
}
