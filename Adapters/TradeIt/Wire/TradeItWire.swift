import Foundation
import GatewayModel

// TradeIt's EMS JSON, as gson reads it in tradingticket/JavaApi (src/main/java/it/trade/model/reponse/*.java) and
// JSONModel in TradeItIosTicketSDK2. Every answer carries the envelope; numbers may be JSON numbers or strings.

/// `{"status":"ERROR","code":600,"shortMessage":"…","longMessages":["…"],"token":"…"}`.
struct TradeItEnvelope: Decodable, Sendable {
    var status: String?
    var code: Int?
    var shortMessage: String?
    var longMessages: [String]?
    var token: String?

    enum CodingKeys: String, CodingKey { case status, code, shortMessage, longMessages, token }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        status = try c.decodeIfPresent(String.self, forKey: .status)
        // gson writes the error enum as its number; accept "600" too.
        if let number = try? c.decodeIfPresent(Int.self, forKey: .code) {
            code = number
        } else if let text = try? c.decodeIfPresent(String.self, forKey: .code) {
            code = Int(text)
        }
        shortMessage = try? c.decodeIfPresent(String.self, forKey: .shortMessage)
        longMessages = try? c.decodeIfPresent([String].self, forKey: .longMessages)
        token = try? c.decodeIfPresent(String.self, forKey: .token)
    }
}

struct TradeItPopupResponse: Decodable { var oAuthURL: String }

struct TradeItAccessTokenResponse: Decodable {
    var userId: String
    var userToken: String
    var broker: String?
    var activationTime: String?
}

struct TradeItBrokerListResponse: Decodable {
    struct Broker: Decodable {
        var shortName: String?
        var longName: String?
    }
    var brokerList: [Broker]?
}

struct TradeItBrokerAccount: Decodable, Sendable, Hashable {
    var accountNumber: String
    var name: String?
    var accountBaseCurrency: String?
    var tradable: Bool?
}

struct TradeItAuthenticateResponse: Decodable {
    var token: String?
    var accounts: [TradeItBrokerAccount]?
    var informationType: String?
    var securityQuestion: String?
    var securityQuestionOptions: [String]?
}

struct TradeItAccountOverview: Decodable {
    var totalValue: Decimal?
    var availableCash: Decimal?
    var buyingPower: Decimal?
    var marginCash: Decimal?
    var accountBaseCurrency: String?

    enum CodingKeys: String, CodingKey { case totalValue, availableCash, buyingPower, marginCash, accountBaseCurrency }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        totalValue = try c.decodeDecimalIfPresent(forKey: .totalValue)
        availableCash = try c.decodeDecimalIfPresent(forKey: .availableCash)
        buyingPower = try c.decodeDecimalIfPresent(forKey: .buyingPower)
        marginCash = try c.decodeDecimalIfPresent(forKey: .marginCash)
        accountBaseCurrency = try c.decodeIfPresent(String.self, forKey: .accountBaseCurrency)
    }
}

struct TradeItAccountOverviewResponse: Decodable {
    var accountOverview: TradeItAccountOverview?
}

struct TradeItPosition: Decodable {
    var symbol: String
    var symbolClass: String?
    var holdingType: String?
    var quantity: Decimal
    /// Total cost of the holding (lowercase b on the wire).
    var costbasis: Decimal?
    var lastPrice: Decimal?
    var totalGainLossAbsolute: Decimal?
    /// Today's gain or loss of the holding.
    var todayGainLossAbsolute: Decimal?
    var exchange: String?
    var currency: String?
    var description: String?

    enum CodingKeys: String, CodingKey {
        case symbol, symbolClass, holdingType, quantity, costbasis, lastPrice, totalGainLossAbsolute, exchange, currency
        case description, todayGainLossAbsolute
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        symbol = try c.decode(String.self, forKey: .symbol)
        symbolClass = try c.decodeIfPresent(String.self, forKey: .symbolClass)
        holdingType = try c.decodeIfPresent(String.self, forKey: .holdingType)
        quantity = try c.decodeDecimal(forKey: .quantity)
        costbasis = try c.decodeDecimalIfPresent(forKey: .costbasis)
        lastPrice = try c.decodeDecimalIfPresent(forKey: .lastPrice)
        totalGainLossAbsolute = try c.decodeDecimalIfPresent(forKey: .totalGainLossAbsolute)
        todayGainLossAbsolute = try c.decodeDecimalIfPresent(forKey: .todayGainLossAbsolute)
        exchange = try c.decodeIfPresent(String.self, forKey: .exchange)
        currency = try c.decodeIfPresent(String.self, forKey: .currency)
        description = try c.decodeIfPresent(String.self, forKey: .description)
    }
}

