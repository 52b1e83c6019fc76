import Foundation
import GatewayCore
public import GatewayModel

/// One contract case: a canonical operation, the exact wire exchanges an adapter must perform for it, and the
/// canonical result (or error) it must produce. See `Contracts/README.md` for the format and the provenance rules.
public struct ContractCase: Codable, Sendable {
    /// Where the payloads come from, precisely (repository + path + test name, or documentation URL), and what was
    /// adapted. Required: cases are never invented.
    public var provenance: String
    /// The adapter kind the case is for; the runner makes the adapter with that kind's factory.
    public var broker: BrokerKind
    /// A short description, unique within the broker's folder (`one long equity position`).
    public var name: String
    /// The canonical operation the runner calls on the adapter.
    public var operation: ContractOperation
    /// The operation's canonical input; its form per operation is in `Contracts/README.md`.
    public var input: JSONValue?
    /// The connection the adapter is made for: base URL, settings and credentials.
    public var connection: ContractConnection
    /// Whether the adapter must send the exchanges in the recorded order (default `true`). Cases whose operation
    /// calls concurrently (quotes, preview, watchlists) set `false`: each exchange is then used at most once, in any order.
    public var ordered: Bool?
    /// The wire exchanges the adapter must make, in the `ReplayTransport` format, each answered with its recorded response.
    public var exchanges: [ContractExchange]
    /// The canonical result or error the operation must produce.
    public var expect: ContractExpectation
    /// How a running sandbox replays the case (the provider side); absent means replay every exchange with the target's own
    /// credentials.
    public var provider: ContractProviderSpec?
    /// Free text for readers.
    public var notes: String?

    /// The file the case was loaded from, for messages; not part of the format.
    public var source: String?

    enum CodingKeys: String, CodingKey {
        case provenance, broker, name, operation, input, connection, ordered, exchanges, expect, provider, notes
    }

    /// Makes a case in code, as the JSON format would; ``source`` stays unset.
    public init(
        provenance: String,
        broker: BrokerKind,
        name: String,
        operation: ContractOperation,
        input: JSONValue? = nil,
        connection: ContractConnection,
        ordered: Bool? = nil,
        exchanges: [ContractExchange],
        expect: ContractExpectation,
        provider: ContractProviderSpec? = nil,
        notes: String? = nil
    ) {
        self.provenance = provenance
        self.broker = broker
        self.name = name
        self.operation = operation
        self.input = input
        self.connection = connection
        self.ordered = ordered
        self.exchanges = exchanges
        self.expect = expect
        self.provider = provider
        self.notes = notes
    }

    /// The case's label in reports: `alpaca/positions: one long equity position`.
    public var label: String { "\(broker.rawValue)/\(operation.rawValue): \(name)" }

    /// Format rules that decoding alone does not enforce.
    public func problems() -> [String] {
        var problems: [String] = []
        if provenance.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            problems.append("provenance must say where the payloads come from")
        }
        if name.isEmpty { problems.append("name must not be empty") }
        if expect.hasResult == (expect.error != nil) {
            problems.append("expect must hold exactly one of result and error")
        }
        for (index, step) in (provider?.setup ?? []).enumerated() where step.request.path.isEmpty {
            problems.append("provider.setup[\(index)].request.path must not be empty")
        }
        for index in provider?.exchanges ?? [] where !exchanges.indices.contains(index) {
            problems.append("provider.exchanges names exchange \(index), which does not exist")
        }
        return problems
    }
}

/// Every operation a case can exercise: the `BrokerOperation`s plus `validateCredentials`.
public enum ContractOperation: String, WireEnum {
    case validateCredentials, clients, accounts, balances, positions
    case watchlists, createWatchlist, updateWatchlist, deleteWatchlist
    case orders, order, orderByClientOrderId, previewOrder, placeOrder, modifyOrder, cancelOrder
    case quotes, searchInstruments, candles, orderBook
}

/// The connection the adapter is made for.
public struct ContractConnection: Codable, Sendable, Hashable {
    /// The trading base URL; recorded request paths are relative to it unless an exchange names its own.
    public var baseURL: String
    /// The connection's non-secret settings (`dataBaseURL`, `feed`, `marketNaming`…), as a user links them.
    public var settings: [String: String]?
    /// The credentials the adapter is given (recorded requests may check the headers made from them).
    public var credentials: [String: String]?
    /// The connection id the canonical result carries; `"conn-1"` when absent.
    public var id: String?

