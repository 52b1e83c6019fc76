import Foundation
import SandboxKit

/// TradeIt's JSON shapes. Every answer is an envelope (`status`, `token`, `shortMessage`, `longMessages`) with the
/// call's members after it; numbers in answers are JSON numbers, dates `yyyy-MM-ddTHH:mm:ssZ`.
enum TradeItWire {
    // MARK: Envelope

    /// `{"status":"SUCCESS","token":null,"shortMessage":"Success","longMessages":null, ...members}`.
    static func success(_ members: [JSON.Member], status: String = "SUCCESS", token: String? = nil, message: String) -> JSON {
        .object(
            [
                .init(key: "status", value: .string(status)),
                .init(key: "token", value: .string(token)),
                .init(key: "shortMessage", value: .string(message)),
                .init(key: "longMessages", value: nil),
            ] + members
        )
    }

    static func number(_ value: Decimal) -> JSON { .number(DecimalText.format(value)) }

    /// Money: two decimal places.
    static func money(_ value: Decimal) -> JSON { number(DecimalText.round(value, scale: 2)) }

    static func time(_ date: Date) -> JSON { .string(Timestamp.format(date, fractionDigits: 0)) }

    // MARK: Brokers and sessions

    /// `preference/getBrokerList`: the one `Dummy` broker, with equities and crypto.
    static func brokerList() -> JSON {
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
        return success([.init(key: "brokerList", value: [broker])], message: "Success")
    }

    /// `user/getOAuthAccessToken`.
    static func accessToken(userId: String, userToken: String) -> JSON {
        success(
            [
                .init(key: "userId", value: .string(userId)), .init(key: "userToken", value: .string(userToken)),
                .init(key: "broker", value: .string(TradeItSandboxConfiguration.dummyBroker)),
                .init(key: "activationTime", value: "IMMEDIATE"),
            ],
            message: "Success"
        )
    }

    /// `INFORMATION_NEEDED`: the security question a session must answer before it opens.
    static func question(token: String, message: String) -> JSON {
        success(
            [
                .init(key: "informationType", value: "SECURITY_QUESTION"),
                .init(key: "securityQuestion", value: .string(TradeItSandboxConfiguration.securityQuestion)),
                .init(
                    key: "securityQuestionOptions",
                    value: .array(TradeItSandboxConfiguration.securityQuestionOptions.map(JSON.string))
                ),
            ],
            status: "INFORMATION_NEEDED",
            token: token,
            message: message
        )
    }

    /// An open session: its one account and what may be ordered in it.
    static func authenticated(token: String, accountNumber: String, name: String) -> JSON {
        func values(_ pairs: [(String, String)], quantityTypes: [String]) -> JSON {
            .array(
                pairs.map {
                    [
                        "value": .string($0.0), "displayLabel": .string($0.1),
                        "supportedOrderQuantityTypes": .array(quantityTypes.map(JSON.string)),
                    ]
                }
            )
        }
        let equities: JSON = [
            "instrument": "equities",
            "actions": values([("buy", "Buy"), ("sell", "Sell")], quantityTypes: ["SHARES"]),
            "priceTypes": values(
                [("market", "Market"), ("limit", "Limit"), ("stopMarket", "Stop Market"), ("stopLimit", "Stop Limit")],
                quantityTypes: ["SHARES"]
            ),
            "expirationTypes": values([("day", "Good for day"), ("gtc", "Good until canceled")], quantityTypes: ["SHARES"]),
        ]
        let crypto: JSON = [
            "instrument": "crypto",
            "actions": values([("buy", "Buy"), ("sell", "Sell")], quantityTypes: ["BASE_CURRENCY"]),
            "priceTypes": values([("market", "Market"), ("limit", "Limit")], quantityTypes: ["BASE_CURRENCY"]),
            "expirationTypes": values([("gtc", "Good until canceled")], quantityTypes: ["BASE_CURRENCY"]),
        ]
        let account: JSON = [
            "accountNumber": .string(accountNumber), "name": .string(name), "accountIndex": "0",
            "accountBaseCurrency": "USD", "tradable": true, "userCanDisableMargin": false,
            "orderCapabilities": [equities, crypto],
        ]
        return success([.init(key: "accounts", value: [account])], token: token, message: "Authenticated")
    }

