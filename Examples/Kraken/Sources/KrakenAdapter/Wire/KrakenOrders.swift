import Foundation
import GatewayModel

/*
 {"refid": null, "userref": 0, "cl_ord_id": "6d1b345e-...", "status": "open", "opentm": 1688666559.8974, "starttm": 0,
  "expiretm": 0, "descr": {"pair": "XBTUSD", "type": "buy", "ordertype": "limit", "price": "30010.0", "price2": "0",
  "leverage": "none", "order": "buy 1.25000000 XBTUSD @ limit 30010.0", "close": ""},
  "vol": "1.25000000", "vol_exec": "0.37500000", "cost": "11253.7", "fee": "0.00000", "price": "30010.0",
  "stopprice": "0.00000", "limitprice": "0.00000", "misc": "", "oflags": "fciq"}
 */
/// An order as OpenOrders, ClosedOrders and QueryOrders give it (the map key is its txid). `descr.pair` is the pair's
/// altname; `price` is the average fill price; times are unix seconds, numbers or strings.
struct KrakenOrder: Decodable, Sendable {
    struct Description: Decodable, Sendable {
        var pair: String
        var type: String
        var ordertype: String
        var price: KrakenText?
        var price2: KrakenText?
    }

    var status: String
    var clOrdId: String?
    var userref: KrakenText?
    var opentm: Date?
    var closetm: Date?
    var expiretm: Date?
    var descr: Description
    var vol: Decimal
    var volExec: Decimal
    var price: Decimal?
    var reason: String?
    var timeInForce: String?

    enum CodingKeys: String, CodingKey {
        case status, userref, opentm, closetm, expiretm, descr, vol, price, reason
        case clOrdId = "cl_ord_id"
        case volExec = "vol_exec"
        case timeInForce = "time_in_force"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        status = try c.decode(String.self, forKey: .status)
        clOrdId = try c.decodeIfPresent(String.self, forKey: .clOrdId)
        userref = try c.decodeIfPresent(KrakenText.self, forKey: .userref)
        opentm = try c.decodeKrakenTimeIfPresent(forKey: .opentm)
        closetm = try c.decodeKrakenTimeIfPresent(forKey: .closetm)
        expiretm = try c.decodeKrakenTimeIfPresent(forKey: .expiretm)
        descr = try c.decode(Description.self, forKey: .descr)
        vol = try c.decodeDecimal(forKey: .vol)
        volExec = try c.decodeDecimalIfPresent(forKey: .volExec) ?? 0
        price = try c.decodeDecimalIfPresent(forKey: .price)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        timeInForce = try c.decodeIfPresent(String.self, forKey: .timeInForce)
    }
}

/// `OpenOrders`: `{"open": {txid: order}}`.
struct KrakenOpenOrders: Decodable, Sendable {
    var open: [String: KrakenOrder]
}

/// `ClosedOrders`: `{"closed": {txid: order}, "count": n}`.
struct KrakenClosedOrders: Decodable, Sendable {
    var closed: [String: KrakenOrder]
}

/*
 {"error":[],"result":{"descr":{"order":"buy 1.45 XBTUSD @ limit 27500.0"},"txid":["OU22CG-KLAF2-FWUDD7"]}}
 */
/// `AddOrder`: the order's description and its txid (an array; absent when only validated).
struct KrakenPlacement: Decodable, Sendable {
    var txid: [String]?
}

/*
 {"error": [], "result": {"amend_id": "TEZA4R-DSDGT-IJBOJK"}}
 */
/// `AmendOrder`: the amend's id (the order keeps its txid).
struct KrakenAmendment: Decodable, Sendable {
    var amendId: String

    enum CodingKeys: String, CodingKey { case amendId = "amend_id" }
}

/// `CancelOrder`: `{"count": 1}` (and `pending` when the cancel is not done yet).
struct KrakenCancellation: Decodable, Sendable {
    var count: Int
    var pending: Bool?
}
