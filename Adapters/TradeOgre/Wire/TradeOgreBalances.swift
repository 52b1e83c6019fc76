import Foundation
import GatewayModel

/// `GET /account/balances`: `{"success":true,"balances":{"BTC":"0.00015033","XMR":"1.00000000",...}}`, totals only.
struct TradeOgreBalances: Decodable, Sendable {
    var balances: [String: Decimal]

    enum CodingKeys: String, CodingKey { case balances }

    struct CurrencyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let map = try c.nestedContainer(keyedBy: CurrencyKey.self, forKey: .balances)
        var balances: [String: Decimal] = [:]
        for key in map.allKeys { balances[key.stringValue.uppercased()] = try map.decodeDecimal(forKey: key) }
        self.balances = balances
    }
}

/// `POST /account/balance` (form `currency`): `{"success":true,"balance":"0.00015033","available":"0.00009034"}`;
/// `balance` includes what open orders hold.
struct TradeOgreBalance: Decodable, Sendable {
    var balance: Decimal
    var available: Decimal

    enum CodingKeys: String, CodingKey { case balance, available }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        balance = try c.decodeDecimal(forKey: .balance)
        available = try c.decodeDecimal(forKey: .available)
    }
}
