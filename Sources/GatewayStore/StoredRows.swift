package import Foundation
package import GatewayCore
package import GatewayModel

// Every model the store keeps, read from a row of either backend: the column names, the stored encodings (JSON
// columns, enums as their raw values, decimals as text, dates as milliseconds) and the errors for unreadable values
// are written here once.

// MARK: Tenants and keys

extension Tenant {
    package init(row: some StoreRow) throws {
        self.init(
            id: try row.string("id"),
            name: try row.string("name"),
            createdAt: try row.date("created_at"),
            readMaxAgeMs: try row.optionalInt64("read_max_age_ms").map(Int.init),
            disabledAt: try row.optionalDate("disabled_at")
        )
    }
}

extension APIKeyInfo {
    package init(row: some StoreRow) throws {
        self.init(
            id: try row.string("id"),
            tenantId: try row.string("tenant_id"),
            label: try row.string("label"),
            scopes: StoreRules.scopeNames(try row.string("scopes")),
            userId: try row.optionalString("user_id"),
            createdAt: try row.date("created_at"),
            revokedAt: try row.optionalDate("revoked_at")
        )
    }
}

// MARK: Users

extension User {
    package init(row: some StoreRow) throws {
        self.init(
            id: try row.string("id"),
            tenantId: try row.string("tenant_id"),
            externalId: try row.optionalString("external_id"),
            email: try row.optionalString("email"),
            displayName: try row.optionalString("display_name"),
            createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at")
        )
    }
}

// MARK: Devices and sessions

extension Device {
    package init(row: some StoreRow) throws {
        self.init(
            id: try row.string("id"),
            tenantId: try row.string("tenant_id"),
            userId: try row.string("user_id"),
            name: try row.string("name"),
            type: try row.string("type"),
            model: try row.optionalString("model"),
            os: try row.optionalString("os"),
            appVersion: try row.optionalString("app_version"),
            fingerprint: try row.optionalString("fingerprint"),
            trusted: try row.bool("trusted"),
            createdAt: try row.date("created_at"),
            lastSeenAt: try row.date("last_seen_at"),
            pushToken: try PushToken(row: row)
        )
    }
}

extension PushToken {
    /// The device row's push token, `nil` when it has none. A platform this gateway does not know (a newer one's)
    /// reads as no token rather than failing the device.
    package init?(row: some StoreRow) throws {
        guard let token = try row.optionalString("push_token"),
            let platform = PushPlatform(rawValue: try row.optionalString("push_platform") ?? ""),
            let registered = try row.optionalDate("push_registered_at")
        else { return nil }
        self.init(
            token: token,
            platform: platform,
            active: try row.optionalBool("push_active") ?? false,
            registeredAt: registered,
            deactivatedAt: try row.optionalDate("push_deactivated_at"),
            deactivatedReason: try row.optionalString("push_deactivated_reason")
        )
    }
}

extension SessionRecord {
    package init(row: some StoreRow) throws {
        self.init(
            id: try row.string("id"),
            tenantId: try row.string("tenant_id"),
            userId: try row.string("user_id"),
            deviceId: try row.string("device_id"),
            createdAt: try row.date("created_at"),
            refreshedAt: try row.date("refreshed_at"),
            expiresAt: try row.date("expires_at"),
            revokedAt: try row.optionalDate("revoked_at"),
            revokedReason: try row.optionalString("revoked_reason")
        )
    }
}

// MARK: The audit log

extension AuditEvent {
    package init(row: some StoreRow) throws {
        let id = try row.string("id")
        guard let outcome = AuditRecord.Outcome(rawValue: try row.string("outcome")) else {
            throw GatewayError(.internalError, "audit event \(id) has an unknown stored outcome")
        }
        self.init(
            id: id,
            tenantId: try row.string("tenant_id"),
            at: try row.date("at"),
            actor: try row.string("actor"),
            action: try row.string("action"),
            target: try row.optionalString("target"),
            outcome: outcome,
            detail: try StoreRules.decodeJSON([String: String].self, try row.string("detail"), column: "detail")
        )
    }
}

// MARK: Connections

extension ConnectionDescriptor {
    package init(row: some StoreRow) throws {
        let id = try row.string("id")
        guard let status = ConnectionStatus(rawValue: try row.string("status")) else {
            throw GatewayError(.internalError, "connection \(id) has an unknown stored status")
        }
        let detail = try row.optionalString("status_detail")
        self.init(
            id: id,
            tenantId: try row.string("tenant_id"),
            userId: try row.optionalString("user_id"),
            broker: BrokerKind(try row.string("broker")),
            displayName: try row.string("display_name"),
            baseURL: try row.string("base_url"),
            settings: try StoreRules.decodeJSON([String: String].self, try row.string("settings"), column: "settings"),
            status: status,
            statusDetail: try detail.map { try StoreRules.decodeJSON([String: String].self, $0, column: "status_detail") },
            createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at")
        )
    }
}

// MARK: Watchlists and goals

