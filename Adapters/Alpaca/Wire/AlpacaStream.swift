import Foundation

/// `{"action":"auth","key":…,"secret":…}`, on both streams.
struct AlpacaStreamAction: Encodable, Sendable {
    var action: String
    var key: String
    var secret: String
}

/// `{"action":"subscribe","quotes":[…],"trades":[…]}` on the market data stream.
struct AlpacaStreamSubscription: Encodable, Sendable {
    var action: String
    var quotes: [String]
    var trades: [String]
}

/// One item of a market data stream message (a message is an array of them): control items
/// (`{"T":"success","msg":"authenticated"}`, `{"T":"error","code":402,"msg":"auth failed"}`,
/// `{"T":"subscription",…}`), quotes (`T: "q"`) and trades (`T: "t"`), whose fields are the REST API's.
struct AlpacaStreamItem: Decodable, Sendable {
    var type: String
    var message: String?
    var code: Int?
    var symbol: String?
    var quote: AlpacaQuote?
    var trade: AlpacaTrade?

    enum CodingKeys: String, CodingKey {
        case type = "T"
        case message = "msg"
        case code
        case symbol = "S"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = try c.decode(String.self, forKey: .type)
        message = try c.decodeIfPresent(String.self, forKey: .message)
        code = try c.decodeIfPresent(Int.self, forKey: .code)
        symbol = try c.decodeIfPresent(String.self, forKey: .symbol)
        quote = type == "q" ? try AlpacaQuote(from: decoder) : nil
        trade = type == "t" ? try AlpacaTrade(from: decoder) : nil
    }
}

/// A trade update stream message: `{"stream":"authorization","data":{"status":"authorized",…}}`,
/// `{"stream":"listening",…}`, `{"stream":"trade_updates","data":{"event":"fill","order":{"id":…,…}}}`.
struct AlpacaTradeStreamMessage: Decodable, Sendable {
    struct Payload: Decodable, Sendable {
        struct OrderReference: Decodable, Sendable {
            var id: String
        }

        var status: String?
        var event: String?
        var order: OrderReference?
    }

    var stream: String
    var data: Payload?
}
