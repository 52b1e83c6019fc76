import Foundation
import GatewayAPI
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import HTTPTypes
import Synchronization
import Testing

@Suite("API: bad input gets a clear error, never a 500")
struct BadInputTests {
    /// An order body with some fields replaced; `overrides` is JSON members (`,"side":"hold"`).
    func order(_ connectionId: String, _ overrides: String) -> String {
        var fields: [(String, String)] = [
            ("connectionId", "\"\(connectionId)\""), ("accountId", "\"ACC-1\""), ("symbol", "\"AAPL\""), ("side", "\"buy\""),
            ("type", "\"limit\""), ("quantity", "\"1\""), ("limitPrice", "\"10\""),
        ]
        let replacement =
            try! JSONSerialization.jsonObject(with: Data("{\(overrides.dropFirst())}".utf8), options: [.fragmentsAllowed]) as! [String: Any]
        for (key, value) in replacement {
            let text =
                value is NSNull
                ? "null" : String(decoding: try! JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]), as: UTF8.self)
            if let index = fields.firstIndex(where: { $0.0 == key }) { fields[index].1 = text } else { fields.append((key, text)) }
        }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    @Test func malformedJSON() async throws {
        try await APIHarness.with { harness, client in
            for body in ["{", "not json", "[1,2]", "\"text\"", "{\"broker\": }"] {
                let response = try await client.call(.post, "/v1/connections", headers: harness.auth, json: body)
                #expect(response.status == 400, "\(body)")
                #expect(response.body.errorCode == "invalid_request")
                #expect(!response.body.detailFields.isEmpty)
            }
            let empty = try await client.call(.post, "/v1/orders", headers: harness.auth, json: "")
            #expect(empty.status == 400)
            #expect(empty.body.detailFields == ["body"])
        }
    }

    @Test func unknownEnumValuesNameTheField() async throws {
        try await APIHarness.with { harness, client in
            let c = try await harness.link(.alpaca, baseURL: "https://e.fake")
            for (field, json) in [
                ("side", order(c.id, #","side":"hold""#)), ("type", order(c.id, #","type":"iceberg""#)),
                ("timeInForce", order(c.id, #","timeInForce":"forever""#)), ("assetClass", order(c.id, #","assetClass":"tulips""#)),
            ] {
                let response = try await client.call(.post, "/v1/orders", headers: harness.auth, json: json)
                #expect(response.status == 400, "\(field)")
                #expect(response.body.detailFields == [field])
                let problem = (response.body.error?["details"] as? [[String: Any]])?.first?["problem"] as? String
                #expect(problem?.contains("must be one of") == true)
            }
        }
    }

    @Test(arguments: [("\"0\"", "quantity"), ("\"-5\"", "quantity"), ("-1", "quantity"), ("\"1.5abc\"", "quantity"), ("true", "quantity")])
    func badQuantities(_ quantity: String, _ field: String) async throws {
        try await APIHarness.with { harness, client in
            let c = try await harness.link(.alpaca, baseURL: "https://q.fake")
            let response = try await client.call(.post, "/v1/orders", headers: harness.auth, json: order(c.id, #","quantity":\#(quantity)"#))
            #expect([400, 422].contains(response.status))
            #expect(response.body.detailFields == [field])
            #expect(harness.state.placed.withLock { $0 } == 0)
        }
    }

    @Test func zeroQuantityIsUnprocessable() async throws {
        try await APIHarness.with { harness, client in
            let c = try await harness.link(.alpaca, baseURL: "https://z.fake")
            let response = try await client.call(.post, "/v1/orders", headers: harness.auth, json: order(c.id, #","quantity":"0""#))
            #expect(response.status == 422)
            #expect(response.body.errorCode == "unprocessable")
            let missingPrice = try await client.call(.post, "/v1/orders/preview", headers: harness.auth, json: order(c.id, #","limitPrice":null"#))
            #expect(missingPrice.status == 422)
            #expect(missingPrice.body.detailFields == ["limitPrice"])
        }
    }

    @Test func overLongStrings() async throws {
        try await APIHarness.with { harness, client in
            let name = String(repeating: "n", count: 101)
            let connection = try await client.call(
                .post,
                "/v1/connections",
                headers: harness.auth,
                json: #"{"broker":"alpaca","displayName":"\#(name)","credentials":{"token":"good"}}"#
            )
            #expect(connection.status == 422)
            #expect(connection.body.detailFields == ["displayName"])
            let watchlist = try await client.call(.post, "/v1/watchlists", headers: harness.auth, json: #"{"name":"\#(name)"}"#)
            #expect(watchlist.status == 422)
            #expect(watchlist.body.detailFields == ["name"])
            let c = try await harness.link(.alpaca, baseURL: "https://l.fake")
            let symbol = try await client.call(
                .post,
                "/v1/orders",
                headers: harness.auth,
                json: order(c.id, #","symbol":"\#(String(repeating: "S", count: 40))""#)
            )
            #expect(symbol.status == 422)
            #expect(symbol.body.detailFields == ["symbol"])
            let clientOrderId = try await client.call(
                .post,
                "/v1/orders",
                headers: harness.auth,
                json: order(c.id, #","clientOrderId":"\#(String(repeating: "c", count: 49))""#)
            )
            #expect(clientOrderId.body.detailFields == ["clientOrderId"])
            let query = try await client.call(.get, "/v1/positions?account=\(String(repeating: "a", count: 200))", headers: harness.auth)
            #expect(query.status == 400)
        }
    }

    @Test func unknownIds() async throws {
        try await APIHarness.with { harness, client in
            for path in [
                "/v1/connections/conn_nope", "/v1/orders/ord_bm9wZQ", "/v1/orders/garbage", "/v1/watchlists/wl_nope", "/v1/watchlists/bwl_Zm9vCmJhcg",
            ] {
                let response = try await client.call(.get, path, headers: harness.auth)
                #expect(response.status == 404, "\(path)")
                #expect(response.body.errorCode == "not_found")
            }
            let delete = try await client.call(.delete, "/v1/connections/conn_nope", headers: harness.auth)
            #expect(delete.status == 404)
            let route = try await client.call(.get, "/v1/nothing-here", headers: harness.auth)
            #expect(route.status == 404)
            let unknownConnection = try await client.call(.post, "/v1/orders", headers: harness.auth, json: order("conn_missing", ""))
            #expect(unknownConnection.status == 422)
            #expect(unknownConnection.body.detailFields == ["connectionId"])
        }
    }

    @Test func bodiesOverTheLimit() async throws {
        try await APIHarness.with(bodies: HTTPBodies(maxBodyBytes: 1024)) { harness, client in
            let big = #"{"name":"x","instruments":[\#(Array(repeating: #"{"symbol":"AAPL"}"#, count: 200).joined(separator: ","))]}"#
            let response = try await client.call(.post, "/v1/watchlists", headers: harness.auth, json: big)
            #expect(response.status == 413)
            #expect(response.body.errorCode == "payload_too_large")
        }
    }

    @Test func wrongContentTypeAndTypes() async throws {
        try await APIHarness.with { harness, client in
            var headers = harness.auth
            headers[.contentType] = "text/plain"
            let text = try await client.call(.post, "/v1/watchlists", headers: headers, json: #"{"name":"x"}"#)
            #expect(text.status == 400)
            let wrongType = try await client.call(.post, "/v1/watchlists", headers: harness.auth, json: #"{"name":5}"#)
            #expect(wrongType.status == 400)
            #expect(wrongType.body.detailFields == ["name"])
            let badLimit = try await client.call(.get, "/v1/orders?limit=0", headers: harness.auth)
            #expect(badLimit.status == 400)
            #expect(badLimit.body.detailFields == ["limit"])
            let badDate = try await client.call(.get, "/v1/orders?after=yesterday", headers: harness.auth)
            #expect(badDate.body.detailFields == ["after"])
            let badStatus = try await client.call(.get, "/v1/orders?status=pending", headers: harness.auth)
            #expect(badStatus.body.detailFields == ["status"])
        }
    }

    /// Issue 27: a byte-order mark, a member named twice and a NUL character were accepted (the decoder skips the
    /// mark, keeps one of two members, and carries the NUL into names and logs). Each is refused naming the member and
    /// the problem, and nothing is created.
    @Test func strictJSONRefusesAMarkADuplicateMemberAndNUL() async throws {
        try await APIHarness.with { harness, client in
            let c = try await harness.link(.alpaca, baseURL: "https://strict.fake")
            // A mark or a member named twice is malformed (400); a NUL is valid JSON breaking a rule (422).
            let cases: [(path: String, body: String, field: String, problem: String)] = [
                ("/v1/watchlists", "\u{FEFF}{\"name\":\"marked\"}", "body", "byte-order mark"),
                ("/v1/watchlists", #"{"name":"one","name":"two"}"#, "name", "more than once"),
                // The same name written two ways is one name.
                ("/v1/watchlists", #"{"name":"one","n\u0061me":"two"}"#, "name", "more than once"),
                (
                    "/v1/watchlists", #"{"name":"x","instruments":[{"symbol":"AAPL"},{"symbol":"MSFT","symbol":"IBM"}]}"#,
                    "instruments[1].symbol", "more than once"
                ),
                (
                    "/v1/orders", order(c.id, "").replacingOccurrences(of: #""side":"buy""#, with: #""side":"buy","side":"sell""#),
                    "side", "more than once"
                ),
                ("/v1/watchlists", #"{"name":"nul\u0000led"}"#, "name", "NUL"),
                ("/v1/watchlists", "{\"name\":\"raw\u{0}nul\"}", "name", "NUL"),
                ("/v1/watchlists", #"{"name":"x","n\u0000":"y"}"#, #"n\u0000"#, "NUL"),
            ]
            for item in cases {
                let response = try await client.call(.post, item.path, headers: harness.auth, json: item.body)
                let syntax = item.problem != "NUL"
                #expect(response.status == (syntax ? 400 : 422), "\(item.body)")
                #expect(response.body.errorCode == (syntax ? "invalid_request" : "unprocessable"), "\(item.body)")
                #expect(response.body.detailFields == [item.field], "\(item.body)")
                let problem = (response.body.error?["details"] as? [[String: Any]])?.first?["problem"] as? String
                #expect(problem?.contains(item.problem) == true, "\(item.body): \(problem ?? "none")")
            }
            let watchlists = try await client.call(.get, "/v1/watchlists", headers: harness.auth)
            let names = watchlists.body.dataList.compactMap { $0["name"] as? String }
            #expect(!names.contains { ["marked", "one", "two", "x"].contains($0) || $0.contains("nul") }, "\(names)")
            #expect(harness.state.placed.withLock { $0 } == 0)
            // Escapes that are not NUL, and a name that merely looks alike, are fine.
            let fine = try await client.call(
                .post,
                "/v1/watchlists",
                headers: harness.auth,
                json: #"{"name":"tab\there \u00e9 \ud83d\ude00"}"#
            )
            #expect(fine.status == 201, "\(fine.body)")
        }
    }
}