extension Watchlist {
    package init(row: some StoreRow) throws {
        self.init(
            id: try row.string("id"),
            name: try row.string("name"),
            instruments: try StoreRules.decodeJSON([Instrument].self, try row.string("instruments"), column: "instruments"),
            connectionId: nil,
            createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at")
        )
    }
}

extension Goal {
    package init(row: some StoreRow) throws {
        self.init(
            id: try row.string("id"),
            name: try row.string("name"),
            targetValue: try StoreRules.storedDecimal(try row.string("target_value"), column: "target_value"),
            currency: try row.string("currency"),
            allocations: try StoreRules.decodeJSON([Goal.Allocation].self, try row.string("allocations"), column: "allocations"),
            createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at")
        )
    }
}

// MARK: Alerts

extension Alert {
    package init(row: some StoreRow) throws {
        self.init(
            id: try row.string("id"),
            name: try row.optionalString("name"),
            rule: try StoreRules.decodeJSON(AlertRule.self, try row.string("rule"), column: "rule"),
            channels: try StoreRules.decodeJSON(AlertChannels.self, try row.string("channels"), column: "channels"),
            enabled: try row.bool("enabled"),
            rearm: try StoreRules.storedEnum(AlertRearm.self, try row.string("rearm"), column: "rearm"),
            armed: try row.bool("armed"),
            createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"),
            lastFiredAt: try row.optionalDate("last_fired_at")
        )
    }
}

extension AlertDeliveryAttempt {
    package init(row: some StoreRow) throws {
        self.init(
            id: try row.string("id"),
            alertId: try row.string("alert_id"),
            eventId: try row.string("event_id"),
            channel: try StoreRules.storedEnum(AlertChannel.self, try row.string("channel"), column: "channel"),
            attempt: try row.int("attempt"),
            at: try row.date("at"),
            outcome: try StoreRules.storedEnum(AlertDeliveryOutcome.self, try row.string("outcome"), column: "outcome"),
            httpStatus: try row.optionalInt64("http_status").map { Int($0) },
            error: try row.optionalString("error"),
            test: try row.bool("test"),
            deviceId: try row.optionalString("device_id")
        )
    }
}

// MARK: The order journal

extension JournaledOrder {
    package init(row: some StoreRow) throws {
        let id = try row.string("id")
        self = try JournalJSON.readingRow(of: id) { try JournaledOrder(row: row, id: id) }
    }

    private init(row: some StoreRow, id: String) throws {
        guard let state = JournalState(rawValue: try row.string("state")) else {
            throw GatewayError(.internalError, "journaled order \(id) has an unknown stored state")
        }
        self.init(
            id: id,
            tenantId: try row.string("tenant_id"),
            connectionId: try row.string("connection_id"),
            accountId: try row.string("account_id"),
            clientOrderId: try row.string("client_order_id"),
            request: try JournalJSON.decode(OrderRequest.self, try row.string("request"), column: "request", orderId: id),
            state: state,
            brokerOrderId: try row.optionalString("broker_order_id"),
            order: try row.optionalString("order").map { try JournalJSON.decode(Order.self, $0, column: "order", orderId: id) },
            error: try row.optionalString("error_code").map(GatewayError.Code.init(rawValue:)),
            errorMessage: try row.optionalString("error_message"),
            createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"),
            sentAt: try row.date("sent_at"),
            userId: try row.optionalString("user_id"),
            broker: try row.optionalString("venue_broker").map { BrokerKind($0) }
        )
    }
}

extension JournaledOrderReference {
    package init(row: some StoreRow) throws {
        let id = try row.string("id")
        guard let state = JournalState(rawValue: try row.string("state")) else {
            throw GatewayError(.internalError, "journaled order \(id) has an unknown stored state")
        }
        self.init(
            id: id,
            tenantId: try row.string("tenant_id"),
            connectionId: try row.string("connection_id"),
            state: state,
            createdAt: try row.date("created_at"),
            sentAt: try row.date("sent_at")
        )
    }
}

extension OrderEvent {
    package init(row: some StoreRow, orderId: String) throws {
        let sequence = try row.int("sequence")
        guard let state = JournalState(rawValue: try row.string("state")) else {
            throw GatewayError(.internalError, "event \(sequence) of order \(orderId) has an unknown stored state")
        }
        let status = try row.optionalString("status").map { text in
            guard let status = OrderStatus(rawValue: text) else {
                throw GatewayError(.internalError, "event \(sequence) of order \(orderId) has an unknown stored status")
            }
            return status
        }
        guard let kind = OrderEvent.Kind(rawValue: try row.string("kind")) else {
            throw GatewayError(.internalError, "event \(sequence) of order \(orderId) has an unknown stored kind")
        }
        self.init(
            kind: kind,
            state: state,
            status: status,
            brokerOrderId: try row.optionalString("broker_order_id"),
            detail: try row.optionalString("detail"),
            at: try row.date("at"),
            sequence: sequence
        )
    }
}
