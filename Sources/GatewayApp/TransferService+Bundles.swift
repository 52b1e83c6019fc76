public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore

/// An export of a tenant's connections for another gateway: sealed (HPKE) to the receiving gateway's public key, so
/// only that gateway opens it; nothing that opens it is ever returned beside it.
public struct ConnectionExport: Codable, Sendable, Hashable {
    /// base64 of the sealed bundle: the HPKE encapsulated key (32 bytes) followed by the ciphertext.
    public var bundle: String
    /// The receiving gateway's public key the bundle is sealed to (as the request named it).
    public var recipientKey: String
    /// The HPKE suite the bundle is sealed with, so the receiver knows it can open it.
    public var suite: String
    /// How many connections the bundle holds.
    public var count: Int
}

/// This gateway's public key, which another gateway seals an export to.
public struct ImportKey: Codable, Sendable, Hashable {
    /// base64 of the 32-byte X25519 public key.
    public var publicKey: String
    /// The HPKE suite bundles for this key must be sealed with.
    public var suite: String
}

/// What importing one connection of a bundle came to.
public struct ImportReport: Codable, Sendable, Hashable {
    /// What happened to the connection.
    public enum Outcome: String, Codable, Sendable, Hashable {
        /// Checked and proven like `POST /v1/connections`, and saved.
        case linked
        /// The broker links through its login page: the connection waits for the user at `popupURL`.
        case pendingLink = "pending_link"
        /// Refused, with the reason `POST /v1/connections` would give; nothing was saved.
        case refused
    }

    /// The error a refused connection got, as the API's error body says it.
    public struct Refusal: Codable, Sendable, Hashable {
        /// The error code.
        public var code: GatewayError.Code
        /// What was wrong, for people.
        public var message: String
        /// The fields that were wrong, each with its problem.
        public var details: [FieldProblem]
    }

    /// Its position in the bundle, from 0.
    public var index: Int
    /// The broker kind the bundle names (perhaps one this gateway does not know).
    public var broker: String
    /// The connection's display name as the bundle carries it.
    public var displayName: String?
    /// Linked, waiting for the user's login, or refused.
    public var outcome: Outcome
    /// The connection made, when one was (linked or pending).
    public var connection: ConnectionDescriptor?
    /// Where the user logs in, for a pending link.
    public var popupURL: String?
    /// Why it was refused.
    public var error: Refusal?
}

/// One connection in a bundle. Everything but the broker may be missing; each is then what `POST /v1/connections`
/// makes of a request without it.
struct ExportedConnection: Codable {
    var broker: String
    var displayName: String?
    var baseURL: String?
    var settings: [String: String]?
    var credentials: [String: String]?
}

/// What a bundle's plaintext holds.
struct ExportedBundle: Codable {
    static let currentVersion = 2
    var version: Int
    var connections: [ExportedConnection]
}

/// Moving a tenant's links between gateways ("manual sync") without the users linking again.
extension TransferService {
    /// The most connections one bundle may carry: each costs a proof at its broker on import.
    public static let maximumImportCount = 50

    /// The one place export is authorized. Today that is the operator's setting (off by default). API-key scopes
    /// (issue #13) add the caller's `admin` scope check here, and nowhere else.
    func authorizeExport(tenant: Tenant) throws {
        guard linking.exportEnabled else {
            throw GatewayError(
                .forbidden,
                "export is turned off on this gateway: an export carries every broker secret of the tenant, so the "
                    + "operator must enable it (connections.export, --connections-export on)",
                retryable: false,
                details: [FieldProblem(field: "export", problem: "is disabled by the operator")]
            )
        }
    }

    /// This gateway's public key for imports.
    public func importKey() -> ImportKey {
        ImportKey(publicKey: linking.transferKey.publicKeyBase64, suite: TransferKey.suiteName)
    }

