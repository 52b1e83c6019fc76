/// Alpaca's error body: `{"code": 40310000, "message": "insufficient buying power", ...extras}`.
/// `code` is missing on some 401s (`{"message": "unauthorized."}`) and a few endpoints put the text in `error`.
struct AlpacaErrorBody: Decodable, Sendable {
    var code: Int?
    var message: String?

    enum CodingKeys: String, CodingKey { case code, message, error }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let number = try? c.decodeIfPresent(Int.self, forKey: .code) {
            code = number
        } else if let text = try? c.decodeIfPresent(String.self, forKey: .code) {
            code = Int(text)
        } else {
            code = nil
        }
        message =
            (try? c.decodeIfPresent(String.self, forKey: .message))
            ?? (try? c.decodeIfPresent(String.self, forKey: .error))
    }
}