    /// Makes a connection for a case built in code.
    public init(baseURL: String, settings: [String: String]? = nil, credentials: [String: String]? = nil, id: String? = nil) {
        self.baseURL = baseURL
        self.settings = settings
        self.credentials = credentials
        self.id = id
    }

    /// The connection id results carry when the case names none.
    public static let defaultId = "conn-1"
}

/// One recorded exchange (the `ReplayTransport` format) and, optionally, the host it goes to.
public struct ContractExchange: Codable, Sendable, Hashable {
    /// The request the adapter must send: method, path and the query, headers and body it must contain.
    public var request: RecordedRequest
    /// The response the transport answers it with.
    public var response: RecordedResponse
    /// The base URL this request goes to when it is not the connection's (a separate market data host).
    public var baseURL: String?
    /// Free text for readers.
    public var note: String?

    /// Makes an exchange for a case built in code.
    public init(request: RecordedRequest, response: RecordedResponse, baseURL: String? = nil, note: String? = nil) {
        self.request = request
        self.response = response
        self.baseURL = baseURL
        self.note = note
    }

    /// The exchange as the `ReplayTransport` takes it (without the base URL).
    public var recorded: RecordedExchange { RecordedExchange(request: request, response: response) }
}

/// What the operation must produce.
public struct ContractExpectation: Codable, Sendable, Hashable {
    /// The canonical result as JSON (`null` for operations that return nothing). Present means "expect success".
    public var result: JSONValue?
    /// Whether a result is expected (`result` was present, even as `null`); exactly one of this and ``error`` holds.
    public var hasResult: Bool
    /// The canonical error expected instead of a result.
    public var error: ExpectedError?
    /// Paths in the result left out of the comparison because the adapter generates them (a preview's id and
    /// expiry): dot-separated keys, array indices as numbers, `*` for any one key or index (`*.id`, `request.clientOrderId`).
    public var ignore: [String]?

    /// Expects success with `result` (the canonical JSON; `.null` for an operation that returns nothing).
    public init(result: JSONValue, ignore: [String]? = nil) {
        self.result = result
        self.hasResult = true
        self.error = nil
        self.ignore = ignore
    }

    /// Expects the operation to fail with `error`.
    public init(error: ExpectedError) {
        self.result = nil
        self.hasResult = false
        self.error = error
        self.ignore = nil
    }

    enum CodingKeys: String, CodingKey { case result, error, ignore }

    /// Reads `result`, `error` and `ignore`; a `result` key that is present, even `null`, means success is expected.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        hasResult = c.contains(.result)
        result = hasResult ? try c.decode(JSONValue.self, forKey: .result) : nil
        error = try c.decodeIfPresent(ExpectedError.self, forKey: .error)
        ignore = try c.decodeIfPresent([String].self, forKey: .ignore)
    }

    /// Writes `result` (as `null` when it is one), `error` and `ignore`, so a decoded expectation round-trips.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if hasResult { try c.encode(result ?? .null, forKey: .result) }
        try c.encodeIfPresent(error, forKey: .error)
        try c.encodeIfPresent(ignore, forKey: .ignore)
    }
}

/// The canonical error expected. Only the fields given are checked.
public struct ExpectedError: Codable, Sendable, Hashable {
    /// The canonical error code on the wire (`conflict`, `rate_limited`…); always checked.
    public var code: String
    /// The broker's own code the error must carry (`40010001`), when given.
    public var brokerCode: String?
    /// Text the error's message must contain.
    public var messageContains: String?
    /// Whether the error must be marked retryable, when given.
    public var retryable: Bool?
    /// Seconds, checked to within one second.
    public var retryAfter: Double?
    /// Field problems that must all be present (others may be too).
    public var details: [FieldProblem]?

    /// Makes an expected error; every field but `code` is checked only when given.
    public init(
        code: String,
        brokerCode: String? = nil,
        messageContains: String? = nil,
        retryable: Bool? = nil,
        retryAfter: Double? = nil,
        details: [FieldProblem]? = nil
    ) {
        self.code = code
        self.brokerCode = brokerCode
        self.messageContains = messageContains
        self.retryable = retryable
        self.retryAfter = retryAfter
        self.details = details
    }
}