    /// Seals the tenant's linked connections (pending links are left out) to the receiving gateway's public key.
    public func exportConnections(owner: Owner, recipientKey: String) async throws -> ConnectionExport {
        let tenant = owner.tenant
        try authorizeExport(tenant: tenant)
        guard let recipient = TransferKey.recipient(base64: recipientKey) else {
            throw GatewayError.unprocessable([
                FieldProblem(
                    field: "recipientKey",
                    problem: "must be the receiving gateway's public key (base64 of 32 bytes, from its GET /v1/connections/import-key)"
                )
            ])
        }
        var exported: [ExportedConnection] = []
        for connection in try await store.connections(tenantId: tenant.id, userId: owner.userId)
        where connection.status != .pendingLink {
            var credentials = try await store.credentials(tenantId: tenant.id, connectionId: connection.id).values
            credentials[ConnectionService.legacyLinkStateKey] = nil
            exported.append(
                ExportedConnection(
                    broker: connection.broker.rawValue,
                    displayName: connection.displayName,
                    baseURL: connection.baseURL,
                    settings: connection.settings,
                    credentials: credentials
                )
            )
        }
        let plaintext = try JSONEncoder().encode(ExportedBundle(version: ExportedBundle.currentVersion, connections: exported))
        let sealed: Data
        do {
            sealed = try TransferKey.seal(plaintext, to: recipient)
        } catch {
            throw GatewayError.unprocessable([FieldProblem(field: "recipientKey", problem: "cannot be sealed to")])
        }
        try await audit(owner, "connections.exported", target: nil, detail: ["count": String(exported.count)])
        return ConnectionExport(
            bundle: sealed.base64EncodedString(),
            recipientKey: Data(recipient).base64EncodedString(),
            suite: TransferKey.suiteName,
            count: exported.count
        )
    }

    /// Opens a bundle sealed to this gateway and links each connection exactly as `POST /v1/connections` does (its
    /// checks, its credential proof, a fresh account for a built-in sandbox), never from the bundle's say-so: no
    /// link state is carried over and nothing becomes `active` without the proof. Reports each connection.
    public func importConnections(owner: Owner, bundle: String, callbackBase: String) async throws -> [ImportReport] {
        let key = linking.transferKey
        guard let sealed = Data(base64Encoded: bundle) else {
            throw GatewayError.unprocessable([FieldProblem(field: "bundle", problem: "must be the base64 an export returned")])
        }
        guard let plaintext = key.open(sealed) else {
            throw GatewayError.unprocessable([
                FieldProblem(
                    field: "bundle",
                    problem: "is not sealed to this gateway's import key (GET /v1/connections/import-key): export it again naming that key"
                )
            ])
        }
        let contents: ExportedBundle
        do {
            contents = try JSONDecoder().decode(ExportedBundle.self, from: plaintext)
        } catch {
            throw GatewayError.unprocessable([FieldProblem(field: "bundle", problem: "does not hold connections this gateway can read")])
        }
        guard contents.version == ExportedBundle.currentVersion else {
            throw GatewayError.unprocessable([
                FieldProblem(field: "bundle", problem: "is of version \(contents.version); this gateway reads \(ExportedBundle.currentVersion)")
            ])
        }
        guard contents.connections.count <= Self.maximumImportCount else {
            throw GatewayError.unprocessable([
                FieldProblem(field: "bundle", problem: "holds \(contents.connections.count) connections; at most \(Self.maximumImportCount) at once")
            ])
        }
        var reports: [ImportReport] = []
        for (index, entry) in contents.connections.enumerated() {
            var credentials = entry.credentials
            credentials?[ConnectionService.legacyLinkStateKey] = nil
            let request = LinkRequest(
                broker: BrokerKind(entry.broker),
                displayName: entry.displayName,
                baseURL: entry.baseURL,
                settings: entry.settings,
                credentials: credentials
            )
            var report = ImportReport(index: index, broker: entry.broker, displayName: entry.displayName, outcome: .refused)
            do {
                switch try await connections.link(owner: owner, request, callbackBase: callbackBase) {
                case .linked(let connection):
                    report.outcome = .linked
                    report.connection = connection
                case .pending(let pending):
                    report.outcome = .pendingLink
                    report.connection = pending.connection
                    report.popupURL = pending.popupURL
                }
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                let refusal = BrokerRouter.gatewayErrorForReport(error)
                report.error = ImportReport.Refusal(code: refusal.code, message: refusal.message, details: refusal.details)
            }
            reports.append(report)
        }
        return reports
    }
}
