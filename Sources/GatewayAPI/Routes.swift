import Foundation
import GatewayCore
public import GatewayModel
import GatewayStore
import NIOCore
public import Hummingbird
import HTTPTypes

/// Body of `POST /v1/connections`.
struct LinkConnectionBody: Decodable {
    var broker: BrokerKind
    var displayName: String?
    var baseURL: String?
    var settings: [String: String]?
    var credentials: [String: String]?
}

struct VerifierBody: Decodable { var oAuthVerifier: String }
struct ChallengeBody: Decodable { var answer: String }
struct ImportBody: Decodable {
    var bundle: String
    var key: String
}

/// Body of `POST /v1/watchlists` and `PUT /v1/watchlists/{id}`.
struct WatchlistBody: Decodable {
    var name: String?
    var instruments: [InstrumentReference]?
    var connectionId: String?
}

/// A broker kind as `GET /v1/brokers` shows it.
struct BrokerDescription: Encodable {
    var kind: BrokerKind
    var displayName: String
    var capabilities: Capabilities
    var credentialKeys: [String]
    var knownBaseURLs: [String: String]
}

/// The unified API under `/v1`, plus `/healthz` and `/openapi.json`.
public struct APIRoutes: Sendable {
    public let gateway: Gateway
    public let bodies: HTTPBodies
    public let openAPIDocument: ByteBuffer

    public init(gateway: Gateway, bodies: HTTPBodies = HTTPBodies(), openAPIDocument: ByteBuffer) {
        self.gateway = gateway
        self.bodies = bodies
        self.openAPIDocument = openAPIDocument
    }

    public func register(on router: Router<APIContext>) {
        router.add(middleware: ErrorMiddleware())
        router.get("/healthz") { _, _ in
            try bodies.json(["status": "ok"])
        }
        let document = openAPIDocument
        router.get("/openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: document))
        }
        // The broker's login page sends the user's browser here: no API key, the link's state nonce instead.
        router.get("v1/connections/:id/oauth/callback") { request, context in
            let query = QueryReader(request)
            let id = try context.parameters.require("id")
            guard let state = try query.string("state", maxLength: 128), let verifier = try query.string("oAuthVerifier", maxLength: 2048) else {
                throw GatewayError.invalid("oAuthVerifier", "and state are required")
            }
            let tenant = try await gateway.tenantForCallback(connectionId: id, state: state)
            let connection = try await gateway.completeLink(tenant: tenant, id: id, verifier: verifier, state: state)
            let html = "<!doctype html><title>Linked</title><p>\(connection.displayName) is linked (status: \(connection.status.rawValue)). You can close this window.</p>"
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
        }
        let v1 = router.group("v1").add(middleware: AuthMiddleware(store: gateway.store))
        registerBrokers(v1)
        registerConnections(v1)
        registerReads(v1)
        registerOrders(v1)
        registerWatchlists(v1)
    }

    func selection(_ query: QueryReader) throws -> Gateway.Selection {
        Gateway.Selection(
            connectionId: try query.string("connection"),
            broker: try query.string("broker", maxLength: 32).map { BrokerKind($0) },
            accountId: try query.string("account"))
    }

    func registerBrokers(_ v1: RouterGroup<APIContext>) {
        v1.get("brokers") { _, _ in
            let registry = gateway.registry
            let kinds = registry.kinds.compactMap { registry.factory(for: $0) }.map {
                BrokerDescription(
                    kind: $0.kind, displayName: $0.displayName, capabilities: $0.capabilities,
                    credentialKeys: $0.credentialKeys, knownBaseURLs: $0.knownBaseURLs)
            }
            return try bodies.json(DataEnvelope(data: kinds))
        }
    }

