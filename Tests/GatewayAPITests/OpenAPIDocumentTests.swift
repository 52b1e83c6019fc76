import Foundation
import GatewayAPI
import GatewayCore
import GatewayStore
import Hummingbird
import Logging
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
        let registry = AdapterRegistry(factories: [], transport: UnusedTransport(), logger: Logger(label: "test"))
        let gateway = Gateway(store: store, registry: registry, router: BrokerRouter(), logger: Logger(label: "test"))
        let router = try GatewayServer.router(gateway: gateway)
        return Set(router.routes.map { route in
            let path = route.path.description.split(separator: "/").map { segment in
                segment.hasPrefix(":") ? "{\(segment.dropFirst())}" : String(segment)
            }.joined(separator: "/")
            return "\(route.method) /\(path)"
        })
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
            for operation in try documentedOperations().sorted() {
                let parts = operation.split(separator: " ", maxSplits: 1)
                let path = parts[1].replacingOccurrences(of: "{id}", with: "x")
                let response = try await client.call(.init(rawValue: String(parts[0]))!, path, headers: harness.auth, json: parts[0] == "GET" || parts[0] == "DELETE" ? nil : "{}")
                let message = response.body.error?["message"] as? String ?? ""
                #expect(!message.hasPrefix("no route"), "\(operation) is not served")
                #expect(response.status < 500, "\(operation) answered \(response.status)")
            }
        }
    }
}
