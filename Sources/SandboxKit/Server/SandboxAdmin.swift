import Foundation
public import Hummingbird
import NIOCore

/// The `/_sandbox` admin endpoints every simulator serves next to its broker API (no authentication, never faulted):
///
/// | Method + path | Body / answer |
/// |---|---|
/// | `GET /_sandbox/faults` | `{"seed":0,"timeoutHoldLimitSeconds":120,"rules":[rule]}` |
/// | `PUT /_sandbox/faults` | `{"seed"?:n,"rules":[rule]}` replaces all rules → the new state |
/// | `POST /_sandbox/faults` | one rule, appended → the rule with its `id` |
/// | `DELETE /_sandbox/faults` | removes all rules → 204 |
/// | `DELETE /_sandbox/faults/{id}` | removes one rule → 204, 404 if unknown |
/// | `GET /_sandbox/prices` | every instrument's quote |
/// | `GET /_sandbox/prices/{symbol}` | one quote (`BTC/USD` may be written `BTC/USD`, `BTC%2FUSD` or `BTC-USD`) |
/// | `PUT /_sandbox/prices/{symbol}` | `{"price":"123.45"}` (string or number) pins the price; `{"price":null}` unpins |
/// | `DELETE /_sandbox/prices/{symbol}` | unpins → 204 |
/// | `GET /_sandbox/depth/{symbol}` | `{"symbol":"AAPL","quantity":"3"}`; `quantity` null when unlimited |
/// | `PUT /_sandbox/depth/{symbol}` | `{"quantity":"3"}` limits what the touch holds (fills take from it); `null` unlimits |
/// | `DELETE /_sandbox/depth/{symbol}` | unlimited again → 204 |
/// | `GET /_sandbox/clock` | `{"now":"...","manual":true}` |
/// | `POST /_sandbox/clock/advance` | `{"seconds":60}` moves a ``ManualClock`` forward → `{"now":...}`; 409 with the wall clock |
///
/// Setting or clearing a price and advancing the clock wake the streams' watchers (``MarketMoves``).
///
/// A rule is `{"kind":"latency|error|tooManyRequests|timeout|dropResponse|malformedBody|truncatedBody",
/// "method"?:"POST","pathPrefix"?:"/v2/orders","count"?:1,"probability"?:0.5,
/// "latencyMs"?:250,"status"?:503,"body"?:"...","retryAfterSeconds"?:1,"afterEffect"?:true}`.
/// Admin errors are `{"error":{"code":"invalid_request","message":"..."}}`.
struct SandboxAdmin: Sendable {
    /// The market whose prices, depth and clock the endpoints read and set.
    let market: MarketEngine
    /// The fault rules the endpoints list and edit.
    let faults: FaultInjector