    func registerConnections(_ v1: RouterGroup<APIContext>) {
        v1.get("connections") { _, context in
            let tenant = try context.requireTenant()
            return try bodies.json(DataEnvelope(data: try await gateway.store.connections(tenantId: tenant.id)))
        }
        v1.post("connections") { request, context in
            let tenant = try context.requireTenant()
            let body = try await bodies.decode(LinkConnectionBody.self, from: request, context: context)
            let new = try Self.newConnection(body, registry: gateway.registry)
            if try gateway.needsInteractiveLink(new) {
                let pending = try await gateway.startLink(tenant: tenant, new, callbackBase: Self.callbackBase(request))
                return try bodies.json(DataEnvelope(data: pending), status: .accepted)
            }
            let connection = try await gateway.link(tenant: tenant, new)
            return try bodies.json(DataEnvelope(data: connection), status: .created)
        }
        v1.post("connections/authenticate") { _, context in
            let tenant = try context.requireTenant()
            return try bodies.json(DataEnvelope(data: try await gateway.authenticateAll(tenant: tenant)))
        }
        v1.post("connections/export") { _, context in
            let tenant = try context.requireTenant()
            return try bodies.json(DataEnvelope(data: try await gateway.exportConnections(tenant: tenant)))
        }
        v1.post("connections/import") { request, context in
            let tenant = try context.requireTenant()
            let body = try await bodies.decode(ImportBody.self, from: request, context: context)
            let imported = try await gateway.importConnections(tenant: tenant, bundle: body.bundle, key: body.key)
            return try bodies.json(DataEnvelope(data: imported), status: .created)
        }
        v1.post("connections/:id/link") { request, context in
            let tenant = try context.requireTenant()
            let id = try context.parameters.require("id")
            let body = try await bodies.decode(VerifierBody.self, from: request, context: context)
            if body.oAuthVerifier.isEmpty || body.oAuthVerifier.count > 2048 {
                throw GatewayError.unprocessable([FieldProblem(field: "oAuthVerifier", problem: "must be 1 to 2048 characters")])
            }
            let connection = try await gateway.completeLink(tenant: tenant, id: id, verifier: body.oAuthVerifier, state: nil)
            return try bodies.json(DataEnvelope(data: connection))
        }
        v1.post("connections/:id/relink") { request, context in
            let tenant = try context.requireTenant()
            let pending = try await gateway.startRelink(tenant: tenant, id: try context.parameters.require("id"), callbackBase: Self.callbackBase(request))
            return try bodies.json(DataEnvelope(data: pending))
        }
        v1.post("connections/:id/authenticate") { _, context in
            let tenant = try context.requireTenant()
            return try bodies.json(DataEnvelope(data: try await gateway.authenticate(tenant: tenant, id: try context.parameters.require("id"))))
        }
        v1.post("connections/:id/challenge") { request, context in
            let tenant = try context.requireTenant()
            let body = try await bodies.decode(ChallengeBody.self, from: request, context: context)
            if body.answer.isEmpty || body.answer.count > 256 {
                throw GatewayError.unprocessable([FieldProblem(field: "answer", problem: "must be 1 to 256 characters")])
            }
            let report = try await gateway.answerChallenge(tenant: tenant, id: try context.parameters.require("id"), answer: body.answer)
            return try bodies.json(DataEnvelope(data: report))
        }
        v1.get("connections/:id") { _, context in
            let tenant = try context.requireTenant()
            let id = try context.parameters.require("id")
            return try bodies.json(DataEnvelope(data: try await gateway.connection(tenant: tenant, id: id)))
        }
        v1.delete("connections/:id") { _, context in
            let tenant = try context.requireTenant()
            try await gateway.unlink(tenant: tenant, id: try context.parameters.require("id"))
            return Response(status: .noContent)
        }
    }

    /// Where the broker's login page should send the browser back: this gateway, as the client reached it.
    static func callbackBase(_ request: Request) -> String {
        let authority = request.head.authority ?? "127.0.0.1"
        let scheme = request.headers[HTTPField.Name("X-Forwarded-Proto")!] ?? "http"
        return "\(scheme)://\(authority)"
    }

