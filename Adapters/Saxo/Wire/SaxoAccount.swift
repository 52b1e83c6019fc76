/// One element of `GET port/v1/accounts/me`.
struct SaxoAccount: Decodable, Sendable {
    var accountId: String
    var accountKey: String
    var clientKey: String?
    var accountType: String?
    var active: Bool?
    var currency: String?
    var displayName: String?

    enum CodingKeys: String, CodingKey {
        case accountId = "AccountId"
        case accountKey = "AccountKey"
        case clientKey = "ClientKey"
        case accountType = "AccountType"
        case active = "Active"
        case currency = "Currency"
        case displayName = "DisplayName"
    }
}
