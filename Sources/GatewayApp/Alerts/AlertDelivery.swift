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
/// an egress refusal or an unusable URL is final. APNs pushes are tried the same way, to the token the alert names or
/// to each active push token of the user's devices (`{"devices": "all"}`); a 410 (`Unregistered`) or a 400
/// `BadDeviceToken` drops a named token from the alert, and marks a device's token inactive (kept, with the reason).
public struct AlertDelivery: Sendable {
    let store: any GatewayStore
    let settings: AlertSettings
    let apns: APNsProvider?
    let logger: Logger
    let now: @Sendable () -> Date
    let sleep: @Sendable (Duration) async throws -> Void
    /// Where each attempt is counted (`brokergateway_alert_deliveries_total`); the gateway's own.
    var metrics: ApplicationMetrics?

    /// A delivery of firings to webhooks and APNs. `now` and `sleep` are the clock and the wait between retries,
    /// which a test replaces to see the backoff without waiting for it.
    public init(
        store: any GatewayStore,
        settings: AlertSettings,
        logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() },
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
        _ notification: AlertNotification,
        alert: Alert,
        tenantId: String,
        userId: String,
        test: Bool = false
    ) async -> [AlertDeliveryAttempt] {
        var attempts: [AlertDeliveryAttempt] = []
        if let webhook = alert.channels.webhook {
            attempts += await deliverWebhook(notification, url: webhook.url, alert: alert, tenantId: tenantId, userId: userId, test: test)
        }
        if let channel = alert.channels.apns, let apns {
            if let deviceToken = channel.deviceToken {
                attempts += await deliverPush(
                    notification,
                    to: .alertToken(deviceToken),
                    apns: apns,
                    alert: alert,
                    tenantId: tenantId,
                    userId: userId,
                    test: test
                )
            } else if channel.devices == .all {
                attempts += await deliverToDevices(notification, apns: apns, alert: alert, tenantId: tenantId, userId: userId, test: test)
            }
        }
        return attempts
    }

    /// Where one push goes: the token the alert names, or one device's registered push token.
    enum PushTarget: Sendable, Hashable {
        case alertToken(String)
        case device(id: String, token: String)

        var deviceToken: String {
            switch self {
            case .alertToken(let token): token
            case .device(_, let token): token
            }
        }
    }

    /// The APNs tokens an alert targeting the user's devices reaches now: each device's active `ios` token, read when
    /// the alert fires (a device registered or removed since the alert was made counts as it is now).
    static func pushTargets(_ devices: [Device]) -> [PushTarget] {
        devices.compactMap { device in
            guard let push = device.pushToken, push.active, push.platform == .ios else { return nil }
            return .device(id: device.id, token: push.token)
        }
    }

    /// Pushes to every active push token of the user's devices at once, so that one device's retries do not hold up
    /// the others; the attempts device by device, in the order the devices were registered.
    func deliverToDevices(
        _ notification: AlertNotification,
        apns: APNsProvider,
        alert: Alert,
        tenantId: String,
        userId: String,
        test: Bool
    ) async -> [AlertDeliveryAttempt] {
        let targets = await devicePushTargets(alert: alert, tenantId: tenantId, userId: userId)
        if targets.isEmpty { return [] }
        return await withTaskGroup(of: (Int, [AlertDeliveryAttempt]).self) { group in
            for (index, target) in targets.enumerated() {
                group.addTask {
                    (index, await deliverPush(notification, to: target, apns: apns, alert: alert, tenantId: tenantId, userId: userId, test: test))
                }
            }
            var byDevice: [(Int, [AlertDeliveryAttempt])] = []
            for await result in group { byDevice.append(result) }
            return byDevice.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
    }

    /// The push tokens of the user's devices now (none, logged, when they cannot be read).
    func devicePushTargets(alert: Alert, tenantId: String, userId: String) async -> [PushTarget] {
        let targets: [PushTarget]
        do {
            targets = Self.pushTargets(try await store.devices(tenantId: tenantId, userId: userId))
        } catch {
            logger.error("an alert's devices could not be read", metadata: ["alert": "\(alert.id)", "error": "\(Self.describe(error))"])
            return []
        }
        if targets.isEmpty {
            logger.debug("an alert targets the user's devices, and none has an active push token", metadata: ["alert": "\(alert.id)"])
        }
        return targets
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
        _ notification: AlertNotification,
        url: String,
        alert: Alert,
        tenantId: String,
        userId: String,
        test: Bool
    ) async -> [AlertDeliveryAttempt] {
        guard let prepared = await prepareWebhook(notification, alert: alert, tenantId: tenantId, userId: userId) else { return [] }
        return await attempting(.webhook, notification, alert: alert, tenantId: tenantId, userId: userId, test: test) { attempt in
            await sendWebhook(prepared, notification, url: url, attempt: attempt)
        }
    }

    /// A webhook's signed body: the alert's secret and the notification's JSON.
    struct PreparedWebhook {
        var secret: String
        var body: Data
    }

    /// Reads the alert's webhook secret and encodes the body; `nil` (logged) when the alert is gone or either fails,
    /// and then nothing is sent.
    func prepareWebhook(_ notification: AlertNotification, alert: Alert, tenantId: String, userId: String) async -> PreparedWebhook? {
        do {
            guard let secret = try await store.alertWebhookSecret(tenantId: tenantId, userId: userId, id: alert.id) else { return nil }
            return PreparedWebhook(secret: secret, body: try Self.body(notification))
        } catch {
            logger.error("an alert's webhook could not be prepared", metadata: ["alert": "\(alert.id)", "error": "\(Self.describe(error))"])
            return nil
        }
    }

    /// One attempt of a webhook: signed afresh (its timestamp is the attempt's), numbered in a header.
    func sendWebhook(_ prepared: PreparedWebhook, _ notification: AlertNotification, url: String, attempt: Int) async -> AttemptResult {
        let timestamp = Int64(now().timeIntervalSince1970.rounded(.down))
        var fields = HTTPFields()
        fields.set("content-type", "application/json")
        fields.set("user-agent", "BrokerGateway-Webhook/1")
        fields.set(WebhookSignature.eventIdHeader, notification.eventId)
        fields.set(WebhookSignature.signatureHeader, WebhookSignature.header(body: prepared.body, secret: prepared.secret, timestamp: timestamp))
        fields.set("BrokerGateway-Delivery-Attempt", String(attempt))
        let request = BrokerRequest(
            method: .post,
            url: url,
            headers: fields,
            body: prepared.body,
            timeout: settings.timeout,
            maxResponseBytes: settings.maxResponseBytes,
            loggedPath: "webhook",
            idempotent: false
        )
        return await send(request)
    }

    func deliverPush(
        _ notification: AlertNotification,
        to target: PushTarget,
        apns: APNsProvider,
        alert: Alert,
        tenantId: String,
        userId: String,
        test: Bool
    ) async -> [AlertDeliveryAttempt] {
        var deviceId: String?
        if case .device(let id, _) = target { deviceId = id }
        return await attempting(.apns, notification, alert: alert, tenantId: tenantId, userId: userId, test: test, deviceId: deviceId) { _ in
            await sendPush(notification, to: target, apns: apns, alert: alert, tenantId: tenantId, userId: userId)
        }
    }

    /// One APNs push; a token APNs says is dead is retired (never tried again), an expired provider token renewed.
    func sendPush(
        _ notification: AlertNotification,
        to target: PushTarget,
        apns: APNsProvider,
        alert: Alert,
        tenantId: String,
        userId: String
    ) async -> AttemptResult {
        let request: BrokerRequest
        do {
            let token = try await apns.token(now: now())
            request = try apns.request(
                notification,
                deviceToken: target.deviceToken,
                providerToken: token,
                timeout: settings.timeout,
                maxResponseBytes: settings.maxResponseBytes
            )
        } catch {
            return AttemptResult(status: nil, error: "the APNs provider token could not be made", delivered: false, retryable: false)
        }
        var result = await send(request, readsAPNsReason: true)
        guard let status = result.status, !result.delivered else { return result }
        let reason = result.error
        if status == 410 || (status == 400 && reason == "BadDeviceToken") {
            result.error = await retire(target, reason: reason ?? "Unregistered", status: status, alert: alert, tenantId: tenantId, userId: userId)
            result.retryable = false
        } else if status == 403, reason == "ExpiredProviderToken" {
            do {
                _ = try await apns.token(now: now(), refresh: true)
                result.retryable = true
            } catch {
                // Retrying would send the same expired token again: the attempt fails for good, and says why.
                logger.error(
                    "the APNs provider token could not be renewed",
                    metadata: ["alert": "\(alert.id)", "error": "\(type(of: error))"]
                )
                result.error = "ExpiredProviderToken: the APNs provider token could not be renewed"
                result.retryable = false
            }
        }
        return result
    }

    /// APNs says the token is gone (410 `Unregistered`) or was never valid (400 `BadDeviceToken`), so no later firing
    /// tries it: a token the alert names is dropped from the alert; a device's registered token is kept, marked
    /// inactive with the reason, so the app and the user can see it must register a fresh one. What the delivery log
    /// says of it.
    func retire(
        _ target: PushTarget,
        reason: String,
        status: Int,
        alert: Alert,
        tenantId: String,
        userId: String
    ) async -> String {
        switch target {
        case .alertToken(let deviceToken):
            do {
                _ = try await store.dropAlertDeviceToken(tenantId: tenantId, userId: userId, id: alert.id, deviceToken: deviceToken)
                logger.notice("APNs says an alert's device token is gone: dropped", metadata: ["alert": "\(alert.id)", "status": "\(status)"])
            } catch {
                logger.error("an alert's dead device token could not be dropped", metadata: ["alert": "\(alert.id)"])
            }
            return "\(reason): the device token was dropped from the alert"
        case .device(let deviceId, let token):
            do {
                _ = try await store.deactivatePushToken(
                    tenantId: tenantId,
                    userId: userId,
                    deviceId: deviceId,
                    token: token,
                    reason: reason,
                    at: now()
                )
                logger.notice(
                    "APNs says a device's push token is invalid: marked inactive",
                    metadata: ["alert": "\(alert.id)", "device": "\(deviceId)", "status": "\(status)"]
                )
            } catch {
                logger.error(
                    "a device's invalid push token could not be marked inactive",
                    metadata: ["alert": "\(alert.id)", "device": "\(deviceId)"]
                )
            }
            return "\(reason): the push token of device \(deviceId) was marked inactive"
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
                status: status,
                error: reason ?? "the receiver answered \(status)",
                delivered: false,
                retryable: retryable,
                retryAfter: BrokerNumber.retryAfter(response.headers, now: now())
            )
        } catch let error as GatewayError {
            let retryable = [.upstreamTimeout, .upstreamUnavailable].contains(error.code)
            return AttemptResult(
                status: nil,
                error: "\(error.code.rawValue): \(BrokerText.sanitized(error.message))",
                delivered: false,
                retryable: retryable
            )
        } catch is CancellationError {
            return AttemptResult(status: nil, error: "cancelled", delivered: false, retryable: false)
        } catch {
            return AttemptResult(status: nil, error: "the request failed (\(type(of: error)))", delivered: false, retryable: true)
        }
    }

    /// Runs `attempt` until it delivers, fails for good, or `maxAttempts` are spent, logging each attempt.
    func attempting(
        _ channel: AlertChannel,
        _ notification: AlertNotification,
        alert: Alert,
        tenantId: String,
        userId: String,
        test: Bool,
        deviceId: String? = nil,
        _ attempt: (Int) async -> AttemptResult
    ) async -> [AlertDeliveryAttempt] {
        var made: [AlertDeliveryAttempt] = []
        for number in 1...settings.maxAttempts {
            let (entry, wait) = await attemptOnce(
                channel,
                notification,
                alert: alert,
                tenantId: tenantId,
                userId: userId,
                test: test,
                deviceId: deviceId,
                number: number,
                attempt
            )
            made.append(entry)
            guard let wait else { break }
            do {
                try await sleep(wait)
            } catch {
                break
            }
        }
        return made
    }

    /// Makes attempt `number` and writes it to the delivery log, the metrics and the debug log; with the wait before
    /// the next attempt when one is due (a retryable failure, attempts left, the task not cancelled), else `nil`.
    func attemptOnce(
        _ channel: AlertChannel,
        _ notification: AlertNotification,
        alert: Alert,
        tenantId: String,
        userId: String,
        test: Bool,
        deviceId: String?,
        number: Int,
        _ attempt: (Int) async -> AttemptResult
    ) async -> (AlertDeliveryAttempt, Duration?) {
        let result = await attempt(number)
        let again = !result.delivered && result.retryable && number < settings.maxAttempts && !Task.isCancelled
        let entry = AlertDeliveryAttempt(
            id: "dlv_" + RandomIdentifier.base32(count: 20),
            alertId: alert.id,
            eventId: notification.eventId,
            channel: channel,
            attempt: number,
            at: now(),
            outcome: result.delivered ? .delivered : again ? .retrying : .failed,
            httpStatus: result.status,
            error: result.error,
            test: test,
            deviceId: deviceId
        )
        metrics?.alertDelivery(channel: channel, outcome: entry.outcome)
        await log(entry, tenantId: tenantId, userId: userId)
        logger.debug(
            "alert delivery attempt",
            metadata: [
                "alert": "\(alert.id)", "event": "\(notification.eventId)", "channel": "\(channel.rawValue)",
                "attempt": "\(number)", "outcome": "\(entry.outcome.rawValue)", "status": "\(result.status.map(String.init) ?? "-")",
            ]
        )
        return (entry, again ? backoff(afterAttempt: number, retryAfter: result.retryAfter) : nil)
    }

    /// Writes one entry to the alert's delivery log (a failure to is logged, never thrown: the delivery goes on).
    func log(_ entry: AlertDeliveryAttempt, tenantId: String, userId: String) async {
        do {
            try await store.recordAlertDelivery(tenantId: tenantId, userId: userId, entry)
        } catch {
            logger.error("an alert delivery could not be logged", metadata: ["alert": "\(entry.alertId)", "error": "\(Self.describe(error))"])
        }
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