    /// Adds the endpoints under `/_sandbox` (``BrokerSimulator/sandboxRouter(errors:)`` does, outside the fault middleware).
    func register(on router: Router<SandboxRequestContext>) {
        let group = router.group("_sandbox")
        group.get("faults") { _, _ in self.faultState() }
        group.put("faults") { request, _ in try await self.replaceFaults(request) }
        group.post("faults") { request, _ in try await self.addFault(request) }
        group.delete("faults") { _, _ in
            self.faults.removeAll()
            return Response(status: .noContent)
        }
        group.delete("faults/:id") { _, context in
            let id = context.pathParameter("id") ?? ""
            guard self.faults.remove(id: id) else { throw AdminError(status: .notFound, code: "not_found", message: "no fault rule \(id)") }
            return Response(status: .noContent)
        }

        group.get("prices") { _, _ in
            Response.json(.array(self.market.instruments.compactMap { self.market.quote(symbol: $0.symbol).map(Self.render) }))
        }
        for path in ["prices/:symbol", "prices/:symbol/:quote"] {
            group.get(RouterPath(stringLiteral: path)) { _, context in
                let symbol = try self.symbol(context)
                guard let quote = self.market.quote(symbol: symbol) else { throw AdminError.unknownSymbol(symbol) }
                return Response.json(Self.render(quote))
            }
            group.put(RouterPath(stringLiteral: path)) { request, context in try await self.setPrice(request, context) }
            group.delete(RouterPath(stringLiteral: path)) { _, context in
                let symbol = try self.symbol(context)
                do { try self.market.setPriceOverride(nil, for: symbol) } catch { throw AdminError.unknownSymbol(symbol) }
                return Response(status: .noContent)
            }
        }

        for path in ["depth/:symbol", "depth/:symbol/:quote"] {
            group.get(RouterPath(stringLiteral: path)) { _, context in
                let symbol = try self.symbol(context)
                return Response.json(Self.renderDepth(symbol, self.market.depth(for: symbol)))
            }
            group.put(RouterPath(stringLiteral: path)) { request, context in try await self.setDepth(request, context) }
            group.delete(RouterPath(stringLiteral: path)) { _, context in
                let symbol = try self.symbol(context)
                do { try self.market.setDepth(nil, for: symbol) } catch { throw AdminError.unknownSymbol(symbol) }
                return Response(status: .noContent)
            }
        }

        group.get("clock") { _, _ in
            Response.json(["now": .string(Timestamp.format(self.market.now)), "manual": .bool(self.market.clock is ManualClock)])
        }
        group.post("clock/advance") { request, _ in try await self.advanceClock(request) }
    }

    // MARK: Faults

    private func faultState() -> Response {
        let (seconds, _) = faults.timeoutHoldLimit.components
        return .json([
            "seed": .number(String(faults.seed)),
            "timeoutHoldLimitSeconds": .int64(seconds),
            "rules": .array(faults.rules.map(Self.render)),
        ])
    }

    private func replaceFaults(_ request: Request) async throws -> Response {
        let body = try await Self.body(request)
        guard case .object = body else { throw AdminError.invalid("body must be an object") }
        var seed: UInt64?
        if let value = body["seed"], !value.isNull {
            guard case .number(let text) = value, let parsed = UInt64(text) else { throw AdminError.invalid("seed must be a non-negative integer") }
            seed = parsed
        }
        guard let items = body["rules"]?.arrayValue else { throw AdminError.invalid("rules must be an array") }
        let rules = try items.map(Self.parseRule)
        faults.setRules(rules, seed: seed)
        return faultState()
    }

    private func addFault(_ request: Request) async throws -> Response {
        let rule = try Self.parseRule(try await Self.body(request))
        faults.add(rule)
        return .json(Self.render(rule), status: .created)
    }

    /// A rule from its admin JSON (see above); throws ``AdminError`` (400) for a wrong type or an invalid value.
    static func parseRule(_ json: JSON) throws -> FaultRule {
        guard case .object = json else { throw AdminError.invalid("a rule must be an object") }
        func int(_ key: String) throws -> Int? {
            guard let value = json[key], !value.isNull else { return nil }
            guard case .number(let text) = value, let number = Int(text) else { throw AdminError.invalid("\(key) must be an integer") }
            return number
        }
        func string(_ key: String) throws -> String? {
            guard let value = json[key], !value.isNull else { return nil }
            guard let text = value.stringValue else { throw AdminError.invalid("\(key) must be a string") }
            return text
        }
        func bool(_ key: String) throws -> Bool? {
            guard let value = json[key], !value.isNull else { return nil }
            guard let flag = value.boolValue else { throw AdminError.invalid("\(key) must be a boolean") }
            return flag
        }
        guard let kind = try string("kind") else { throw AdminError.invalid("kind is required") }
        let fault: Fault
        switch kind {
        case "latency":
            guard let ms = try int("latencyMs") else { throw AdminError.invalid("latencyMs is required for latency") }
            fault = .latency(milliseconds: ms)
        case "error": fault = .error(status: try int("status") ?? 500, body: try string("body"))
        case "tooManyRequests": fault = .tooManyRequests(retryAfterSeconds: try int("retryAfterSeconds"))
        case "timeout": fault = .timeout(afterEffect: try bool("afterEffect") ?? false)
        case "dropResponse": fault = .dropResponse
        case "malformedBody": fault = .malformedBody
        case "truncatedBody": fault = .truncatedBody
        default:
            throw AdminError.invalid(
                "unknown kind \(kind); expected latency, error, tooManyRequests, timeout, dropResponse, malformedBody or truncatedBody"
            )
        }
        var probability: Double?
        if let value = json["probability"], !value.isNull {
            guard case .number(let text) = value, let parsed = Double(text) else { throw AdminError.invalid("probability must be a number") }
            probability = parsed
        }
        let rule = FaultRule(
            fault,
            method: try string("method"),
            pathPrefix: try string("pathPrefix"),
            count: try int("count"),
            probability: probability,
            id: try string("id")
        )
        if let problem = rule.validationProblem { throw AdminError.invalid(problem) }
        return rule
    }