    static func newConnection(_ body: LinkConnectionBody, registry: AdapterRegistry) throws -> NewConnection {
        var problems: [FieldProblem] = []
        guard let factory = registry.factory(for: body.broker) else {
            throw GatewayError.unprocessable([FieldProblem(
                field: "broker", problem: "must be one of: \(registry.kinds.map(\.rawValue).joined(separator: ", "))")])
        }
        let displayName = body.displayName ?? factory.displayName
        if displayName.isEmpty || displayName.count > 100 {
            problems.append(FieldProblem(field: "displayName", problem: "must be 1 to 100 characters"))
        }
        let baseURL = body.baseURL ?? factory.knownBaseURLs["default"] ?? ""
        if baseURL.isEmpty {
            problems.append(FieldProblem(field: "baseURL", problem: "is required (known: \(factory.knownBaseURLs.values.sorted().joined(separator: ", ")))"))
        } else if baseURL.count > 2048 {
            problems.append(FieldProblem(field: "baseURL", problem: "must be at most 2048 characters"))
        } else if !baseURL.hasPrefix("sandbox://") {
            if let url = URL(string: baseURL), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil {
            } else {
                problems.append(FieldProblem(field: "baseURL", problem: "must be an http(s) URL or sandbox://<broker>"))
            }
        }
        let settings = body.settings ?? [:]
        if settings.count > 32 { problems.append(FieldProblem(field: "settings", problem: "must have at most 32 entries")) }
        for (key, value) in settings where key.count > 64 || value.count > 2048 {
            problems.append(FieldProblem(field: "settings.\(key.prefix(64))", problem: "keys are at most 64 and values at most 2048 characters"))
        }
        let credentials = body.credentials ?? [:]
        if credentials.count > 16 { problems.append(FieldProblem(field: "credentials", problem: "must have at most 16 entries")) }
        for (key, value) in credentials where key.count > 64 || value.count > 8192 {
            problems.append(FieldProblem(field: "credentials.\(key.prefix(64))", problem: "keys are at most 64 and values at most 8192 characters"))
        }
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        return NewConnection(
            broker: body.broker, displayName: displayName, baseURL: baseURL, settings: settings,
            credentials: BrokerCredentials(credentials))
    }

