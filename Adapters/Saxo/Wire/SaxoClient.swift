/// `GET port/v1/clients/me` (one object).
struct SaxoClient: Decodable, Sendable {
    var clientId: String?
    var clientKey: String
    var name: String?
    var defaultAccountId: String?
    var defaultAccountKey: String?
    var defaultCurrency: String?

    enum CodingKeys: String, CodingKey {
        case clientId = "ClientId"
        case clientKey = "ClientKey"
        case name = "Name"
        case defaultAccountId = "DefaultAccountId"
        case defaultAccountKey = "DefaultAccountKey"
        case defaultCurrency = "DefaultCurrency"
    }
}

/// `GET port/v1/users/me` (one object): only what proves the token works.
struct SaxoUser: Decodable, Sendable {
    var userId: String?
    var userKey: String?
    var clientKey: String?
    var name: String?

    enum CodingKeys: String, CodingKey {
        case userId = "UserId"
        case userKey = "UserKey"
        case clientKey = "ClientKey"
        case name = "Name"
    }
}