    // MARK: Portfolio

    /// `balance/getAccountOverview`: v2 nests the members in `accountOverview`, v1 has them at the top level.
    static func accountOverview(_ valuation: TradeItValuation, token: String?, v1: Bool) -> JSON {
        let previous = valuation.totalValue - valuation.dayReturn
        let members: [JSON.Member] = [
            .init(key: "availableCash", value: money(valuation.availableCash)),
            .init(key: "buyingPower", value: money(valuation.availableCash)),
            .init(key: "buyingPowerLabel", value: "Buying Power"),
            .init(key: "totalValue", value: money(valuation.totalValue)),
            .init(key: "dayAbsoluteReturn", value: money(valuation.dayReturn)),
            .init(
                key: "dayPercentReturn",
                value: number(previous.isZero ? 0 : DecimalText.round(valuation.dayReturn / previous * 100, scale: 2))
            ),
            .init(key: "totalAbsoluteReturn", value: money(valuation.totalReturn)),
            .init(
                key: "totalPercentReturn",
                value: number(valuation.cost.isZero ? 0 : DecimalText.round(valuation.totalReturn / valuation.cost * 100, scale: 2))
            ),
            .init(key: "marginCash", value: nil),
            .init(key: "accountBaseCurrency", value: "USD"),
        ]
        let message = "Account Overview successfully fetched"
        if v1 { return success(members, token: token, message: message) }
        return success(
            [.init(key: "accountOverview", value: .object(members)), .init(key: "fxAccountOverview", value: nil)],
            token: token,
            message: message
        )
    }

    /// One entry of `position/getPositions`.
    static func position(symbol: String, holding: TradeItHolding, instrument: MarketInstrument, quote: MarketQuote) -> JSON {
        let value = holding.quantity * quote.last
        let today = holding.quantity * quote.change
        let total = value - holding.cost
        return [
            "symbol": .string(symbol),
            "symbolClass": .string(instrument.assetClass == .crypto ? "CRYPTO" : "EQUITY_OR_ETF"),
            "holdingType": "LONG",
            "quantity": number(holding.quantity),
            "costbasis": money(holding.cost),
            "lastPrice": number(quote.last),
            "todayGainLossAbsolute": money(today),
            "todayGainLossPercentage": number(
                quote.previousClose.isZero ? 0 : DecimalText.round(quote.change / quote.previousClose * 100, scale: 2)
            ),
            "totalGainLossAbsolute": money(total),
            "totalGainLossPercentage": number(holding.cost.isZero ? 0 : DecimalText.round(total / holding.cost * 100, scale: 2)),
            "exchange": .string(instrument.exchange),
            "currency": .string(instrument.currency),
            "description": .string(instrument.name),
        ]
    }

    static func positions(_ positions: [JSON], page: Int, totalPages: Int, token: String?) -> JSON {
        success(
            [
                .init(key: "positions", value: .array(positions)), .init(key: "currentPage", value: .int(page)),
                .init(key: "totalPages", value: .int(totalPages)),
            ],
            token: token,
            message: "Position successfully fetched"
        )
    }

    // MARK: Orders

