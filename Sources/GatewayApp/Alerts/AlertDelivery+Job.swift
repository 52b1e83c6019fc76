import Foundation
import GatewayCore
import GatewayModel
import Logging

/// What `AlertEngine` schedules: one channel of one notification to one receiver, carried one attempt at a time, so
/// that a delivery waiting for its retry's backoff holds no delivery slot (`AlertDeliveryScheduler`).
extension AlertDelivery {
    struct Job: Sendable {
        enum Target: Sendable {
            case webhook(url: String)
            case push(PushTarget)
            /// Every active push token of the user's devices, read when the job runs: it becomes one job per device.
            case devices
        }

        var notification: AlertNotification
        var alert: Alert
        var tenantId: String
        var userId: String
        var target: Target
        /// The number of the attempt the job makes next (1 for the first).
        var attempt = 1

        var channel: AlertChannel {
            if case .webhook = target { return .webhook }
            return .apns
        }

        /// The receiver the job's requests go to, whose concurrent deliveries are bounded: a webhook's host and port
        /// (one hanging host cannot take every slot), or APNs.
        var destination: String {
            guard case .webhook(let url) = target else { return "apns" }
            return Self.destination(ofWebhook: url)
        }

        /// `host:port` of a webhook URL, the host lowercased, the port the scheme's when none is given; a URL without a
        /// host (its attempt fails at once) is a destination of its own.
        static func destination(ofWebhook url: String) -> String {
            guard let components = URLComponents(string: url), let host = components.host?.lowercased(), !host.isEmpty else {
                return "webhook:unusable"
            }
            let port = components.port ?? (components.scheme?.lowercased() == "http" ? 80 : 443)
            return "\(host):\(port)"
        }
    }

    /// The jobs a firing of `alert` makes: its webhook, and its APNs channel when APNs is configured.
    func jobs(_ notification: AlertNotification, alert: Alert, tenantId: String, userId: String) -> [Job] {
        var jobs: [Job] = []
        if let webhook = alert.channels.webhook {
            jobs.append(Job(notification: notification, alert: alert, tenantId: tenantId, userId: userId, target: .webhook(url: webhook.url)))
        }
        if let channel = alert.channels.apns, apns != nil {
            if let deviceToken = channel.deviceToken {
                jobs.append(
                    Job(notification: notification, alert: alert, tenantId: tenantId, userId: userId, target: .push(.alertToken(deviceToken)))
                )
            } else if channel.devices == .all {
                jobs.append(Job(notification: notification, alert: alert, tenantId: tenantId, userId: userId, target: .devices))
            }
        }
        return jobs
    }

    /// What running a job once came to.
    enum Step: Sendable {
        /// Delivered, or failed for good (the log says which), or nothing to send.
        case finished
        /// Failed and to be tried again as `job` after `after`.
        case retry(after: Duration, Job)
        /// One job per device to push to.
        case fanOut([Job])
    }

    /// Makes the job's next attempt (written to the delivery log), or, for `.devices`, reads the user's devices.
    func step(_ job: Job) async -> Step {
        var wait: Duration?
        switch job.target {
        case .webhook(let url):
            guard let prepared = await prepareWebhook(job.notification, alert: job.alert, tenantId: job.tenantId, userId: job.userId) else {
                return .finished
            }
            (_, wait) = await attemptOnce(
                .webhook,
                job.notification,
                alert: job.alert,
                tenantId: job.tenantId,
                userId: job.userId,
                test: false,
                deviceId: nil,
                number: job.attempt
            ) { number in
                await sendWebhook(prepared, job.notification, url: url, attempt: number)
            }
        case .push(let target):
            guard let apns else { return .finished }
            var deviceId: String?
            if case .device(let id, _) = target { deviceId = id }
            (_, wait) = await attemptOnce(
                .apns,
                job.notification,
                alert: job.alert,
                tenantId: job.tenantId,
                userId: job.userId,
                test: false,
                deviceId: deviceId,
                number: job.attempt
            ) { _ in
                await sendPush(job.notification, to: target, apns: apns, alert: job.alert, tenantId: job.tenantId, userId: job.userId)
            }
        case .devices:
            let targets = await devicePushTargets(alert: job.alert, tenantId: job.tenantId, userId: job.userId)
            return .fanOut(
                targets.map { target in
                    var pushed = job
                    pushed.target = .push(target)
                    return pushed
                }
            )
        }
        guard let wait else { return .finished }
        var next = job
        next.attempt += 1
        return .retry(after: wait, next)
    }

    /// A job its tenant's full queue refused: written to the alert's delivery log as failed (attempt: the one it would
    /// have made) and counted (`brokergateway_alert_deliveries_dropped_total`), so the tenant sees what it lost.
    func dropped(_ job: Job, pendingLimit: Int) async {
        var deviceId: String?
        if case .push(.device(let id, _)) = job.target { deviceId = id }
        let entry = AlertDeliveryAttempt(
            id: "dlv_" + RandomIdentifier.base32(count: 20),
            alertId: job.alert.id,
            eventId: job.notification.eventId,
            channel: job.channel,
            attempt: job.attempt,
            at: now(),
            outcome: .failed,
            error: "dropped: the tenant already has \(pendingLimit) alert deliveries waiting or running",
            deviceId: deviceId
        )
        metrics?.alertDeliveryDropped(channel: job.channel)
        await log(entry, tenantId: job.tenantId, userId: job.userId)
        logger.warning(
            "an alert delivery was dropped: its tenant's queue is full",
            metadata: ["alert": "\(job.alert.id)", "event": "\(job.notification.eventId)", "channel": "\(job.channel.rawValue)"]
        )
    }
}
