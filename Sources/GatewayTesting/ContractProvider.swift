import Foundation
public import GatewayCore
public import GatewayModel
import HTTPTypes

/// Where the provider side sends a broker's cases: a running simulator (or any server speaking the dialect).
public struct ContractProviderTarget: Sendable {
    /// Every recorded base URL (trading and market data hosts alike) is replaced by this one.
    public var baseURL: String
    /// The headers that authenticate against the target (for Alpaca: `APCA-API-KEY-ID`, `APCA-API-SECRET-KEY`).
    public var authHeaders: [(name: String, value: String)]
    /// The longest one request to the target may take.
    public var timeout: Duration

    /// Makes a target; a trailing slash on `baseURL` is dropped.
    public init(baseURL: String, authHeaders: [(name: String, value: String)], timeout: Duration = .seconds(10)) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.authHeaders = authHeaders
        self.timeout = timeout
    }

    /// The same header names with values the target cannot accept.
    public var invalidAuthHeaders: [(name: String, value: String)] {
        authHeaders.map { ($0.name, "invalid-\(RandomIdentifier.hex(byteCount: 4))") }
    }
}

/// The provider side of contract cases: sends each case's recorded requests to a running target, after the case's
/// setup steps, and checks each answer has the recorded status and the recorded JSON shape.
public struct ContractProvider: Sendable {
    /// The target for each broker kind; a case of a kind without one is skipped.
    public let targets: [BrokerKind: ContractProviderTarget]
    /// The transport the recorded requests are sent through (a real HTTP client in tests).
    public let transport: any BrokerTransport

    /// Makes a provider side over `targets`, sending through `transport`.
    public init(targets: [BrokerKind: ContractProviderTarget], transport: any BrokerTransport) {
        self.targets = targets
        self.transport = transport
    }

    /// Runs one case against its broker's target: the setup steps, then each chosen exchange's request (with the case's
    /// replacements), checking status and JSON shape. Never throws: every problem is the verdict.
    public func run(_ contract: ContractCase) async -> ContractResult {
        var notes: [String] = []
        func verdict(_ outcome: ContractResult.Outcome) -> ContractResult {
            ContractResult(label: contract.label, source: contract.source, side: .provider, outcome: outcome, notes: notes)
        }
        let spec = contract.provider ?? ContractProviderSpec()
        if let reason = spec.skip { return verdict(.skipped(reason)) }
        guard let target = targets[contract.broker] else {
            return verdict(.skipped("no provider target for broker kind '\(contract.broker)'"))
        }
        let problems = contract.problems()
        guard problems.isEmpty else { return verdict(.failed("the case is malformed: " + problems.joined(separator: "; "))) }

        var variables = ["unique": RandomIdentifier.uuid()]
        for (index, step) in (spec.setup ?? []).enumerated() {
            let request = resolve(step.request, replace: [:], variables: variables)
            let response: BrokerResponse
            do {
                response = try await send(request, base: step.baseURL, target: target, auth: .valid)
            } catch {
                return verdict(.failed("setup step \(index) (\(request.method) \(request.path)) failed: \(error)"))
            }
            let statusOK = step.expectStatus.map { $0 == response.status } ?? (200..<300).contains(response.status)
            guard statusOK else {
                return verdict(
                    .failed(
                        "setup step \(index) (\(request.method) \(request.path)) got HTTP \(response.status): \(Self.snippet(response.body))"
                    )
                )
            }
            for (name, path) in step.capture ?? [:] {
                guard let json = JSONValue(data: response.body), let value = ContractJSON.value(at: path, in: json) else {
                    return verdict(.failed("setup step \(index) has no '\(path)' to capture as \(name)"))
                }
                switch value {
                case .string(let text): variables[name] = text
                case .number(let number): variables[name] = "\(number)"
                case .bool(let flag): variables[name] = "\(flag)"
                default: return verdict(.failed("setup step \(index): '\(path)' is not a scalar"))
                }
            }
        }

        let indices = spec.exchanges ?? Array(contract.exchanges.indices)
        let optionalKeys = Set(spec.optionalKeys ?? [])
        let looseKinds = Set(spec.looseKinds ?? [])
        for index in indices {
            let exchange = contract.exchanges[index]
            let request = resolve(exchange.request, replace: spec.replace ?? [:], variables: variables)
            let response: BrokerResponse
            do {
                response = try await send(request, base: nil, target: target, auth: spec.auth ?? .valid)
            } catch {
                return verdict(.failed("exchange \(index) (\(request.method) \(request.path)) failed: \(error)"))
            }
            let label = "exchange \(index) (\(request.method) \(request.path))"
            guard response.status == exchange.response.status else {
                return verdict(
                    .failed(
                        "\(label): recorded HTTP \(exchange.response.status), the sandbox answered \(response.status): \(Self.snippet(response.body))"
                    )
                )
            }
            guard let recorded = exchange.response.body, exchange.response.rawBody == nil else { continue }
            guard let actual = JSONValue(data: response.body) else {
                return verdict(.failed("\(label): the sandbox's body is not JSON: \(Self.snippet(response.body))"))
            }
            var shapeNotes: [String] = []
            if let problem = ContractJSON.shapeDifference(
                recorded.shape,
                actual.shape,
                path: [],
                optionalKeys: optionalKeys,
                looseKinds: looseKinds,
                notes: &shapeNotes
            ) {
                return verdict(.failed("\(label): \(problem)"))
            }
            notes += shapeNotes.map { "\(label): \($0)" }
        }
        return verdict(.passed)
    }