    func registerReads(_ v1: RouterGroup<APIContext>) {
        v1.get("clients") { request, context in
            let tenant = try context.requireTenant()
            let selection = try selection(QueryReader(request))
            let result = try await gateway.fanOut(tenant: tenant, selection, operation: .clients) { adapter, _ in
                try await adapter.clients()
            }
            return try bodies.json(FanOutEnvelope(result))
        }
        v1.get("accounts") { request, context in
            let tenant = try context.requireTenant()
            let selection = try selection(QueryReader(request))
            let account = selection.accountId
            let result = try await gateway.fanOut(tenant: tenant, selection, operation: .accounts) { adapter, _ in
                try await adapter.accounts().filter { account == nil || $0.id == account }
            }
            return try bodies.json(FanOutEnvelope(result))
        }
        v1.get("balances") { request, context in
            let tenant = try context.requireTenant()
            let selection = try selection(QueryReader(request))
            let account = selection.accountId
            let result = try await gateway.fanOut(tenant: tenant, selection, operation: .balances) { adapter, _ in
                try await adapter.balances(accountId: account).filter { account == nil || $0.accountId == account }
            }
            return try bodies.json(FanOutEnvelope(result))
        }
        v1.get("positions") { request, context in
            let tenant = try context.requireTenant()
            let selection = try selection(QueryReader(request))
            let account = selection.accountId
            let result = try await gateway.fanOut(tenant: tenant, selection, operation: .positions) { adapter, _ in
                try await adapter.positions(accountId: account).filter { account == nil || $0.accountId == account }
            }
            return try bodies.json(FanOutEnvelope(result))
        }
        v1.get("quotes") { request, context in
            let tenant = try context.requireTenant()
            let query = QueryReader(request)
            let selection = try selection(query)
            guard let symbols = try query.symbols("symbols") else {
                throw GatewayError.invalid("symbols", "is required (comma-separated, e.g. AAPL,EUR/USD)")
            }
            let assetClass = try query.wireEnum("assetClass", AssetClass.self)
            let references = symbols.map { InstrumentReference(symbol: $0, assetClass: assetClass) }
            let result = try await gateway.fanOut(tenant: tenant, selection, operation: .quotes) { adapter, connection in
                try await Gateway.quotes(adapter, references).map { quote in
                    var quote = quote
                    quote.connectionId = connection.id
                    return quote
                }
            }
            return try bodies.json(FanOutEnvelope(result))
        }
        v1.get("candles") { request, context in
            let tenant = try context.requireTenant()
            let query = QueryReader(request)
            let selection = try selection(query)
            guard let symbol = try query.symbols("symbol", maxCount: 1)?.first else {
                throw GatewayError.invalid("symbol", "is required (one canonical symbol, e.g. EUR/USD)")
            }
            let interval = try query.wireEnum("interval", CandleInterval.self) ?? .oneHour
            let count = try query.int("count", range: 1...1200) ?? 100
            let reference = InstrumentReference(symbol: symbol, assetClass: try query.wireEnum("assetClass", AssetClass.self))
            let result = try await gateway.fanOut(tenant: tenant, selection, operation: .candles) { adapter, connection in
                var series = try await adapter.candles(reference, interval: interval, count: count)
                series.connectionId = connection.id
                return [series]
            }
            return try bodies.json(FanOutEnvelope(result))
        }
        v1.get("instruments") { request, context in
            let tenant = try context.requireTenant()
            let query = QueryReader(request)
            let selection = try selection(query)
            guard let text = try query.string("q", maxLength: 64) else {
                throw GatewayError.invalid("q", "is required (a symbol or part of a name)")
            }
            let assetClass = try query.wireEnum("assetClass", AssetClass.self)
            let result = try await gateway.fanOut(tenant: tenant, selection, operation: .searchInstruments) { adapter, _ in
                try await adapter.searchInstruments(text, assetClass: assetClass)
            }
            return try bodies.json(FanOutEnvelope(result))
        }
    }

    func registerOrders(_ v1: RouterGroup<APIContext>) {
        v1.get("orders") { request, context in
            let tenant = try context.requireTenant()
            let query = QueryReader(request)
            let selection = try selection(query)
            let orderQuery = OrderQuery(
                state: try query.wireEnum("status", OrderQuery.State.self) ?? .open,
                accountId: selection.accountId,
                symbols: try query.symbols("symbols") ?? [],
                limit: try query.int("limit", range: 1...500) ?? 100,
                after: try query.date("after"),
                until: try query.date("until"))
            let gateway = self.gateway
            let result = try await gateway.fanOut(tenant: tenant, selection, operation: .orders) { adapter, connection in
                try await gateway.journalIds(try await adapter.orders(orderQuery), tenant: tenant, connection: connection)
            }
            return try bodies.json(FanOutEnvelope(result))
        }
        v1.get("orders/:id") { _, context in
            let tenant = try context.requireTenant()
            let (order, _, _, _) = try await gateway.order(tenant: tenant, id: try context.parameters.require("id"))
            return try bodies.json(DataEnvelope(data: order))
        }
        v1.get("orders/:id/events") { _, context in
            let tenant = try context.requireTenant()
            let events = try await gateway.orderEvents(tenant: tenant, id: try context.parameters.require("id"))
            return try bodies.json(DataEnvelope(data: events))
        }
        v1.post("orders/preview") { request, context in
            let tenant = try context.requireTenant()
            let body = try await bodies.decode(OrderRequest.self, from: request, context: context)
            return try bodies.json(DataEnvelope(data: try await gateway.previewOrder(tenant: tenant, body)))
        }
        v1.post("orders") { request, context in
            let tenant = try context.requireTenant()
            let body = try await bodies.decode(OrderRequest.self, from: request, context: context)
            let key = request.headers[HTTPField.Name("Idempotency-Key")!]
            let result = try await gateway.placeOrder(tenant: tenant, body, idempotencyKey: key)
            var response = try bodies.json(DataEnvelope(data: result.order), status: result.outcome == .accepted ? .created : .accepted)
            if result.replayed { response.headers[HTTPField.Name("Idempotent-Replayed")!] = "true" }
            return response
        }
        v1.patch("orders/:id") { request, context in
            let tenant = try context.requireTenant()
            let id = try context.parameters.require("id")
            let body = try await bodies.decode(OrderModification.self, from: request, context: context)
            return try bodies.json(DataEnvelope(data: try await gateway.modifyOrder(tenant: tenant, id: id, body)))
        }
        v1.delete("orders/:id") { _, context in
            let tenant = try context.requireTenant()
            let id = try context.parameters.require("id")
            return try bodies.json(DataEnvelope(data: try await gateway.cancelOrder(tenant: tenant, id: id)))
        }
    }

