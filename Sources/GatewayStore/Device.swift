public import Foundation

/// A device an end user signs in from (a phone, a tablet, a browser): its sessions are its own, and removing it
/// revokes them.
public struct Device: Codable, Sendable, Hashable {
    /// `dev_…`
    public var id: String
    public var tenantId: String
    public var userId: String
    public var name: String
    /// What kind of device (`ios`, `android`, `web`, …), as the app says.
    public var type: String
    public var model: String?
    public var os: String?
    public var appVersion: String?
    /// The app's stable id for the installation: signing in again from it reuses the device.
    public var fingerprint: String?
    /// A trusted device's sessions may be extended further.
    public var trusted: Bool
    public var createdAt: Date
    public var lastSeenAt: Date
    /// The push token the app registered for this device (`POST /v1/devices/current/push-token`), if any. Shown only
    /// to the device's owner (every device read is the user's own).
    public var pushToken: PushToken?

    public init(
        id: String,
        tenantId: String,
        userId: String,
        name: String,
        type: String,
        model: String? = nil,
        os: String? = nil,
        appVersion: String? = nil,
        fingerprint: String? = nil,
        trusted: Bool = false,
        createdAt: Date,
        lastSeenAt: Date,
        pushToken: PushToken? = nil
    ) {
        self.id = id
        self.tenantId = tenantId
        self.userId = userId
        self.name = name
        self.type = type
        self.model = model
        self.os = os
        self.appVersion = appVersion
        self.fingerprint = fingerprint
        self.trusted = trusted
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.pushToken = pushToken
    }
}

/// A device's push token (seed 003): what the alert engine pushes to when an alert's APNs channel targets the user's
/// devices. A token the push service reports invalid is kept, inactive, with when and why, so the app (and the user)
/// can see that it must register a fresh one; registering again makes it active.
public struct PushToken: Codable, Sendable, Hashable {
    /// The token as the push service knows it (APNs: hex, stored in lower case).
    public var token: String
    /// The push service it belongs to: `ios` (APNs).
    public var platform: PushPlatform
    /// `false` once the push service said the token is invalid (APNs 410 `Unregistered` or 400 `BadDeviceToken`).
    public var active: Bool
    public var registeredAt: Date
    public var deactivatedAt: Date?
    /// Why it is inactive: the push service's reason (`Unregistered`, `BadDeviceToken`).
    public var deactivatedReason: String?

    public init(
        token: String,
        platform: PushPlatform,
        active: Bool = true,
        registeredAt: Date,
        deactivatedAt: Date? = nil,
        deactivatedReason: String? = nil
    ) {
        self.token = token
        self.platform = platform
        self.active = active
        self.registeredAt = registeredAt
        self.deactivatedAt = deactivatedAt
        self.deactivatedReason = deactivatedReason
    }
}

/// The push services a device token can belong to. Only those the gateway delivers to are accepted, so that a
/// registered token is one an alert can reach: APNs (`ios`, as seed 003's mobile app sends it).
public enum PushPlatform: String, Codable, Sendable, Hashable, CaseIterable {
    case ios
}

/// A device as a login registers it, already checked.
public struct NewDevice: Sendable, Hashable {
    public var name: String
    public var type: String
    public var model: String?
    public var os: String?
    public var appVersion: String?
    public var fingerprint: String?

    public init(name: String, type: String, model: String? = nil, os: String? = nil, appVersion: String? = nil, fingerprint: String? = nil) {
        self.name = name
        self.type = type
        self.model = model
        self.os = os
        self.appVersion = appVersion
        self.fingerprint = fingerprint
    }
}

/// An end user's session on one device, without its refresh token.
public struct SessionRecord: Codable, Sendable, Hashable {
    /// `ses_…`
    public var id: String
    public var tenantId: String
    public var userId: String
    public var deviceId: String
    public var createdAt: Date
    public var refreshedAt: Date
    /// The session's absolute end: no refresh reaches past it.
    public var expiresAt: Date
    public var revokedAt: Date?
    /// `logout`, `device_logout`, `all_devices_logout`, `device_removed`, `refresh_reuse`.
    public var revokedReason: String?

    public init(
        id: String,
        tenantId: String,
        userId: String,
        deviceId: String,
        createdAt: Date,
        refreshedAt: Date,
        expiresAt: Date,
        revokedAt: Date? = nil,
        revokedReason: String? = nil
    ) {
        self.id = id
        self.tenantId = tenantId
        self.userId = userId
        self.deviceId = deviceId
        self.createdAt = createdAt
        self.refreshedAt = refreshedAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.revokedReason = revokedReason
    }

    public func isLive(at now: Date) -> Bool { revokedAt == nil && expiresAt > now }
}

/// What presenting a refresh token came to.
public enum RefreshOutcome: Sendable, Hashable {
    /// The token was the session's live one: it is spent, and the new one is live.
    case rotated(SessionRecord)
    /// The token was spent within the grace window, and the token it was rotated to is still the session's live
    /// one: a second refresh racing the first. Nothing changed; the caller hands out the live token again.
    case replayed(SessionRecord)
    /// The token was already spent: someone holds a copy. The session (the token's whole family) is now revoked.
    case reused(SessionRecord)
    /// The session was revoked or has ended.
    case ended(SessionRecord)
    /// No session ever had this token.
    case unknown
}

/// A user as a password login finds them, with what the login needs to decide.
public struct LoginCandidate: Sendable {
    public var user: User
    public var passwordHash: String?
    public var failedLogins: Int
    public var lockedUntil: Date?

    public init(user: User, passwordHash: String?, failedLogins: Int, lockedUntil: Date?) {
        self.user = user
        self.passwordHash = passwordHash
        self.failedLogins = failedLogins
        self.lockedUntil = lockedUntil
    }
}
