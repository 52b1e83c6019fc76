import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
import Logging

/// A user as a tenant admin creates or changes it (`POST /v1/users`, `PATCH /v1/users/{id}`): each field absent
/// (kept), a value, or, when changing, `null` (cleared).
public struct UserInput: Sendable, Hashable, Codable {
    /// One field of the input: not sent (kept), `null` (cleared), or a value.
    public enum Field: Sendable, Hashable {
        case absent
        case null
        case value(String)
    }

    /// The tenant's own id for the user (its identity provider's), unique within the tenant.
    public var externalId: Field
    /// The user's email, unique within the tenant; what a login names.
    public var email: Field
    /// The name shown for the user.
    public var displayName: Field

    /// An input; every field absent unless given.
    public init(externalId: Field = .absent, email: Field = .absent, displayName: Field = .absent) {
        self.externalId = externalId
        self.email = email
        self.displayName = displayName
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case externalId, email, displayName
    }

    /// Unknown fields are refused; a field's absence and its `null` are told apart (kept, cleared).
    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownKeysIn: decoder, known: CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func field(_ key: CodingKeys) throws -> Field {
            guard container.contains(key) else { return .absent }
            if try container.decodeNil(forKey: key) { return .null }
            return .value(try container.decode(String.self, forKey: key))
        }
        externalId = try field(.externalId)
        email = try field(.email)
        displayName = try field(.displayName)
    }

    /// Writes the fields that are not absent, `null` for cleared ones.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        for (key, field) in [(CodingKeys.externalId, externalId), (.email, email), (.displayName, displayName)] {
            switch field {
            case .absent: continue
            case .null: try container.encodeNil(forKey: key)
            case .value(let text): try container.encode(text, forKey: key)
            }
        }
    }

    static let externalIdMaxLength = 128
    static let emailMaxLength = 254
    static let displayNameMaxLength = 100

    /// Each field checked, as a change: the email lower-cased, every problem named.
    func checked() throws -> UserUpdate {
        var problems: [FieldProblem] = []
        func change(_ field: Field, _ name: String, _ check: (String) -> String?) -> UserUpdate.Change {
            switch field {
            case .absent: return .keep
            case .null: return .clear
            case .value(let text):
                if let problem = check(text) {
                    problems.append(FieldProblem(field: name, problem: problem))
                    return .keep
                }
                return .set(name == "email" ? text.lowercased() : text)
            }
        }
        let update = UserUpdate(
            externalId: change(externalId, "externalId") { text in
                (1...Self.externalIdMaxLength).contains(text.count) && text.allSatisfy({ !$0.isWhitespace && !$0.isNewline })
                    ? nil : "must be 1 to \(Self.externalIdMaxLength) characters without spaces"
            },
            email: change(email, "email") { text in
                let parts = text.split(separator: "@", omittingEmptySubsequences: false)
                let valid =
                    text.count <= Self.emailMaxLength && parts.count == 2 && !parts[0].isEmpty
                    && parts[1].contains(".") && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
                    && text.allSatisfy({ !$0.isWhitespace && !$0.isNewline })
                return valid ? nil : "must be an email address (name@domain), at most \(Self.emailMaxLength) characters"
            },
            displayName: change(displayName, "displayName") { text in
                (1...Self.displayNameMaxLength).contains(text.count) && !text.contains(where: \.isNewline)
                    ? nil : "must be 1 to \(Self.displayNameMaxLength) characters on one line"
            }
        )
        if !problems.isEmpty { throw GatewayError.unprocessable(problems) }
        return update
    }
}

/// A tenant's users, as its admins manage them (`/v1/users`) and the operator's first run needs them.
extension TenancyService {
    /// The most users one page lists.
    public static let userPageLimit = 200

    /// Creates a user of the tenant (checked, audited as `actor`).
    public func createUser(tenant: Tenant, actor: String, _ input: UserInput) async throws -> User {
        let checked = try input.checked()
        let user = NewUser(externalId: checked.externalId.value, email: checked.email.value, displayName: checked.displayName.value)
        return try await store.createUser(
            tenantId: tenant.id,
            user,
            audit: AuditRecord(
                tenantId: tenant.id,
                actor: actor,
                action: "user.created",
                detail: user.externalId.map { ["externalId": $0] } ?? [:]
            )
        )
    }

    /// A page of the tenant's users after the id `after`, optionally only the one with `externalId` or `email`.
    public func users(tenant: Tenant, after: String?, limit: Int, externalId: String?, email: String?) async throws -> [User] {
        guard (1...Self.userPageLimit).contains(limit) else {
            throw GatewayError.invalid("limit", "must be between 1 and \(Self.userPageLimit)")
        }
        return try await store.users(
            tenantId: tenant.id,
            after: after,
            limit: limit,
            externalId: externalId,
            email: email?.lowercased()
        )
    }

    /// One user of the tenant.
    public func user(tenant: Tenant, id: String) async throws -> User {
        guard let user = try await store.user(tenantId: tenant.id, id: id) else {
            throw GatewayError(.notFound, "no user '\(id)'")
        }
        return user
    }

    /// Changes a user's fields as the input says (absent kept, `null` cleared).
    public func updateUser(tenant: Tenant, id: String, _ input: UserInput) async throws -> User {
        let update = try input.checked()
        guard let user = try await store.updateUser(tenantId: tenant.id, id: id, update) else {
            throw GatewayError(.notFound, "no user '\(id)'")
        }
        return user
    }

    /// Deletes a user and, at once, their connections (with their credentials) and watchlists; keys bound to them
    /// are revoked. Their journaled orders stay, readable by a tenant admin only. The adapters and sandbox accounts
    /// of their connections are let go.
    public func deleteUser(tenant: Tenant, actor: String, id: String) async throws {
        let connections = try await store.connections(tenantId: tenant.id, userId: id)
        var held: [(sandbox: SandboxAccounts.Sandbox, credentials: BrokerCredentials)] = []
        for connection in connections {
            do {
                if let account = try await sandboxes.provisionedSandboxAccount(tenant: tenant, connection) { held.append(account) }
            } catch {
                logger.warning(
                    "a deleted user's sandbox account is not released",
                    metadata: ["connection": .string(connection.id), "error": .string("\(error)")]
                )
            }
        }
        let deleted = try await store.deleteUser(
            tenantId: tenant.id,
            id: id,
            audit: AuditRecord(
                tenantId: tenant.id,
                actor: actor,
                action: "user.deleted",
                target: id,
                detail: ["connectionsRemoved": String(connections.count)]
            )
        )
        guard deleted else { throw GatewayError(.notFound, "no user '\(id)'") }
        for connection in connections {
            registry.forget(connectionId: connection.id)
            directory.invalidateReads(connection: connection.id)
        }
        for account in held { account.sandbox.release(account.credentials) }
    }
}
