import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewayStore
import OpenAPIRuntime
import Prometheus

/// The unified API: the generated `APIProtocol`, one extension per resource. Handlers only decode what the
/// generated types do not (query lists, bounds), call the application, and wrap its answers; the rules live in
/// `GatewayApp`.
struct APIHandlers: APIProtocol {
    // One service per resource: each handler extension uses exactly one of these.
    let connections: ConnectionService
    let transfer: TransferService
    let reads: BrokerReadService
    let watchlists: WatchlistService
    let orders: OrderService
    let orderHistory: OrderHistoryService
    let portfolio: PortfolioService
    let tenancy: TenancyService
    let sessions: SessionService
    let alerts: AlertService
    let streams: StreamService
    let status: StatusService
    let document: OpenAPIDocument
    /// How browsers reach this gateway (`--public-url`), for the links it hands out.
    let publicURL: String
    /// Where `/metrics` reads from: the registry behind the gateway's metrics factory, when it is Prometheus's.
    let metricsRegistry: PrometheusCollectorRegistry?

    func health(_ input: Operations.Health.Input) async throws -> Operations.Health.Output {
        .ok(.init(body: .json(.init(status: "ok"))))
    }

    func openapi(_ input: Operations.Openapi.Input) async throws -> Operations.Openapi.Output {
        .ok(.init(body: .json(document.object)))
    }

    func metrics(_ input: Operations.Metrics.Input) async throws -> Operations.Metrics.Output {
        guard let registry = metricsRegistry else {
            throw GatewayError(.notFound, "this gateway collects no metrics", retryable: false)
        }
        return .ok(.init(body: .plainText(HTTPBody(registry.emitToBuffer()))))
    }
}

/// Text placed into HTML, escaped.
enum HTMLText {
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

/// Query parameters beyond what their schema types check: the same bounds the document states.
enum QueryValue {
    static func string(_ value: String?, _ name: String, maxLength: Int = 128) throws -> String? {
        guard let value else { return nil }
        if value.isEmpty { throw GatewayError.invalid(name, "must not be empty") }
        if value.count > maxLength { throw GatewayError.invalid(name, "must be at most \(maxLength) characters") }
        return value
    }

    /// A broker's identifier (an order id): 1 to 128 of `A-Z a-z 0-9 . _ : -`, as the document's pattern says.
    static func brokerIdentifier(_ value: String?, _ name: String) throws -> String? {
        guard let value = try string(value, name) else { return nil }
        let allowed = value.unicodeScalars.allSatisfy {
            ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || ".:_-".unicodeScalars.contains($0)
        }
        guard allowed else { throw GatewayError.invalid(name, "may hold only letters, digits and . _ : -") }
        return value
    }

    static func int(_ value: Int?, _ name: String, range: ClosedRange<Int>) throws -> Int? {
        guard let value else { return nil }
        guard range.contains(value) else {
            throw GatewayError.invalid(name, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// A comma-separated list of symbols, exactly as the document's pattern says: no spaces, no empty entries, each
    /// 1 to 32 of `A-Z a-z 0-9 . / : _ -`, at most `maxCount`.
    static func symbols(_ value: String?, _ name: String, maxCount: Int = 50) throws -> [String]? {
        guard let text = try string(value, name, maxLength: 2048) else { return nil }
        let symbols = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        if symbols.count > maxCount { throw GatewayError.invalid(name, "must name at most \(maxCount) symbols") }
        if let bad = symbols.first(where: { !isSymbol($0) }) {
            let shown = bad.isEmpty ? "an empty symbol" : "an invalid symbol '\(bad.prefix(32))'"
            throw GatewayError.invalid(
                name,
                "has \(shown): each symbol is 1 to 32 of A-Z a-z 0-9 . / : _ -, separated by commas without spaces"
            )
        }
        return symbols
    }

    static func isSymbol(_ text: String) -> Bool {
        (1...32).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || Array("./:_-".utf8).contains(byte)
            }
    }

    /// Which connections a read goes to.
    static func selection(
        connection: String?,
        broker: BrokerKind?,
        account: String?,
        maxAgeMs: Int? = nil
    ) throws -> Gateway.Selection {
        Gateway.Selection(
            connectionId: try string(connection, "connection"),
            // Well formed by its decoding (`BrokerKind(from:)`): a malformed kind never gets here.
            broker: broker,
            accountId: try string(account, "account"),
            maxAge: try int(maxAgeMs, "maxAgeMs", range: 0...Gateway.maxReadAgeMs).map { .milliseconds($0) }
        )
    }
}