struct TradeItPositionsResponse: Decodable {
    var positions: [TradeItPosition]?
    var currentPage: Int?
    var totalPages: Int?
}

struct TradeItPriceInfo: Decodable {
    var type: String?
    var limitPrice: Decimal?
    var stopPrice: Decimal?

    enum CodingKeys: String, CodingKey { case type, limitPrice, stopPrice }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = try c.decodeIfPresent(String.self, forKey: .type)
        limitPrice = try c.decodeDecimalIfPresent(forKey: .limitPrice)
        stopPrice = try c.decodeDecimalIfPresent(forKey: .stopPrice)
    }
}

struct TradeItFill: Decodable {
    var price: Decimal?
    var quantity: Decimal?
    var timestamp: String?

    enum CodingKeys: String, CodingKey { case price, quantity, timestamp }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        price = try c.decodeDecimalIfPresent(forKey: .price)
        quantity = try c.decodeDecimalIfPresent(forKey: .quantity)
        timestamp = try c.decodeIfPresent(String.self, forKey: .timestamp)
    }
}

struct TradeItOrderLeg: Decodable {
    var symbol: String?
    var action: String?
    var orderedQuantity: Decimal?
    var filledQuantity: Decimal?
    var priceInfo: TradeItPriceInfo?
    var fills: [TradeItFill]?

    enum CodingKeys: String, CodingKey { case symbol, action, orderedQuantity, filledQuantity, priceInfo, fills }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        symbol = try c.decodeIfPresent(String.self, forKey: .symbol)
        action = try c.decodeIfPresent(String.self, forKey: .action)
        orderedQuantity = try c.decodeDecimalIfPresent(forKey: .orderedQuantity)
        filledQuantity = try c.decodeDecimalIfPresent(forKey: .filledQuantity)
        priceInfo = try c.decodeIfPresent(TradeItPriceInfo.self, forKey: .priceInfo)
        fills = try c.decodeIfPresent([TradeItFill].self, forKey: .fills)
    }
}

struct TradeItOrderStatusDetails: Decodable {
    var orderNumber: String?
    var orderStatus: String?
    var orderType: String?
    var orderExpiration: String?
    var orderLegs: [TradeItOrderLeg]?
}

struct TradeItOrderStatusResponse: Decodable {
    var orderStatusDetailsList: [TradeItOrderStatusDetails]?
}

struct TradeItWarning: Decodable {
    var message: String?
}

struct TradeItOrderDetails: Decodable {
    var lastPrice: Decimal?
    var bidPrice: Decimal?
    var askPrice: Decimal?
    var buyingPower: Decimal?
    var estimatedOrderValue: Decimal?
    var estimatedOrderCommission: Decimal?
    var estimatedTotalValue: Decimal?
    var warnings: [TradeItWarning]?

    enum CodingKeys: String, CodingKey {
        case lastPrice, bidPrice, askPrice, buyingPower, estimatedOrderValue, estimatedOrderCommission
        case estimatedTotalValue, warnings
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        lastPrice = try c.decodeDecimalIfPresent(forKey: .lastPrice)
        bidPrice = try c.decodeDecimalIfPresent(forKey: .bidPrice)
        askPrice = try c.decodeDecimalIfPresent(forKey: .askPrice)
        buyingPower = try c.decodeDecimalIfPresent(forKey: .buyingPower)
        estimatedOrderValue = try c.decodeDecimalIfPresent(forKey: .estimatedOrderValue)
        estimatedOrderCommission = try c.decodeDecimalIfPresent(forKey: .estimatedOrderCommission)
        estimatedTotalValue = try c.decodeDecimalIfPresent(forKey: .estimatedTotalValue)
        warnings = try c.decodeIfPresent([TradeItWarning].self, forKey: .warnings)
    }
}

struct TradeItPreviewResponse: Decodable {
    var orderId: String
    var orderDetails: TradeItOrderDetails?
    var warningsList: [String]?
    var ackWarningsList: [String]?
}

struct TradeItPlaceResponse: Decodable {
    var orderNumber: String
    var confirmationMessage: String?
    var timestamp: String?
}

struct TradeItCryptoQuoteResponse: Decodable {
    var ask, bid, last, open, dayHigh, dayLow, volume: Decimal?
    var dateTime: String?