    /// `orderDetails` of a preview: the order, the quote, and what it would cost.
    static func previewDetails(
        _ order: TradeItOrder,
        quote: MarketQuote,
        availableCash: Decimal,
        held: Decimal,
        estimatedValue: Decimal,
        commission: Decimal,
        estimatedTotal: Decimal
    ) -> JSON {
        var members: [JSON.Member] = [
            .init(key: order.isCrypto ? "orderPair" : "orderSymbol", value: .string(order.symbol)),
            .init(key: "orderAction", value: .string(order.side.rawValue)),
            .init(key: "orderQuantity", value: number(order.quantity)),
            .init(key: "orderExpiration", value: .string(order.expiration.rawValue)),
            .init(key: "orderPrice", value: .string(priceText(order))),
            .init(key: "orderMessage", value: .string(message(order, verb: "You are about to place"))),
            .init(key: "lastPrice", value: number(quote.last)),
            .init(key: "bidPrice", value: number(quote.bid)),
            .init(key: "askPrice", value: number(quote.ask)),
            .init(key: "timestamp", value: time(quote.timestamp)),
            .init(key: "buyingPower", value: money(availableCash)),
            .init(key: "availableCash", value: money(availableCash)),
            .init(key: "longHoldings", value: number(held)),
            .init(key: "shortHoldings", value: 0),
            .init(key: "estimatedOrderValue", value: number(estimatedValue)),
            .init(key: "estimatedOrderCommission", value: number(commission)),
            .init(key: "estimatedTotalValue", value: number(estimatedTotal)),
            .init(key: "orderCommissionLabel", value: "Commission"),
            .init(key: "warnings", value: []),
        ]
        if order.isCrypto { members.append(.init(key: "orderQuantityType", value: "BASE_CURRENCY")) }
        return .object(members)
    }

    /// `REVIEW_ORDER`: the `orderId` to place.
    static func preview(orderId: String, details: JSON, token: String?) -> JSON {
        success(
            [
                .init(key: "orderId", value: .string(orderId)), .init(key: "orderDetails", value: details),
                .init(key: "warningsList", value: []), .init(key: "ackWarningsList", value: []),
            ],
            status: "REVIEW_ORDER",
            token: token,
            message: "Review your order"
        )
    }

    /// `order/place...`: stock orders answer `orderInfo`, crypto orders `orderDetails`.
    static func placed(_ order: TradeItOrder, now: Date, token: String?) -> JSON {
        var members: [JSON.Member] = [
            .init(key: "orderNumber", value: .string(order.orderNumber)),
            .init(key: "confirmationMessage", value: .string(message(order, verb: "Your order \(order.orderNumber) to"))),
            .init(key: "broker", value: .string(TradeItSandboxConfiguration.dummyBroker)),
            .init(key: "accountBaseCurrency", value: "USD"),
            .init(key: "timestamp", value: time(now)),
        ]
        if order.isCrypto {
            members.append(
                .init(
                    key: "orderDetails",
                    value: [
                        "orderPair": .string(order.symbol), "orderAction": .string(order.side.rawValue),
                        "orderQuantity": number(order.quantity), "orderExpiration": .string(order.expiration.rawValue),
                        "orderPrice": .string(priceText(order)), "orderQuantityType": "BASE_CURRENCY",
                    ]
                )
            )
        } else {
            var price: [JSON.Member] = [.init(key: "type", value: .string(order.priceType.rawValue))]
            if let limit = order.limitPrice { price.append(.init(key: "limitPrice", value: number(limit))) }
            if let stop = order.stopPrice { price.append(.init(key: "stopPrice", value: number(stop))) }
            members.append(
                .init(
                    key: "orderInfo",
                    value: [
                        "symbol": .string(order.symbol), "action": .string(order.side.rawValue),
                        "quantity": number(order.quantity), "expiration": .string(order.expiration.rawValue),
                        "price": .object(price),
                    ]
                )
            )
        }
        return success(members, token: token, message: "Order Successfully Submitted")
    }

    /// `{"orderNumber","orderStatus","orderType","orderExpiration","groupOrders":[],"orderLegs":[{...}]}`. A partly
    /// filled order: `"orderStatus":"PART_FILLED"`, leg `"orderedQuantity":10,"filledQuantity":4,"fills":[{"price":100.01,
    /// "quantity":4,"timestamp":"2025-01-06T15:00:00Z"}]`.
    static func status(_ order: TradeItOrder) -> JSON {
        let price: [JSON.Member] = [
            .init(key: "type", value: .string(order.priceType.statusName)),
            .init(key: "limitPrice", value: order.limitPrice.map(number) ?? nil),
            .init(key: "stopPrice", value: order.stopPrice.map(number) ?? nil),
            .init(key: "trailPrice", value: nil),
        ]
        // One entry per execution (TradeItIosEmsApi `TradeItOrderLeg.fills`, `TradeItOrderFill`); the leg's
        // `filledQuantity` is their sum, and `orderedQuantity` less it is what still works.
        let fills: [JSON] = order.executions.map {
            ["price": number($0.price), "quantity": number($0.quantity), "timestamp": time($0.time)]
        }
        let leg: JSON = [
            "symbol": .string(order.symbol), "action": .string(order.side == .buy ? "BUY" : "SELL"),
            "orderedQuantity": number(order.quantity), "filledQuantity": number(order.filledQuantity),
            "priceInfo": .object(price), "fills": .array(fills),
        ]
        return [
            "orderNumber": .string(order.orderNumber), "orderStatus": .string(order.status.rawValue),
            "orderType": .string(order.isCrypto ? "CRYPTO" : "EQUITY_OR_ETF"),
            "orderExpiration": .string(order.expiration.rawValue.uppercased()), "groupOrderId": nil, "groupOrderType": nil,
            "groupOrders": [], "orderLegs": [leg],
        ]
    }

