import Foundation
import Hummingbird
import Synchronization
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
///
/// Numbers in answers are JSON numbers; numbers in requests may be numbers or strings (the Java SDK sends strings).
struct TradeItRoutes: Sendable {
    let sandbox: TradeItSandbox

    typealias Handler = @Sendable (Body, Request, _ v1: Bool) throws -> JSON

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

        let hooks = router.group("_sandbox/tradeit")
        hooks.post("link") { request, context in
            let body = try await Body.read(request, context)
            guard let name = body.string("username"), let persona = TradeItPersona(rawValue: name) else {
                throw AdminError.invalid("username must be one of \(TradeItPersona.allCases.map(\.rawValue))")
            }
            let (userId, userToken) = self.sandbox.link(persona, apiKey: body.string("apiKey") ?? TradeItSandboxConfiguration.demoAPIKey)
            let verifier = self.sandbox.issueVerifier(persona: persona, apiKey: body.string("apiKey") ?? TradeItSandboxConfiguration.demoAPIKey, relinkUserId: nil)
            return Response.json([
                "userId": .string(userId), "userToken": .string(userToken), "oAuthVerifier": .string(verifier),
                "accountNumber": .string(persona.accountNumber),
            ])
        }
        hooks.post("expireSessions") { _, _ in
            self.sandbox.expireSessions()
            return Response(status: .noContent)
        }
        hooks.post("expireUserToken") { request, context in
            let body = try await Body.read(request, context)
            guard let userId = body.string("userId") else { throw AdminError.invalid("userId is required") }
            self.sandbox.expireUserToken(userId: userId)
            return Response(status: .noContent)
        }
    }

    func serve(_ request: Request, _ context: SandboxRequestContext, v1: Bool, _ handler: Handler) async throws -> Response {
        let body = try await Body.read(request, context)
        return .json(try handler(body, request, v1))
    }

    var market: MarketEngine { sandbox.market }
    var configuration: TradeItSandboxConfiguration { sandbox.configuration }

    // MARK: Envelope

    static func success(_ members: [JSON.Member], status: String = "SUCCESS", token: String? = nil, message: String) -> JSON {
        .object(
            [
                .init(key: "status", value: .string(status)),
                .init(key: "token", value: .string(token)),
                .init(key: "shortMessage", value: .string(message)),
                .init(key: "longMessages", value: nil),
            ] + members)
    }

    static func number(_ value: Decimal) -> JSON { .number(DecimalText.format(value)) }

    // MARK: Brokers and linking

    func brokerList(_ body: Body) throws -> JSON {
        _ = try sandbox.checkAPIKey(body.string("apiKey"))
        func instrument(_ name: String, featured: Bool) -> JSON {
            [
                "instrument": .string(name), "isFeatured": .bool(featured), "supportsTrading": true,
                "supportsPositions": true, "supportsAccountOverview": true, "supportsOrderStatus": true,
                "supportsOrderCanceling": true, "supportsTransactionHistory": false, "supportsFxRates": false,
            ]
        }
        let broker: JSON = [
            "shortName": .string(TradeItSandboxConfiguration.dummyBroker),
            "longName": .string(TradeItSandboxConfiguration.dummyBrokerLongName),
            "brokerInstruments": [instrument("equities", featured: true), instrument("crypto", featured: false)],
        ]
        return Self.success([.init(key: "brokerList", value: [broker])], message: "Success")
    }

    enum PopupKind { case mobile, webApp, tokenUpdate }

    func popup(_ body: Body, _ request: Request, kind: PopupKind) throws -> JSON {
        let apiKey = try sandbox.checkAPIKey(body.string("apiKey"))
        try checkBroker(body.string("broker"))
        var callback: String?
        if kind != .webApp {
            callback = body.string("interAppAddressCallback")
            if kind == .mobile, callback?.isEmpty ?? true { throw TradeItAPIError.parameter("interAppAddressCallback is required.") }
            if callback?.isEmpty ?? false { callback = nil }
        }
        var relinkUserId: String?
        if kind == .tokenUpdate {
            guard let userId = body.string("userId"), let userToken = body.string("userToken") else {
                throw TradeItAPIError.parameter("userId and userToken are required.")
            }
            let known = sandbox.state.withLock { $0.users[userId]?.userToken == userToken }
            guard known else { throw TradeItAPIError.tokenExpired }
            relinkUserId = userId
        }
        let tempToken = RandomID.uuid()
        let expiresAt = market.now.addingTimeInterval(configuration.verifierLifetime)
        sandbox.state.withLock {
            $0.popups[tempToken] = TradeItSandbox.Popup(
                apiKey: apiKey, callback: callback, relinkUserId: relinkUserId, expiresAt: expiresAt)
        }
        let host = request.head.authority ?? "127.0.0.1"
        let url = "http://\(host)/sandbox/login?oAuthTempToken=\(tempToken)"
        return Self.success([.init(key: "oAuthURL", value: .string(url))], message: "Success")
    }

    func checkBroker(_ broker: String?) throws(TradeItAPIError) {
        guard let broker, !broker.isEmpty else { throw TradeItAPIError.parameter("broker is required.") }
        guard broker.caseInsensitiveCompare(TradeItSandboxConfiguration.dummyBroker) == .orderedSame else {
            throw TradeItAPIError.parameter("The broker \(broker) is not available for this API key.")
        }
    }

    func accessToken(_ body: Body) throws -> JSON {
        let apiKey = try sandbox.checkAPIKey(body.string("apiKey"))
        guard let verifierText = body.string("oAuthVerifier"), !verifierText.isEmpty else {
            throw TradeItAPIError.parameter("oAuthVerifier is required.")
        }
        let now = market.now
        let result: Result<(String, String), TradeItAPIError> = sandbox.state.withLock { state in
            guard let verifier = state.verifiers.removeValue(forKey: verifierText), verifier.expiresAt > now,
                verifier.apiKey == apiKey
            else {
                return .failure(.brokerAuthentication("The oAuthVerifier is invalid or has expired; please log in again."))
            }
            let user = TradeItSandbox.createUser(
                verifier.persona, apiKey: apiKey, relinkUserId: verifier.relinkUserId, state: &state)
            return .success(user)
        }
        let (userId, userToken) = try result.get()
        return Self.success(
            [
                .init(key: "userId", value: .string(userId)), .init(key: "userToken", value: .string(userToken)),
                .init(key: "broker", value: .string(TradeItSandboxConfiguration.dummyBroker)),
                .init(key: "activationTime", value: "IMMEDIATE"),
            ], message: "Success")
    }

    func oAuthDelete(_ body: Body) throws -> JSON {
        _ = try sandbox.checkAPIKey(body.string("apiKey"))
        guard let userId = body.string("userId"), let userToken = body.string("userToken") else {
            throw TradeItAPIError.parameter("userId and userToken are required.")
        }
        let removed = sandbox.state.withLock { state -> Bool in
            guard state.users[userId]?.userToken == userToken else { return false }
            state.users[userId] = nil
            state.sessions = state.sessions.filter { $0.value.userId != userId }
            return true
        }
        guard removed else { throw TradeItAPIError.tokenExpired }
        return Self.success([], message: "Success")
    }

    // MARK: Sessions

    func authenticate(_ body: Body) throws -> JSON {
        let apiKey = try sandbox.checkAPIKey(body.string("apiKey"))
        guard let userId = body.string("userId"), !userId.isEmpty, let userToken = body.string("userToken"),
            !userToken.isEmpty
        else { throw TradeItAPIError.parameter("userId and userToken are required.") }
        let now = market.now
        let lifetime = configuration.sessionLifetime
        let result: Result<(String, TradeItPersona), TradeItAPIError> = sandbox.state.withLock { state in
            guard let user = state.users[userId], user.userToken == userToken, user.apiKey == apiKey else {
                return .failure(.tokenExpired)
            }
            if user.tokenExpired { return .failure(.tokenExpired) }
            if user.persona == .fail {
                return .failure(.brokerAuthentication("Check your username and password and try again."))
            }
            let token = "SBX-SESSION-\(state.next())-\(RandomID.suffix(8))"
            state.sessions[token] = TradeItSandbox.Session(
                userId: userId, expiresAt: now.addingTimeInterval(lifetime), pendingQuestion: user.persona == .dummySecurity)
            return .success((token, user.persona))
        }
        let (token, persona) = try result.get()
        if persona == .dummySecurity { return question(token: token, message: "Security question") }
        return authenticated(token: token, persona: persona)
    }

    func question(token: String, message: String) -> JSON {
        Self.success(
            [
                .init(key: "informationType", value: "SECURITY_QUESTION"),
                .init(key: "securityQuestion", value: .string(TradeItSandboxConfiguration.securityQuestion)),
                .init(
                    key: "securityQuestionOptions",
                    value: .array(TradeItSandboxConfiguration.securityQuestionOptions.map(JSON.string))),
            ], status: "INFORMATION_NEEDED", token: token, message: message)
    }

    func authenticated(token: String, persona: TradeItPersona) -> JSON {
        func values(_ pairs: [(String, String)], quantityTypes: [String]) -> JSON {
            .array(
                pairs.map {
                    [
                        "value": .string($0.0), "displayLabel": .string($0.1),
                        "supportedOrderQuantityTypes": .array(quantityTypes.map(JSON.string)),
                    ]
                })
        }
        let equities: JSON = [
            "instrument": "equities",
            "actions": values([("buy", "Buy"), ("sell", "Sell")], quantityTypes: ["SHARES"]),
            "priceTypes": values(
                [("market", "Market"), ("limit", "Limit"), ("stopMarket", "Stop Market"), ("stopLimit", "Stop Limit")],
                quantityTypes: ["SHARES"]),
            "expirationTypes": values([("day", "Good for day"), ("gtc", "Good until canceled")], quantityTypes: ["SHARES"]),
        ]
        let crypto: JSON = [
            "instrument": "crypto",
            "actions": values([("buy", "Buy"), ("sell", "Sell")], quantityTypes: ["BASE_CURRENCY"]),
            "priceTypes": values([("market", "Market"), ("limit", "Limit")], quantityTypes: ["BASE_CURRENCY"]),
            "expirationTypes": values([("gtc", "Good until canceled")], quantityTypes: ["BASE_CURRENCY"]),
        ]
        let name = sandbox.state.withLock { $0.books[persona.accountNumber]?.name } ?? persona.accountNumber
        let account: JSON = [
            "accountNumber": .string(persona.accountNumber), "name": .string(name), "accountIndex": "0",
            "accountBaseCurrency": "USD", "tradable": true, "userCanDisableMargin": false,
            "orderCapabilities": [equities, crypto],
        ]
        return Self.success([.init(key: "accounts", value: [account])], token: token, message: "Authenticated")
    }

    func answer(_ body: Body) throws -> JSON {
        guard let token = body.string("token"), !token.isEmpty else { throw TradeItAPIError.parameter("token is required.") }
        guard let answer = body.string("securityAnswer") else { throw TradeItAPIError.parameter("securityAnswer is required.") }
        let now = market.now
        let lifetime = configuration.sessionLifetime
        let persona: TradeItPersona? = sandbox.state.withLock { state in
            guard let session = state.sessions[token], session.expiresAt > now, let user = state.users[session.userId] else {
                return nil
            }
            if session.pendingQuestion, answer.caseInsensitiveCompare(TradeItSandboxConfiguration.securityAnswer) == .orderedSame {
                state.sessions[token]?.pendingQuestion = false
                state.sessions[token]?.expiresAt = now.addingTimeInterval(lifetime)
            }
            return user.persona
        }
        guard let persona else { throw TradeItAPIError.sessionExpired }
        let stillPending = sandbox.state.withLock { $0.sessions[token]?.pendingQuestion ?? true }
        if stillPending { return question(token: token, message: "Incorrect answer, please try again") }
        return authenticated(token: token, persona: persona)
    }

    func keepAlive(_ body: Body) throws -> JSON {
        let token = body.string("token")
        _ = try sandbox.session(token)
        return Self.success([], token: token, message: "Session extended")
    }

    func closeSession(_ body: Body) throws -> JSON {
        let token = body.string("token")
        _ = try sandbox.session(token)
        sandbox.state.withLock { _ = $0.sessions.removeValue(forKey: token ?? "") }
        return Self.success([], message: "Session closed")
    }

    // MARK: Portfolio

    func accountOverview(_ body: Body, v1: Bool) throws -> JSON {
        let token = body.string("token")
        let market = self.market
        let members: [JSON.Member] = try sandbox.withBook(token: token, accountNumber: body.string("accountNumber")) { book in
            var positionsValue: Decimal = 0
            var dayReturn: Decimal = 0
            var totalReturn: Decimal = 0
            var cost: Decimal = 0
            for (symbol, holding) in book.holdings {
                guard let quote = market.quote(symbol: symbol) else { continue }
                positionsValue += holding.quantity * quote.last
                dayReturn += holding.quantity * quote.change
                totalReturn += holding.quantity * quote.last - holding.cost
                cost += holding.cost
            }
            let totalValue = book.cash + positionsValue
            let previous = totalValue - dayReturn
            return [
                .init(key: "availableCash", value: Self.number(DecimalText.round(book.availableCash, scale: 2))),
                .init(key: "buyingPower", value: Self.number(DecimalText.round(book.availableCash, scale: 2))),
                .init(key: "buyingPowerLabel", value: "Buying Power"),
                .init(key: "totalValue", value: Self.number(DecimalText.round(totalValue, scale: 2))),
                .init(key: "dayAbsoluteReturn", value: Self.number(DecimalText.round(dayReturn, scale: 2))),
                .init(
                    key: "dayPercentReturn",
                    value: Self.number(previous.isZero ? 0 : DecimalText.round(dayReturn / previous * 100, scale: 2))),
                .init(key: "totalAbsoluteReturn", value: Self.number(DecimalText.round(totalReturn, scale: 2))),
                .init(
                    key: "totalPercentReturn",
                    value: Self.number(cost.isZero ? 0 : DecimalText.round(totalReturn / cost * 100, scale: 2))),
                .init(key: "marginCash", value: nil),
                .init(key: "accountBaseCurrency", value: "USD"),
            ]
        }
        if v1 { return Self.success(members, token: token, message: "Account Overview successfully fetched") }
        return Self.success(
            [.init(key: "accountOverview", value: .object(members)), .init(key: "fxAccountOverview", value: nil)],
            token: token, message: "Account Overview successfully fetched")
    }

    func positions(_ body: Body) throws -> JSON {
        let token = body.string("token")
        let page: Int
        if let text = body.string("page") {
            guard let value = Int(text), value >= 0 else { throw TradeItAPIError.parameter("page must be a whole number, 0 or more.") }
            page = value
        } else {
            page = 0
        }
        let size = configuration.positionsPageSize
        let market = self.market
        let holdings = try sandbox.withBook(token: token, accountNumber: body.string("accountNumber")) { book in
            book.holdings.sorted { $0.key < $1.key }
        }
        let totalPages = max(1, (holdings.count + size - 1) / size)
        let slice = holdings.dropFirst(page * size).prefix(size)
        let positions: [JSON] = slice.compactMap { symbol, holding in
            guard let instrument = market.instrument(symbol: symbol), let quote = market.quote(symbol: symbol) else { return nil }
            let value = holding.quantity * quote.last
            let today = holding.quantity * quote.change
            let total = value - holding.cost
            let crypto = instrument.assetClass == .crypto
            return [
                "symbol": .string(symbol),
                "symbolClass": .string(crypto ? "CRYPTO" : "EQUITY_OR_ETF"),
                "holdingType": "LONG",
                "quantity": Self.number(holding.quantity),
                "costbasis": Self.number(DecimalText.round(holding.cost, scale: 2)),
                "lastPrice": Self.number(quote.last),
                "todayGainLossAbsolute": Self.number(DecimalText.round(today, scale: 2)),
                "todayGainLossPercentage": Self.number(
                    quote.previousClose.isZero ? 0 : DecimalText.round(quote.change / quote.previousClose * 100, scale: 2)),
                "totalGainLossAbsolute": Self.number(DecimalText.round(total, scale: 2)),
                "totalGainLossPercentage": Self.number(
                    holding.cost.isZero ? 0 : DecimalText.round(total / holding.cost * 100, scale: 2)),
                "exchange": .string(instrument.exchange),
                "currency": .string(instrument.currency),
                "description": .string(instrument.name),
            ]
        }
        return Self.success(
            [
                .init(key: "positions", value: .array(positions)), .init(key: "currentPage", value: .int(page)),
                .init(key: "totalPages", value: .int(totalPages)),
            ], token: token, message: "Position successfully fetched")
    }

    // MARK: Orders

    func preview(_ body: Body, crypto: Bool) throws -> JSON {
        let token = body.string("token")
        let symbol = crypto ? body.string("orderPair") : body.string("orderSymbol")
        guard let symbol, !symbol.isEmpty else { throw TradeItAPIError.parameter(crypto ? "orderPair is required." : "orderSymbol is required.") }
        let key = crypto ? symbol.uppercased() : symbol.uppercased()
        guard let instrument = market.instrument(symbol: key),
            crypto ? instrument.assetClass == .crypto : instrument.assetClass == .equity
        else {
            throw TradeItAPIError.execution("The symbol \(symbol) was not found.")
        }
        guard let action = body.string("orderAction"), ["buy", "sell", "buyToCover", "sellShort"].contains(action) else {
            throw TradeItAPIError.parameter("orderAction must be buy, sell, buyToCover or sellShort.")
        }
        if action == "buyToCover" || action == "sellShort" {
            throw TradeItAPIError.execution("Short sales are not available in this account.")
        }
        guard let quantity = try body.decimal("orderQuantity"), quantity > 0 else {
            throw TradeItAPIError.parameter("orderQuantity must be greater than 0.")
        }
        if crypto {
            let type = body.string("orderQuantityType") ?? "BASE_CURRENCY"
            guard type == "BASE_CURRENCY" else { throw TradeItAPIError.parameter("orderQuantityType must be BASE_CURRENCY.") }
            guard quantity >= instrument.minQuantity else {
                throw TradeItAPIError.execution("The minimum quantity for \(symbol) is \(DecimalText.format(instrument.minQuantity)).")
            }
        } else {
            if let type = body.string("orderQuantityType"), type != "SHARES" {
                throw TradeItAPIError.parameter("orderQuantityType must be SHARES.")
            }
            guard DecimalText.isMultiple(quantity, of: 1) else { throw TradeItAPIError.execution("Orders must be for whole shares.") }
        }
        let priceTypes = crypto ? ["market", "limit"] : ["market", "limit", "stopMarket", "stopLimit"]
        guard let priceType = body.string("orderPriceType"), priceTypes.contains(priceType) else {
            throw TradeItAPIError.parameter("orderPriceType must be one of \(priceTypes.joined(separator: ", ")).")
        }
        let limit = try body.decimal("orderLimitPrice")
        let stop = try body.decimal("orderStopPrice")
        if priceType == "limit" || priceType == "stopLimit" {
            guard let limit, limit > 0 else { throw TradeItAPIError.parameter("orderLimitPrice must be greater than 0.") }
        }
        if priceType == "stopMarket" || priceType == "stopLimit" {
            guard let stop, stop > 0 else { throw TradeItAPIError.parameter("orderStopPrice must be greater than 0.") }
        }
        let expiration = body.string("orderExpiration") ?? ""
        guard (crypto ? ["gtc", "day"] : ["day", "gtc"]).contains(expiration) else {
            throw TradeItAPIError.parameter("orderExpiration must be day or gtc.")
        }
        guard let quote = market.quote(symbol: key) else { throw TradeItAPIError.system("No quote for \(symbol).") }
        let now = market.now
        let commission = configuration.commission
        let lifetime = configuration.previewLifetime
        let orderId = String(5_000_000 + sandbox.nextNumber())
        var order = TradeItSandboxOrder(
            orderNumber: "", symbol: key, isCrypto: crypto, action: action, priceType: priceType, quantity: quantity,
            limitPrice: ["limit", "stopLimit"].contains(priceType) ? limit : nil,
            stopPrice: ["stopMarket", "stopLimit"].contains(priceType) ? stop : nil, expiration: expiration,
            status: "PREVIEW", placedAt: now)
        let price = TradeItAccountBook.estimatedPrice(order, quote: quote)
        let value = DecimalText.round(quantity * price, scale: 2)
        let total = action == "buy" ? value + commission : value - commission
        let details: JSON = try sandbox.withBook(token: token, accountNumber: body.string("accountNumber")) { book in
            try book.check(order, estimatedTotal: total)
            order.placedAt = now
            book.previews[orderId] = TradeItPreview(order: order, expiresAt: now.addingTimeInterval(lifetime), token: token ?? "")
            let held = book.holdings[key]?.quantity ?? 0
            var members: [JSON.Member] = [
                .init(key: crypto ? "orderPair" : "orderSymbol", value: .string(key)),
                .init(key: "orderAction", value: .string(action)),
                .init(key: "orderQuantity", value: Self.number(quantity)),
                .init(key: "orderExpiration", value: .string(expiration)),
                .init(key: "orderPrice", value: .string(Self.priceText(order))),
                .init(key: "orderMessage", value: .string(Self.message(order, verb: "You are about to place"))),
                .init(key: "lastPrice", value: Self.number(quote.last)),
                .init(key: "bidPrice", value: Self.number(quote.bid)),
                .init(key: "askPrice", value: Self.number(quote.ask)),
                .init(key: "timestamp", value: .string(Timestamp.format(quote.timestamp, fractionDigits: 0))),
                .init(key: "buyingPower", value: Self.number(DecimalText.round(book.availableCash, scale: 2))),
                .init(key: "availableCash", value: Self.number(DecimalText.round(book.availableCash, scale: 2))),
                .init(key: "longHoldings", value: Self.number(held)),
                .init(key: "shortHoldings", value: 0),
                .init(key: "estimatedOrderValue", value: Self.number(value)),
                .init(key: "estimatedOrderCommission", value: Self.number(commission)),
                .init(key: "estimatedTotalValue", value: Self.number(total)),
                .init(key: "orderCommissionLabel", value: "Commission"),
                .init(key: "warnings", value: []),
            ]
            if crypto { members.append(.init(key: "orderQuantityType", value: "BASE_CURRENCY")) }
            return .object(members)
        }
        return Self.success(
            [
                .init(key: "orderId", value: .string(orderId)), .init(key: "orderDetails", value: details),
                .init(key: "warningsList", value: []), .init(key: "ackWarningsList", value: []),
            ], status: "REVIEW_ORDER", token: token, message: "Review your order")
    }

    func place(_ body: Body, crypto: Bool) throws -> JSON {
        let token = body.string("token")
        guard let orderId = body.string("orderId"), !orderId.isEmpty else { throw TradeItAPIError.parameter("orderId is required.") }
        let (_, account) = try sandbox.session(token)
        let now = market.now
        let orderNumber = String(8_000_000 + sandbox.nextNumber())
        let placed: TradeItSandboxOrder = try sandbox.withBook(token: token, accountNumber: account) { book in
            guard let preview = book.previews.removeValue(forKey: orderId), preview.expiresAt > now,
                preview.order.isCrypto == crypto
            else {
                throw TradeItAPIError.parameter("The order \(orderId) was not found or has expired; preview the order again.")
            }
            var order = preview.order
            guard let quote = market.quote(symbol: order.symbol) else { throw TradeItAPIError.system("No quote for \(order.symbol).") }
            let value = order.quantity * TradeItAccountBook.estimatedPrice(order, quote: quote)
            try book.check(order, estimatedTotal: order.side == .buy ? value + configuration.commission : value)
            order.orderNumber = orderNumber
            order.status = "OPEN"
            order.placedAt = now
            book.orders.append(order)
            book.evaluate(market: market, commission: configuration.commission, now: now)
            return book.orders.last!
        }
        let confirmation = Self.message(placed, verb: "Your order \(orderNumber) to")
        var members: [JSON.Member] = [
            .init(key: "orderNumber", value: .string(orderNumber)),
            .init(key: "confirmationMessage", value: .string(confirmation)),
            .init(key: "broker", value: .string(TradeItSandboxConfiguration.dummyBroker)),
            .init(key: "accountBaseCurrency", value: "USD"),
            .init(key: "timestamp", value: .string(Timestamp.format(now, fractionDigits: 0))),
        ]
        if crypto {
            members.append(
                .init(
                    key: "orderDetails",
                    value: [
                        "orderPair": .string(placed.symbol), "orderAction": .string(placed.action),
                        "orderQuantity": Self.number(placed.quantity), "orderExpiration": .string(placed.expiration),
                        "orderPrice": .string(Self.priceText(placed)), "orderQuantityType": "BASE_CURRENCY",
                    ]))
        } else {
            var price: [JSON.Member] = [.init(key: "type", value: .string(placed.priceType))]
            if let limit = placed.limitPrice { price.append(.init(key: "limitPrice", value: Self.number(limit))) }
            if let stop = placed.stopPrice { price.append(.init(key: "stopPrice", value: Self.number(stop))) }
            members.append(
                .init(
                    key: "orderInfo",
                    value: [
                        "symbol": .string(placed.symbol), "action": .string(placed.action),
                        "quantity": Self.number(placed.quantity), "expiration": .string(placed.expiration),
                        "price": .object(price),
                    ]))
        }
        return Self.success(members, token: token, message: "Order Successfully Submitted")
    }

    func allOrders(_ body: Body) throws -> JSON {
        let token = body.string("token")
        let orders = try sandbox.withBook(token: token, accountNumber: body.string("accountNumber")) { $0.orders }
        return Self.success(
            [.init(key: "orderStatusDetailsList", value: .array(orders.reversed().map(Self.status)))], token: token,
            message: "Order statuses successfully fetched")
    }

    func singleOrder(_ body: Body, cancel: Bool) throws -> JSON {
        let token = body.string("token")
        guard let number = body.string("orderNumber"), !number.isEmpty else { throw TradeItAPIError.parameter("orderNumber is required.") }
        let order: TradeItSandboxOrder? = try sandbox.withBook(token: token, accountNumber: body.string("accountNumber")) { (book: inout TradeItAccountBook) -> TradeItSandboxOrder? in
            guard let index = book.orders.firstIndex(where: { $0.orderNumber == number }) else { return nil }
            if cancel {
                guard book.orders[index].status == "OPEN" else {
                    throw TradeItAPIError.execution("The order \(number) is \(book.orders[index].status.lowercased()) and cannot be canceled.")
                }
                book.orders[index].status = "CANCELED"
            }
            return book.orders[index]
        }
        let entry: JSON =
            order.map(Self.status) ?? [
                "orderNumber": .string(number), "orderStatus": "NOT_FOUND", "orderType": nil, "orderExpiration": nil,
                "orderLegs": [], "groupOrders": [],
            ]
        if cancel, order == nil {
            throw TradeItAPIError.parameter("The order \(number) was not found.")
        }
        return Self.success(
            [.init(key: "orderStatusDetailsList", value: [entry])], token: token,
            message: cancel ? "Order cancellation requested" : "Order status successfully fetched")
    }

    func cryptoQuote(_ body: Body) throws -> JSON {
        let token = body.string("token")
        guard let pair = body.string("pair"), !pair.isEmpty else { throw TradeItAPIError.parameter("pair is required.") }
        _ = try sandbox.withBook(token: token, accountNumber: body.string("accountNumber")) { _ in 0 }
        guard let instrument = market.instrument(symbol: pair.uppercased()), instrument.assetClass == .crypto,
            let quote = market.quote(symbol: instrument.symbol)
        else {
            throw TradeItAPIError.execution("The pair \(pair) was not found.")
        }
        return Self.success(
            [
                .init(key: "ask", value: Self.number(quote.ask)), .init(key: "bid", value: Self.number(quote.bid)),
                .init(key: "last", value: Self.number(quote.last)), .init(key: "open", value: Self.number(quote.open)),
                .init(key: "dayHigh", value: Self.number(quote.high)), .init(key: "dayLow", value: Self.number(quote.low)),
                .init(key: "volume", value: Self.number(quote.lastSize)),
                .init(key: "dateTime", value: .string(Timestamp.format(quote.timestamp, fractionDigits: 0))),
            ], token: token, message: "Quote successfully fetched")
    }

    // MARK: Rendering

    /// `{"orderNumber","orderStatus","orderType","orderExpiration","groupOrders":[],"orderLegs":[{...}]}`.
    static func status(_ order: TradeItSandboxOrder) -> JSON {
        var price: [JSON.Member] = [
            .init(
                key: "type",
                value: .string(
                    ["market": "MARKET", "limit": "LIMIT", "stopMarket": "STOP", "stopLimit": "STOP_LIMIT"][order.priceType]
                        ?? "MARKET"))
        ]
        price.append(.init(key: "limitPrice", value: order.limitPrice.map(number) ?? nil))
        price.append(.init(key: "stopPrice", value: order.stopPrice.map(number) ?? nil))
        price.append(.init(key: "trailPrice", value: nil))
        var fills: [JSON] = []
        if let fillPrice = order.fillPrice, let time = order.fillTime {
            fills.append([
                "price": number(fillPrice), "quantity": number(order.filledQuantity),
                "timestamp": .string(Timestamp.format(time, fractionDigits: 0)),
            ])
        }
        let leg: JSON = [
            "symbol": .string(order.symbol), "action": .string(order.action == "buy" ? "BUY" : "SELL"),
            "orderedQuantity": number(order.quantity), "filledQuantity": number(order.filledQuantity),
            "priceInfo": .object(price), "fills": .array(fills),
        ]
        return [
            "orderNumber": .string(order.orderNumber), "orderStatus": .string(order.status),
            "orderType": .string(order.isCrypto ? "CRYPTO" : "EQUITY_OR_ETF"),
            "orderExpiration": .string(order.expiration.uppercased()), "groupOrderId": nil, "groupOrderType": nil,
            "groupOrders": [], "orderLegs": [leg],
        ]
    }

    static func priceText(_ order: TradeItSandboxOrder) -> String {
        switch order.priceType {
        case "limit": "Limit \(DecimalText.format(order.limitPrice ?? 0))"
        case "stopMarket": "Stop \(DecimalText.format(order.stopPrice ?? 0))"
        case "stopLimit": "Stop \(DecimalText.format(order.stopPrice ?? 0)) Limit \(DecimalText.format(order.limitPrice ?? 0))"
        default: "Market"
        }
    }

    static func message(_ order: TradeItSandboxOrder, verb: String) -> String {
        "\(verb) \(order.action) \(DecimalText.format(order.quantity)) \(order.symbol) at \(priceText(order).lowercased())."
    }
}

/// A request body: a JSON object whose members may be strings or numbers.
struct Body: Sendable {
    var json: JSON

    static func read(_ request: Request, _ context: SandboxRequestContext) async throws -> Body {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        guard let json = try? JSON(parsing: Array(buffer: buffer)), json.objectMembers != nil else {
            throw TradeItAPIError.notJSON
        }
        return Body(json: json)
    }

    /// A string member, or a number's text; nil when absent or null.
    func string(_ key: String) -> String? {
        switch json[key] {
        case .string(let text)?: text
        case .number(let text)?: text
        case .bool(let flag)?: flag ? "true" : "false"
        default: nil
        }
    }

    /// A decimal sent as a number or a string; code 500 when it is something else.
    func decimal(_ key: String) throws(TradeItAPIError) -> Decimal? {
        guard let value = json[key], value != .null else { return nil }
        let text: String
        switch value {
        case .string(let string): text = string
        case .number(let number): text = number
        default: throw TradeItAPIError.parameter("\(key) must be a number.")
        }
        if text.isEmpty { return nil }
        guard let decimal = DecimalText.parse(text) else { throw TradeItAPIError.parameter("\(key) must be a number.") }
        return decimal
    }
}