    enum CodingKeys: String, CodingKey { case ask, bid, last, open, dayHigh, dayLow, volume, dateTime }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        ask = try c.decodeDecimalIfPresent(forKey: .ask)
        bid = try c.decodeDecimalIfPresent(forKey: .bid)
        last = try c.decodeDecimalIfPresent(forKey: .last)
        open = try c.decodeDecimalIfPresent(forKey: .open)
        dayHigh = try c.decodeDecimalIfPresent(forKey: .dayHigh)
        dayLow = try c.decodeDecimalIfPresent(forKey: .dayLow)
        volume = try c.decodeDecimalIfPresent(forKey: .volume)
        dateTime = try c.decodeIfPresent(String.self, forKey: .dateTime)
    }
}

/// One quote of `marketdata/getQuote(s)`, as the iOS SDK's `TradeItQuote` (TradeItIosEmsApi `TradeItQuoteResult.h`):
/// numbers are JSON numbers; `pctChange` is a percentage; `dateTime` is the last trade's time.
struct TradeItEquityQuote: Decodable {
    var symbol: String?
    var companyName: String?
    var askPrice, bidPrice, lastPrice, change, pctChange, low, high, volume: Decimal?
    var dateTime: String?

    enum CodingKeys: String, CodingKey {
        case symbol, companyName, askPrice, bidPrice, lastPrice, change, pctChange, low, high, volume, dateTime
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        symbol = try c.decodeIfPresent(String.self, forKey: .symbol)
        companyName = try c.decodeIfPresent(String.self, forKey: .companyName)
        askPrice = try c.decodeDecimalIfPresent(forKey: .askPrice)
        bidPrice = try c.decodeDecimalIfPresent(forKey: .bidPrice)
        lastPrice = try c.decodeDecimalIfPresent(forKey: .lastPrice)
        change = try c.decodeDecimalIfPresent(forKey: .change)
        pctChange = try c.decodeDecimalIfPresent(forKey: .pctChange)
        low = try c.decodeDecimalIfPresent(forKey: .low)
        high = try c.decodeDecimalIfPresent(forKey: .high)
        volume = try c.decodeDecimalIfPresent(forKey: .volume)
        dateTime = try c.decodeIfPresent(String.self, forKey: .dateTime)
    }
}

/// `marketdata/getQuotes`: `{"status":"SUCCESS","quotes":[…]}` (TradeItIosEmsApi `TradeItQuotesResult.h`).
struct TradeItQuotesResponse: Decodable {
    var quotes: [TradeItEquityQuote]?
}

// MARK: Requests (camelCase JSON; decimals as strings, as the Java SDK sends them)

struct TradeItKeyRequest: Encodable { var apiKey: String }

struct TradeItPopupRequest: Encodable {
    var apiKey: String
    var broker: String
    var interAppAddressCallback: String
    var userId: String?
    var userToken: String?
}

struct TradeItAccessTokenRequest: Encodable {
    var apiKey: String
    var oAuthVerifier: String
}

struct TradeItAuthenticateRequest: Encodable {
    var apiKey: String
    var userId: String
    var userToken: String
}

struct TradeItAnswerRequest: Encodable {
    var token: String
    var securityAnswer: String
}

struct TradeItAccountRequest: Encodable {
    var token: String
    var accountNumber: String
}

struct TradeItPositionsRequest: Encodable {
    var token: String
    var accountNumber: String
    var page: Int
}

struct TradeItOrderNumberRequest: Encodable {
    var token: String
    var accountNumber: String
    var orderNumber: String
}

struct TradeItPlaceRequest: Encodable {
    var token: String
    var orderId: String
}

struct TradeItPreviewStockRequest: Encodable {
    var token: String
    var accountNumber: String
    var orderSymbol: String
    var orderAction: String
    var orderQuantity: String
    var orderPriceType: String
    var orderLimitPrice: String?
    var orderStopPrice: String?
    var orderExpiration: String
    var userDisabledMargin: Bool
}

struct TradeItPreviewCryptoRequest: Encodable {
    var token: String
    var accountNumber: String
    var orderPair: String
    var orderAction: String
    var orderQuantity: String
    var orderQuantityType: String
    var orderPriceType: String
    var orderLimitPrice: String?
    var orderStopPrice: String?
    var orderExpiration: String
}

struct TradeItCryptoQuoteRequest: Encodable {
    var token: String
    var accountNumber: String
    var pair: String
}

/// `marketdata/getQuotes`: the app's key and comma-separated symbols (TradeItIosEmsApi `TradeItQuotesRequest`); no
/// session.
struct TradeItQuotesRequest: Encodable {
    var apiKey: String
    var symbols: String
}