    func send(
        _ request: RecordedRequest,
        base: String?,
        target: ContractProviderTarget,
        auth: ContractProviderSpec.Auth
    ) async throws -> BrokerResponse {
        var url = (base ?? target.baseURL) + request.path
        if let query = request.query, !query.isEmpty {
            url +=
                "?"
                + query.sorted { $0.key < $1.key }.map { "\(Self.escape($0.key))=\(Self.escape($0.value))" }
                .joined(separator: "&")
        }
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        var body: Data?
        if let json = request.body {
            body = json.data
            headers.append(("Content-Type", "application/json"))
        } else if let form = request.form {
            body = Data(
                form.sorted { $0.key < $1.key }.map { "\(Self.escape($0.key))=\(Self.escape($0.value))" }
                    .joined(separator: "&").utf8
            )
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
        }
        switch auth {
        case .valid: headers += target.authHeaders
        case .invalid: headers += target.invalidAuthHeaders
        case .none: break
        }
        guard let method = HTTPRequest.Method(request.method.uppercased()) else {
            throw ReplayMismatch(description: "'\(request.method)' is not an HTTP method")
        }
        return try await transport.send(
            BrokerRequest(
                method: method,
                url: url,
                headers: HTTPFields(pairs: headers),
                body: body,
                timeout: target.timeout
            )
        )
    }

    /// Applies the case's literal → template replacements, then fills `{{variables}}`.
    func resolve(_ request: RecordedRequest, replace: [String: String], variables: [String: String]) -> RecordedRequest {
        func text(_ value: String) -> String {
            var value = value
            for (literal, template) in replace.sorted(by: { $0.key.count > $1.key.count }) {
                value = value.replacingOccurrences(of: literal, with: template)
            }
            for (name, replacement) in variables {
                value = value.replacingOccurrences(of: "{{\(name)}}", with: replacement)
            }
            return value
        }
        func json(_ value: JSONValue) -> JSONValue {
            switch value {
            case .string(let string): .string(text(string))
            case .array(let items): .array(items.map(json))
            case .object(let object): .object(object.mapValues(json))
            default: value
            }
        }
        var resolved = request
        resolved.path = text(request.path)
        resolved.query = request.query?.mapValues(text)
        resolved.body = request.body.map(json)
        resolved.form = request.form?.mapValues(text)
        return resolved
    }

    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    static func escape(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text }

    static func snippet(_ body: Data) -> String {
        let text = String(decoding: body.prefix(300), as: UTF8.self)
        return text.isEmpty ? "(empty body)" : text
    }
}
