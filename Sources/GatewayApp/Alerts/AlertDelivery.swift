public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
import HTTPTypes
public import Logging

/// Delivers an alert's notification on its webhook and APNs channels, and writes every attempt to the alert's
/// delivery log.
///
/// A webhook is a JSON POST of the notification, signed (`WebhookSignature`), with `BrokerGateway-Event-Id`; it
/// leaves through the alerts' transport, so the egress policy, the timeout and the answer-size cap apply to the
/// user's URL as to any broker's. A network failure, a 5xx or a 429 is tried again after an exponential backoff with
/// jitter (a `Retry-After` longer than the backoff is honoured, up to `maxDelay`), up to `maxAttempts`; any other 4xx,
/// an egress refusal or an unusable URL is final. APNs pushes are tried the same way; a 410 (`Unregistered`) or a 400
/// `BadDeviceToken` drops the device token from the alert.
public struct AlertDelivery: Sendable {
    let store: any GatewayStore
    let settings: AlertSettings
    let apns: APNsProvider?
    let logger: Logger
    let now: @Sendable () -> Date
    let sleep: @Sendable (Duration) async throws -> Void
    /// Where each attempt is counted (`brokergateway_alert_deliveries_total`); the gateway's own.
    var metrics: ApplicationMetrics?

    public init(
        store: any GatewayStore, settings: AlertSettings, logger: Logger, now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.store = store
        self.settings = settings
        self.apns = settings.apns.map(APNsProvider.init(settings:))
        self.logger = logger
        self.now = now
        self.sleep = sleep
    }