    /// A rule as the admin API shows it, with its `id` and `fired` count.
    static func render(_ rule: FaultRule) -> JSON {
        var members: [JSON.Member] = [
            .init(key: "id", value: .string(rule.id)),
            .init(key: "kind", value: .string(rule.fault.kind)),
        ]
        switch rule.fault {
        case .latency(let ms): members.append(.init(key: "latencyMs", value: .int(ms)))
        case .error(let status, let body):
            members.append(.init(key: "status", value: .int(status)))
            members.append(.init(key: "body", value: .string(body)))
        case .tooManyRequests(let retry): members.append(.init(key: "retryAfterSeconds", value: retry.map(JSON.int) ?? .null))
        case .timeout(let afterEffect): members.append(.init(key: "afterEffect", value: .bool(afterEffect)))
        case .dropResponse, .malformedBody, .truncatedBody: break
        }
        members += [
            .init(key: "method", value: .string(rule.method)),
            .init(key: "pathPrefix", value: .string(rule.pathPrefix)),
            .init(key: "count", value: rule.count.map(JSON.int) ?? .null),
            .init(key: "probability", value: rule.probability.map { .number(String($0)) } ?? .null),
            .init(key: "fired", value: .int(rule.fired)),
        ]
        return .object(members)
    }

    // MARK: Prices

    private func symbol(_ context: SandboxRequestContext) throws -> String {
        let raw: String
        if let base = context.pathParameter("symbol"), let quote = context.pathParameter("quote") {
            raw = base + "/" + quote
        } else {
            raw = context.pathParameter("symbol") ?? ""
        }
        if market.instrument(symbol: raw) != nil { return raw }
        let slashed = raw.replacingOccurrences(of: "-", with: "/").replacingOccurrences(of: "_", with: "/")
        if market.instrument(symbol: slashed) != nil { return slashed }
        throw AdminError.unknownSymbol(raw)
    }

    private func setPrice(_ request: Request, _ context: SandboxRequestContext) async throws -> Response {
        let symbol = try self.symbol(context)
        let body = try await Self.body(request)
        let price = try Self.decimalOrNull(body, "price", example: "123.45")
        do {
            try market.setPriceOverride(price, for: symbol)
        } catch {
            throw AdminError.invalid(error.description)
        }
        guard let quote = market.quote(symbol: symbol) else { throw AdminError.unknownSymbol(symbol) }
        return .json(Self.render(quote))
    }

    /// A quote as the admin API shows it, prices as decimal strings.
    static func render(_ quote: MarketQuote) -> JSON {
        [
            "symbol": .string(quote.symbol),
            "timestamp": .string(Timestamp.format(quote.timestamp)),
            "bid": .string(DecimalText.format(quote.bid)),
            "ask": .string(DecimalText.format(quote.ask)),
            "last": .string(DecimalText.format(quote.last)),
            "open": .string(DecimalText.format(quote.open)),
            "high": .string(DecimalText.format(quote.high)),
            "low": .string(DecimalText.format(quote.low)),
            "previousClose": .string(DecimalText.format(quote.previousClose)),
            "overridden": .bool(quote.isOverridden),
        ]
    }