/// How the provider side (a running sandbox) replays the case.
public struct ContractProviderSpec: Codable, Sendable, Hashable {
    /// Which credentials the provider side sends with the case's requests.
    public enum Auth: String, Codable, Sendable, Hashable {
        /// The target's own credentials (the default).
        case valid
        /// The target's header names with wrong values: for 401 cases.
        case invalid
        /// No credentials at all.
        case none
    }

    /// Why the sandbox cannot replay this case (a 429 that needs fault injection, say); the case is reported as skipped.
    public var skip: String?
    /// The credentials to send; ``Auth/valid`` when absent.
    public var auth: Auth?
    /// Requests sent first, to create the state the case needs; each may capture values from its response.
    public var setup: [ProviderStep]?
    /// Literal text in the recorded requests (path, query values, body strings) → a template with `{{variables}}`,
    /// applied before a request is sent. Variables come from `setup` captures; `{{unique}}` is a fresh UUID per run.
    public var replace: [String: String]?
    /// Which exchanges to replay, by index; all of them when absent.
    public var exchanges: [Int]?
    /// Response keys the sandbox may leave out (fields of one live capture that the documentation does not promise).
    public var optionalKeys: [String]?
    /// Response keys whose value may be a number in the recording and a string in the sandbox, or the reverse:
    /// fixtures that wrote decimals as numbers where the live API sends strings.
    public var looseKinds: [String]?

    /// Makes a provider spec for a case built in code; every field is optional.
    public init(
        skip: String? = nil,
        auth: Auth? = nil,
        setup: [ProviderStep]? = nil,
        replace: [String: String]? = nil,
        exchanges: [Int]? = nil,
        optionalKeys: [String]? = nil,
        looseKinds: [String]? = nil
    ) {
        self.skip = skip
        self.auth = auth
        self.setup = setup
        self.replace = replace
        self.exchanges = exchanges
        self.optionalKeys = optionalKeys
        self.looseKinds = looseKinds
    }
}

/// A request the provider side sends before replaying a case.
public struct ProviderStep: Codable, Sendable, Hashable {
    /// The request to send; its strings may hold `{{variables}}`.
    public var request: RecordedRequest
    /// Relative to the target's base URL unless absolute here.
    public var baseURL: String?
    /// The status the step must get; any 2xx when absent.
    public var expectStatus: Int?
    /// Variable name → dot path in the JSON response (`id`, `0.id`).
    public var capture: [String: String]?

    /// Makes a setup step for a case built in code.
    public init(request: RecordedRequest, baseURL: String? = nil, expectStatus: Int? = nil, capture: [String: String]? = nil) {
        self.request = request
        self.baseURL = baseURL
        self.expectStatus = expectStatus
        self.capture = capture
    }
}

/// The verdict on one case, on one side.
public struct ContractResult: Sendable, Hashable, CustomStringConvertible {
    /// Which side of the contract a result is about: the adapter against recorded answers (consumer), or a sandbox against
    /// recorded requests (provider).
    public enum Side: String, Sendable, Hashable { case consumer, provider }
    /// The verdict; a failure or skip carries its reason.
    public enum Outcome: Sendable, Hashable {
        case passed
        case failed(String)
        case skipped(String)
    }

    /// The case's label (see ``ContractCase/label``).
    public var label: String
    /// The file the case was loaded from, when it was loaded from one.
    public var source: String?
    /// The side the case was checked on.
    public var side: Side
    /// Whether the case passed, failed or was skipped, and why.
    public var outcome: Outcome
    /// Observations that do not fail the case (a provider comparison that was vacuous, say).
    public var notes: [String]

    /// Makes a verdict; runners build these, tests read them.
    public init(label: String, source: String?, side: Side, outcome: Outcome, notes: [String] = []) {
        self.label = label
        self.source = source
        self.side = side
        self.outcome = outcome
        self.notes = notes
    }

    /// True when the case passed.
    public var passed: Bool { if case .passed = outcome { true } else { false } }
    /// True when the case failed (a skip is neither passed nor failed).
    public var failed: Bool { if case .failed = outcome { true } else { false } }

    /// One line: `PASS consumer alpaca/positions: … (Contracts/alpaca/positions.json)`.
    public var description: String {
        let file = source.map { " (\($0))" } ?? ""
        switch outcome {
        case .passed: return "PASS \(side.rawValue) \(label)\(file)"
        case .failed(let reason): return "FAIL \(side.rawValue) \(label)\(file): \(reason)"
        case .skipped(let reason): return "SKIP \(side.rawValue) \(label)\(file): \(reason)"
        }
    }
}