    /// The status entry of an order number the account does not have.
    static func notFound(orderNumber: String) -> JSON {
        [
            "orderNumber": .string(orderNumber), "orderStatus": "NOT_FOUND", "orderType": nil, "orderExpiration": nil,
            "orderLegs": [], "groupOrders": [],
        ]
    }

    static func statuses(_ entries: [JSON], token: String?, message: String) -> JSON {
        success([.init(key: "orderStatusDetailsList", value: .array(entries))], token: token, message: message)
    }

    /// `Market`, `Limit 185`, `Stop 180`, `Stop 180 Limit 181`.
    static func priceText(_ order: TradeItOrder) -> String {
        switch order.priceType {
        case .limit: "Limit \(DecimalText.format(order.limitPrice ?? 0))"
        case .stopMarket: "Stop \(DecimalText.format(order.stopPrice ?? 0))"
        case .stopLimit: "Stop \(DecimalText.format(order.stopPrice ?? 0)) Limit \(DecimalText.format(order.limitPrice ?? 0))"
        case .market: "Market"
        }
    }

    /// `<verb> buy 2 AAPL at market.`
    static func message(_ order: TradeItOrder, verb: String) -> String {
        "\(verb) \(order.side.rawValue) \(DecimalText.format(order.quantity)) \(order.symbol) at \(priceText(order).lowercased())."
    }

    // MARK: Market data

    /// `brokermarketdata/getCryptoQuote`.
    static func cryptoQuote(_ quote: MarketQuote, token: String?) -> JSON {
        success(
            [
                .init(key: "ask", value: number(quote.ask)), .init(key: "bid", value: number(quote.bid)),
                .init(key: "last", value: number(quote.last)), .init(key: "open", value: number(quote.open)),
                .init(key: "dayHigh", value: number(quote.high)), .init(key: "dayLow", value: number(quote.low)),
                .init(key: "volume", value: number(quote.lastSize)),
                .init(key: "dateTime", value: time(quote.timestamp)),
            ],
            token: token,
            message: "Quote successfully fetched"
        )
    }

    /// One `TradeItQuoteResult`'s fields (the iOS SDK's `TradeItQuote`): `symbol`, `companyName`, `askPrice`,
    /// `bidPrice`, `lastPrice`, `change` and `pctChange` (from the previous close; percent), `low`, `high`, `volume`,
    /// `dateTime` of the last trade.
    static func equityQuote(_ quote: MarketQuote, instrument: MarketInstrument) -> [JSON.Member] {
        [
            .init(key: "symbol", value: .string(instrument.symbol)), .init(key: "companyName", value: .string(instrument.name)),
            .init(key: "askPrice", value: number(quote.ask)), .init(key: "bidPrice", value: number(quote.bid)),
            .init(key: "lastPrice", value: number(quote.last)), .init(key: "change", value: number(quote.change)),
            .init(key: "pctChange", value: number(DecimalText.round(quote.changeFraction * 100, scale: 2))),
            .init(key: "low", value: number(quote.low)), .init(key: "high", value: number(quote.high)),
            .init(key: "volume", value: number(quote.lastSize)), .init(key: "dateTime", value: time(quote.timestamp)),
        ]
    }
}