    // MARK: Depth

    private func setDepth(_ request: Request, _ context: SandboxRequestContext) async throws -> Response {
        let symbol = try self.symbol(context)
        let body = try await Self.body(request)
        let quantity = try Self.decimalOrNull(body, "quantity", example: "3")
        do {
            try market.setDepth(quantity, for: symbol)
        } catch {
            throw AdminError.invalid(error.description)
        }
        return .json(Self.renderDepth(symbol, market.depth(for: symbol)))
    }

    /// The body's one member `key`: a decimal (string or number), or `null` (unset). Bodies of the price and the
    /// depth endpoints are both this shape.
    static func decimalOrNull(_ body: JSON, _ key: String, example: String) throws -> Decimal? {
        guard case .object = body, let value = body[key] else { throw AdminError.invalid("body must be {\"\(key)\": \"\(example)\"}") }
        switch value {
        case .null: return nil
        case .string(let text), .number(let text):
            guard let parsed = DecimalText.parse(text) else { throw AdminError.invalid("\(key) must be a decimal") }
            return parsed
        default: throw AdminError.invalid("\(key) must be a decimal string or number")
        }
    }

    static func renderDepth(_ symbol: String, _ quantity: Decimal?) -> JSON {
        ["symbol": .string(symbol), "quantity": quantity.map { .string(DecimalText.format($0)) } ?? .null]
    }

    // MARK: Clock

    private func advanceClock(_ request: Request) async throws -> Response {
        guard let clock = market.clock as? ManualClock else {
            throw AdminError(
                status: .conflict,
                code: "conflict",
                message: "this sandbox runs on the wall clock; configure a ManualClock to advance time"
            )
        }
        let body = try await Self.body(request)
        guard case .number(let text)? = body["seconds"], let seconds = Double(text), seconds >= 0, seconds <= 100 * 366 * 86_400 else {
            throw AdminError.invalid("body must be {\"seconds\": <number from 0 to 100 years>}")
        }
        clock.advance(by: seconds)
        market.moves.signal()
        return .json(["now": .string(Timestamp.format(clock.now()))])
    }

    // MARK: -

    /// The request's JSON body (up to 1 MiB); throws ``AdminError`` (400) when it is not JSON.
    static func body(_ request: Request) async throws -> JSON {
        var request = request
        let buffer = try await request.collectBody(upTo: 1024 * 1024)
        do {
            return try JSON(parsing: Array(buffer: buffer))
        } catch {
            throw AdminError.invalid("body is not JSON: \(error)")
        }
    }
}

/// An admin endpoint's error: `{"error":{"code":"...","message":"..."}}`.
///
/// A simulator's own test hooks under `/_sandbox` throw it too (``invalid(_:)``), so every admin endpoint answers alike;
/// ``SandboxWireError/render(_:request:context:)`` renders it in this shape whatever the broker's error format.
public struct AdminError: Error, HTTPResponseError {
    /// The HTTP status of the answer (400 for a bad body, 404 for an unknown rule or symbol, 409 for a wall clock).
    public var status: HTTPResponse.Status
    /// The machine-readable `error.code` (`invalid_request`, `not_found`, `conflict`).
    public var code: String
    /// The `error.message`: what was wrong with the request, in words for the test author.
    public var message: String

    /// A 400 `invalid_request` saying what is wrong with the request (`message`, e.g. "userId is required").
    public static func invalid(_ message: String) -> AdminError { .init(status: .badRequest, code: "invalid_request", message: message) }
    static func unknownSymbol(_ symbol: String) -> AdminError {
        .init(status: .notFound, code: "not_found", message: "unknown symbol \(symbol)")
    }

    /// The JSON answer `{"error":{"code":…,"message":…}}` with ``status``.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        .json(["error": ["code": .string(code), "message": .string(message)]], status: status)
    }
}