    /// The body a webhook receives: the notification as the API writes JSON (sorted keys, RFC 3339 dates).
    public static func body(_ notification: AlertNotification) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        return try encoder.encode(notification)
    }

    /// Every channel of the alert but the stream, one after the other; the attempts in the order they were made.
    /// Returns when each channel has delivered or given up (or the task is cancelled).
    public func deliver(
        _ notification: AlertNotification, alert: Alert, tenantId: String, userId: String, test: Bool = false
    ) async -> [AlertDeliveryAttempt] {
        var attempts: [AlertDeliveryAttempt] = []
        if let webhook = alert.channels.webhook {
            attempts += await deliverWebhook(notification, url: webhook.url, alert: alert, tenantId: tenantId, userId: userId, test: test)
        }
        if let device = alert.channels.apns, let apns {
            attempts += await deliverPush(notification, deviceToken: device.deviceToken, apns: apns, alert: alert, tenantId: tenantId, userId: userId, test: test)
        }
        return attempts
    }

    /// What one attempt came to.
    struct AttemptResult {
        var status: Int?
        var error: String?
        var delivered: Bool
        var retryable: Bool
        var retryAfter: Double?
    }

    func deliverWebhook(
        _ notification: AlertNotification, url: String, alert: Alert, tenantId: String, userId: String, test: Bool
    ) async -> [AlertDeliveryAttempt] {
        let secret: String
        let body: Data
        do {
            guard let found = try await store.alertWebhookSecret(tenantId: tenantId, userId: userId, id: alert.id) else { return [] }
            secret = found
            body = try Self.body(notification)
        } catch {
            logger.error("an alert's webhook could not be prepared", metadata: ["alert": "\(alert.id)", "error": "\(Self.describe(error))"])
            return []
        }
        return await attempting(.webhook, notification, alert: alert, tenantId: tenantId, userId: userId, test: test) { attempt in
            let timestamp = Int64(now().timeIntervalSince1970.rounded(.down))
            var fields = HTTPFields()
            fields.set("content-type", "application/json")
            fields.set("user-agent", "BrokerGateway-Webhook/1")
            fields.set(WebhookSignature.eventIdHeader, notification.eventId)
            fields.set(WebhookSignature.signatureHeader, WebhookSignature.header(body: body, secret: secret, timestamp: timestamp))
            fields.set("BrokerGateway-Delivery-Attempt", String(attempt))
            let request = BrokerRequest(
                method: .post, url: url, headers: fields, body: body, timeout: settings.timeout,
                maxResponseBytes: settings.maxResponseBytes, loggedPath: "webhook", idempotent: false)
            return await send(request)
        }
    }

    func deliverPush(
        _ notification: AlertNotification, deviceToken: String, apns: APNsProvider, alert: Alert, tenantId: String,
        userId: String, test: Bool
    ) async -> [AlertDeliveryAttempt] {
        let store = self.store
        let logger = self.logger
        return await attempting(.apns, notification, alert: alert, tenantId: tenantId, userId: userId, test: test) { attempt in
            let request: BrokerRequest
            do {
                let token = try await apns.token(now: now())
                request = try apns.request(
                    notification, deviceToken: deviceToken, providerToken: token, timeout: settings.timeout,
                    maxResponseBytes: settings.maxResponseBytes)
            } catch {
                return AttemptResult(status: nil, error: "the APNs provider token could not be made", delivered: false, retryable: false)
            }
            var result = await send(request, readsAPNsReason: true)
            guard let status = result.status, !result.delivered else { return result }
            let reason = result.error
            if status == 410 || (status == 400 && reason == "BadDeviceToken") {
                // The device is gone: the token is dropped so no later firing tries it.
                do {
                    _ = try await store.dropAlertDeviceToken(tenantId: tenantId, userId: userId, id: alert.id, deviceToken: deviceToken)
                    logger.notice("APNs says an alert's device token is gone: dropped", metadata: ["alert": "\(alert.id)", "status": "\(status)"])
                } catch {
                    logger.error("an alert's dead device token could not be dropped", metadata: ["alert": "\(alert.id)"])
                }
                result.error = "\(reason ?? "Unregistered"): the device token was dropped from the alert"
                result.retryable = false
            } else if status == 403, reason == "ExpiredProviderToken" {
                _ = try? await apns.token(now: now(), refresh: true)
                result.retryable = true
            }
            return result
        }
    }

    /// Sends one request and judges the answer. An APNs answer's error is its `reason`; a webhook receiver's body is
    /// never read into the log.
    func send(_ request: BrokerRequest, readsAPNsReason: Bool = false) async -> AttemptResult {
        do {
            let response = try await settings.transport.send(request)
            let status = response.status
            if (200..<300).contains(status) { return AttemptResult(status: status, error: nil, delivered: true, retryable: false) }
            let retryable = status >= 500 || status == 429 || status == 408
            let reason = readsAPNsReason ? APNsProvider.reason(response.body) : nil
            return AttemptResult(
                status: status, error: reason ?? "the receiver answered \(status)", delivered: false, retryable: retryable,
                retryAfter: BrokerNumber.retryAfter(response.headers, now: now()))
        } catch let error as GatewayError {
            let retryable = [.upstreamTimeout, .upstreamUnavailable].contains(error.code)
            return AttemptResult(status: nil, error: "\(error.code.rawValue): \(BrokerText.sanitized(error.message))", delivered: false, retryable: retryable)
        } catch is CancellationError {
            return AttemptResult(status: nil, error: "cancelled", delivered: false, retryable: false)
        } catch {
            return AttemptResult(status: nil, error: "the request failed (\(type(of: error)))", delivered: false, retryable: true)
        }
    }

    /// Runs `attempt` until it delivers, fails for good, or `maxAttempts` are spent, logging each attempt.
    func attempting(
        _ channel: AlertChannel, _ notification: AlertNotification, alert: Alert, tenantId: String, userId: String, test: Bool,
        _ attempt: (Int) async -> AttemptResult
    ) async -> [AlertDeliveryAttempt] {
        var made: [AlertDeliveryAttempt] = []
        for number in 1...settings.maxAttempts {
            let result = await attempt(number)
            let again = !result.delivered && result.retryable && number < settings.maxAttempts && !Task.isCancelled
            let entry = AlertDeliveryAttempt(
                id: "dlv_" + RandomIdentifier.base32(count: 20), alertId: alert.id, eventId: notification.eventId,
                channel: channel, attempt: number, at: now(),
                outcome: result.delivered ? .delivered : again ? .retrying : .failed, httpStatus: result.status,
                error: result.error, test: test)
            made.append(entry)
            metrics?.alertDelivery(channel: channel, outcome: entry.outcome)
            do {
                try await store.recordAlertDelivery(tenantId: tenantId, userId: userId, entry)
            } catch {
                logger.error("an alert delivery could not be logged", metadata: ["alert": "\(alert.id)", "error": "\(Self.describe(error))"])
            }
            logger.debug(
                "alert delivery attempt",
                metadata: [
                    "alert": "\(alert.id)", "event": "\(notification.eventId)", "channel": "\(channel.rawValue)",
                    "attempt": "\(number)", "outcome": "\(entry.outcome.rawValue)", "status": "\(result.status.map(String.init) ?? "-")",
                ])
            guard again else { break }
            do {
                try await sleep(backoff(afterAttempt: number, retryAfter: result.retryAfter))
            } catch {
                break
            }
        }
        return made
    }

    /// `baseDelay · 2^(attempt-1)` plus up to 25 % jitter, at least a receiver's `Retry-After`, at most `maxDelay`.
    func backoff(afterAttempt attempt: Int, retryAfter: Double?) -> Duration {
        let base = settings.baseDelay * (1 << min(attempt - 1, 20))
        let jitter = base * Double.random(in: 0...0.25)
        var wait = base + jitter
        if let retryAfter, retryAfter.isFinite, retryAfter > 0 {
            wait = max(wait, .milliseconds(Int64(min(retryAfter, 86_400) * 1000)))
        }
        return min(wait, settings.maxDelay)
    }

    /// An error as a log or the delivery log may show it: its code and message, never a value it might carry.
    static func describe(_ error: any Error) -> String {
        if let error = error as? GatewayError { return "\(error.code.rawValue): \(error.message)" }
        return "\(type(of: error))"
    }
}