    static func watchlistProblems(_ body: WatchlistBody, creating: Bool) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        if let name = body.name {
            if name.trimmingCharacters(in: .whitespaces).isEmpty || name.count > 100 {
                problems.append(FieldProblem(field: "name", problem: "must be 1 to 100 characters"))
            }
        } else if creating {
            problems.append(FieldProblem(field: "name", problem: "is required"))
        }
        if let instruments = body.instruments {
            if instruments.count > 200 { problems.append(FieldProblem(field: "instruments", problem: "must have at most 200 entries")) }
            for (index, instrument) in instruments.enumerated() where instrument.symbol.isEmpty || instrument.symbol.count > 32 {
                problems.append(FieldProblem(field: "instruments[\(index)].symbol", problem: "must be 1 to 32 characters"))
            }
        }
        if !creating, body.name == nil, body.instruments == nil {
            problems.append(FieldProblem(field: "body", problem: "must change name or instruments"))
        }
        if !creating, body.connectionId != nil {
            problems.append(FieldProblem(field: "connectionId", problem: "cannot be changed"))
        }
        return problems
    }

    func registerWatchlists(_ v1: RouterGroup<APIContext>) {
        v1.get("watchlists") { request, context in
            let tenant = try context.requireTenant()
            let result = try await gateway.watchlists(tenant: tenant, try selection(QueryReader(request)))
            return try bodies.json(FanOutEnvelope(result))
        }
        v1.post("watchlists") { request, context in
            let tenant = try context.requireTenant()
            let body = try await bodies.decode(WatchlistBody.self, from: request, context: context)
            let problems = Self.watchlistProblems(body, creating: true)
            if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
            let created = try await gateway.createWatchlist(
                tenant: tenant, name: body.name ?? "", instruments: body.instruments ?? [], connectionId: body.connectionId)
            return try bodies.json(DataEnvelope(data: created), status: .created)
        }
        v1.get("watchlists/:id") { _, context in
            let tenant = try context.requireTenant()
            let id = try context.parameters.require("id")
            return try bodies.json(DataEnvelope(data: try await gateway.watchlist(tenant: tenant, id: id)))
        }
        v1.put("watchlists/:id") { request, context in
            let tenant = try context.requireTenant()
            let id = try context.parameters.require("id")
            let body = try await bodies.decode(WatchlistBody.self, from: request, context: context)
            let problems = Self.watchlistProblems(body, creating: false)
            if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
            let updated = try await gateway.updateWatchlist(tenant: tenant, id: id, name: body.name, instruments: body.instruments)
            return try bodies.json(DataEnvelope(data: updated))
        }
        v1.delete("watchlists/:id") { _, context in
            let tenant = try context.requireTenant()
            try await gateway.deleteWatchlist(tenant: tenant, id: try context.parameters.require("id"))
            return Response(status: .noContent)
        }
    }
}
