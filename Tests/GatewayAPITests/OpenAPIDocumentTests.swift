import Foundation
import GatewayAPI
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@Suite("API: the OpenAPI document matches the server")
struct OpenAPIDocumentTests {
    func documentedOperations() throws -> Set<String> {
        let json = try #require(try JSONSerialization.jsonObject(with: GatewayServer.openAPIDocument()) as? [String: Any])
        let paths = try #require(json["paths"] as? [String: [String: Any]])
        var operations: Set<String> = []
        for (path, item) in paths {
            for method in item.keys where ["get", "post", "put", "patch", "delete"].contains(method) {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    func servedOperations() throws -> Set<String> {
        let store = try SQLiteStore(inMemoryWith: .random())
        let registry = AdapterRegistry(factories: [], transport: ScriptedTransport.unused(), logger: Logger(label: "test"))
        let gateway = Gateway(store: store, registry: registry, router: BrokerRouter(), logger: Logger(label: "test"))
        let router = try GatewayServer.router(gateway: gateway)
        return Set(
            router.routes.map { route in
                let path = route.path.description.split(separator: "/").map { segment in
                    segment.hasPrefix(":") ? "{\(segment.dropFirst())}" : String(segment)
                }.joined(separator: "/")
                return "\(route.method) /\(path)"
            }
        )
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedRouteIsServed() throws {
        let documented = try documentedOperations()
        let served = try servedOperations()
        #expect(served.subtracting(documented).isEmpty, "served but not documented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
        #expect(documented.count >= 20)
    }

    @Test func documentedPathsAnswerWithoutARouteMiss() async throws {
        try await APIHarness.with { harness, client in
            // One reconciler pass, so /readyz is ready (it answers 503 until the reconciler has run).
            await harness.gateway.orders.reconcilePending()
            for operation in try documentedOperations().sorted() {
                let parts = operation.split(separator: " ", maxSplits: 1)
                var path = parts[1].replacingOccurrences(of: "{id}", with: "x")
                // The event stream answers until the client closes it, which this client cannot: a cursor that is
                // not one is answered (400) by the route itself, which is what is checked here.
                if path == "/v1/stream" { path += "?lastEventId=x" }
                let response = try await client.call(
                    .init(rawValue: String(parts[0]))!,
                    path,
                    headers: harness.auth,
                    json: parts[0] == "GET" || parts[0] == "DELETE" ? nil : "{}"
                )
                let message = response.body.error?["message"] as? String ?? ""
                #expect(!message.hasPrefix("no route"), "\(operation) is not served")
                #expect(response.status < 500, "\(operation) answered \(response.status)")
            }
        }
    }
}

@Suite("API: the server is generated from the document it serves")
struct SpecFirstTests {
    /// The package root, from this file's path (Tests/GatewayAPITests/…).
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    @Test func servedDocumentIsTheGeneratorsInput() async throws {
        // The generator reads Sources/GatewayAPI/openapi.json (scripts/generate-openapi.sh; GeneratedOpenAPITests checks
        // the committed code is its output); the server must serve that document, so what clients read is what the
        // server was generated from.
        let source = try Data(contentsOf: Self.packageRoot.appendingPathComponent("Sources/GatewayAPI/openapi.json"))
        #expect(try GatewayServer.openAPIDocument() == source)
        let client = Self.packageRoot.appendingPathComponent("Sources/BrokerGatewayClient/openapi.json")
        #expect(try Data(contentsOf: client) == source, "the client library must be generated from the same document")
        try await APIHarness.with { harness, client in
            let served = try await client.execute(uri: "/openapi.json", method: .get, headers: [:]) { response in
                Data(response.body.readableBytesView)
            }
            let servedObject = try JSONSerialization.jsonObject(with: served) as? NSDictionary
            let sourceObject = try JSONSerialization.jsonObject(with: source) as? NSDictionary
            #expect(servedObject == sourceObject)
        }
    }

    /// Every operation with a JSON body, with a body that is valid but for one field the schema does not have.
    func operationsWithBodies() throws -> [(method: String, path: String, schema: String)] {
        let json = try #require(try JSONSerialization.jsonObject(with: GatewayServer.openAPIDocument()) as? [String: Any])
        let paths = try #require(json["paths"] as? [String: [String: Any]])
        var result: [(String, String, String)] = []
        for (path, item) in paths {
            for (method, value) in item {
                guard let operation = value as? [String: Any], let body = operation["requestBody"] as? [String: Any],
                    let content = body["content"] as? [String: Any], let media = content["application/json"] as? [String: Any],
                    let schema = media["schema"] as? [String: Any], let ref = schema["$ref"] as? String
                else { continue }
                result.append((method.uppercased(), path, String(ref.split(separator: "/").last!)))
            }
        }
        return result.sorted { $0.0 + $0.1 < $1.0 + $1.1 }
    }

    @Test func requestSchemasAreClosed() throws {
        let json = try #require(try JSONSerialization.jsonObject(with: GatewayServer.openAPIDocument()) as? [String: Any])
        let schemas = try #require((json["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]])
        let bodies = try operationsWithBodies()
        #expect(bodies.count >= 8)
        for name in Set(bodies.map(\.schema)) {
            #expect(schemas[name]?["additionalProperties"] as? Bool == false, "\(name) must be closed")
        }
    }

    @Test func unknownFieldsAreRefusedByEveryOperationWithABody() async throws {
        // A body that would otherwise be acceptable, per schema, plus `"stopLoss"`.
        let valid: [String: String] = [
            "LinkConnection": #""broker":"alpaca","credentials":{"token":"good"}"#,
            "ImportConnections": #""bundle":"x""#,
            "ExportConnections": #""recipientKey":"k""#,
            "Verifier": #""oAuthVerifier":"v""#,
            "ChallengeAnswer": #""answer":"a""#,
            "OrderRequest": #""connectionId":"c","accountId":"a","symbol":"AAPL","side":"buy","type":"market","quantity":"1""#,
            "OrderModification": #""quantity":"2""#,
            "WatchlistInput": #""name":"Tech""#,
            "GoalInput": #""name":"House","targetValue":"1000","currency":"EUR","allocations":[]"#,
            "AlertInput": #""rule":{"type":"order","on":"filled"}"#,
            "TenantSettings": #""readMaxAgeMs":1000"#,
            "UserInput": #""displayName":"Ann""#,
            "KeyCreate": #""label":"k","scopes":["read"]"#,
            "LoginRequest": #""tenantId":"ten_x","code":"bgc_x","device":{"name":"n","type":"ios"}"#,
            "RefreshRequest": #""refreshToken":"bgr_x""#,
            "DeviceUpdate": #""trusted":true"#,
            "PushTokenRegistration": #""token":"0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a","platform":"ios""#,
            "LogoutDevice": #""deviceId":"dev_x""#,
            "SessionExtend": #""seconds":3600"#,
            "PasswordSet": #""password":"long enough password""#,
        ]
        let operations = try operationsWithBodies()
        let document = try OpenAPIDocument.bundled()
        try await APIHarness.with { harness, client in
            // Operations only a session may call are asked with an access token.
            let code = try await client.call(.post, "/v1/users/\(harness.userId)/login-codes", headers: harness.auth)
            let login = try await client.call(
                .post,
                "/v1/auth/login",
                headers: [.contentType: "application/json"],
                json:
                    #"{"tenantId":"\#(harness.tenant.id)","code":"\#(code.body.dataObject["code"] as? String ?? "")","device":{"name":"n","type":"ios"}}"#
            )
            let accessToken = try #require(login.body.dataObject["accessToken"] as? String)
            for operation in operations {
                let fields = try #require(valid[operation.schema], "no sample body for \(operation.schema)")
                let path = operation.path.replacingOccurrences(of: "{id}", with: "x")
                let id = try #require(document.operationID(method: operation.method, path: operation.path))
                var headers = harness.auth
                if !document.apiKeyOperationIDs.contains(id) { headers[.authorization] = "Bearer \(accessToken)" }
                let response = try await client.call(
                    .init(rawValue: operation.method)!,
                    path,
                    headers: headers,
                    json: "{\(fields),\"stopLoss\":\"150\"}"
                )
                #expect(response.status == 400, "\(operation.method) \(operation.path)")
                #expect(response.body.detailFields == ["stopLoss"], "\(operation.method) \(operation.path)")
            }
            // Nested objects are closed too, and a misspelled field is named, not ignored.
            let c = try await harness.link(.alpaca, baseURL: "https://closed.fake")
            let nested = try await client.call(
                .post,
                "/v1/watchlists",
                headers: harness.auth,
                json: #"{"name":"x","instruments":[{"symbol":"AAPL","exchange":"NASDAQ"}]}"#
            )
            #expect(nested.status == 400)
            #expect(nested.body.detailFields == ["instruments[0].exchange"])
            let misspelled = try await client.call(
                .post,
                "/v1/orders/preview",
                headers: harness.auth,
                json:
                    #"{"connectionId":"\#(c.id)","accountId":"ACC-1","symbol":"AAPL","side":"buy","type":"market","quantity":"1","limit_price":"180"}"#
            )
            #expect(misspelled.status == 400)
            #expect(misspelled.body.detailFields == ["limit_price"])
            let symbols = try await client.call(.post, "/v1/watchlists", headers: harness.auth, json: #"{"name":"x","symbols":["AAPL"]}"#)
            #expect(symbols.status == 400)
            #expect(symbols.body.detailFields == ["symbols"])
            #expect(harness.state.placed.withLock { $0 } == 0)
        }
    }

    @Test func queryValuesAreDecodedOnce() async throws {
        // `%2525` is the text `%25`; decoding it twice would make it `%`.
        try await APIHarness.with { harness, client in
            let response = try await client.call(.get, "/v1/positions?connection=a%2525b", headers: harness.auth)
            #expect(response.status == 404)
            #expect((response.body.error?["message"] as? String)?.contains("'a%25b'") == true)
        }
    }
}
