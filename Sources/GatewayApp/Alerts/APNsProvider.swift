public import Foundation
import GatewayCore
import GatewayModel
import HTTPTypes
import Synchronization

/// APNs with token-based authentication: an ES256 provider token (`iss` the team id, `iat`, header `kid` the key
/// id) signed with the operator's .p8 key, reused for 50 minutes (Apple refuses tokens older than an hour and
/// throttles ones refreshed more often than every 20 minutes), and one push per notification to
/// `POST /3/device/<token>` through the alerts' transport (AsyncHTTPClient, HTTP/2 by ALPN).
final class APNsProvider: Sendable {
    static let tokenLifetime: TimeInterval = 50 * 60

    let settings: APNsSettings
    private let cached = Mutex<(token: String, issuedAt: Date)?>(nil)

    init(settings: APNsSettings) {
        self.settings = settings
    }

    /// The provider token, made anew when the cached one is 50 minutes old (or `refresh` says APNs refused it).
    func token(now: Date, refresh: Bool = false) async throws -> String {
        if !refresh, let cached = cached.withLock({ $0 }), now.timeIntervalSince(cached.issuedAt) < Self.tokenLifetime,
            now >= cached.issuedAt
        {
            return cached.token
        }
        let claims = APNsClaims(iss: settings.teamId, iat: now)
        let token = try CompactJWS.signES256(payload: claims, kid: settings.keyId, key: settings.key)
        cached.withLock { $0 = (token, now) }
        return token
    }

    /// The push of one notification to one device.
    func request(
        _ notification: AlertNotification,
        deviceToken: String,
        providerToken: String,
        timeout: Duration,
        maxResponseBytes: Int
    ) throws -> BrokerRequest {
        var fields = HTTPFields()
        fields.set("authorization", "bearer \(providerToken)")
        fields.set("apns-topic", settings.topic)
        fields.set("apns-push-type", "alert")
        fields.set("apns-priority", "10")
        fields.set("content-type", "application/json")
        let payload = APNsPayload(
            aps: .init(alert: .init(title: notification.alertName ?? "BrokerGateway alert", body: notification.message), sound: "default"),
            alertId: notification.alertId,
            eventId: notification.eventId
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return BrokerRequest(
            method: .post,
            url: "\(settings.baseURL)/3/device/\(deviceToken)",
            headers: fields,
            body: try encoder.encode(payload),
            timeout: timeout,
            maxResponseBytes: maxResponseBytes,
            loggedPath: "/3/device/…",
            idempotent: false
        )
    }

    /// APNs' `reason` of an error answer (`{"reason":"Unregistered"}`), when it gives one.
    static func reason(_ body: Data) -> String? {
        struct Answer: Decodable { var reason: String? }
        return (try? JSONDecoder().decode(Answer.self, from: body))?.reason.map { BrokerText.sanitized($0, limit: 64) }
    }
}

/// The provider token's claims, all Apple reads: the team id as `iss` and the issue time as `iat` (seconds since
/// 1970). Apple's "Establishing a token-based connection to APNs" names exactly these.
struct APNsClaims: Encodable {
    var iss: String
    var iat: Date
}

struct APNsPayload: Encodable {
    struct APS: Encodable {
        struct Alert: Encodable {
            var title: String
            var body: String
        }
        var alert: Alert
        var sound: String
    }
    var aps: APS
    var alertId: String
    var eventId: String
}
