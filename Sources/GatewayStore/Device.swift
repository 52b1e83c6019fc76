public import Foundation

/// A device an end user signs in from (a phone, a tablet, a browser): its sessions are its own, and removing it
/// revokes them.
public struct Device: Codable, Sendable, Hashable {
    /// `dev_…`
    public var id: String
    /// The tenant of the device's user.
    public var tenantId: String
    /// The user who signs in from it: only they see or remove it.
    public var userId: String
    /// A name the user recognizes it by (`Anna's iPhone`), shown in the device list.
    public var name: String
    /// What kind of device (`ios`, `android`, `web`, …), as the app says.
    public var type: String
    /// The hardware model, as the app reports it (informational).
    public var model: String?
    /// The operating system and version, as the app reports it (informational).
    public var os: String?
    /// The app's version, as it reports it: support can tell which build a device runs.
    public var appVersion: String?
    /// The app's stable id for the installation: signing in again from it reuses the device.
    public var fingerprint: String?
    /// A trusted device's sessions may be extended further.
    public var trusted: Bool
    /// When the device first signed in.
    public var createdAt: Date
    /// When one of its sessions was last created or refreshed: lets the user spot a device they no longer use.
    public var lastSeenAt: Date
    /// The push token the app registered for this device (`POST /v1/devices/current/push-token`), if any. Shown only
    /// to the device's owner (every device read is the user's own).
    public var pushToken: PushToken?

    /// Builds a device; the store fills it from a row, tests from literals.
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
    /// When the app last registered it (a registration again reactivates it).
    public var registeredAt: Date
    /// When the push service reported it invalid; `nil` while active.
    public var deactivatedAt: Date?
    /// Why it is inactive: the push service's reason (`Unregistered`, `BadDeviceToken`).
    public var deactivatedReason: String?

    /// Builds a token's state; the store fills it from a row.
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
    /// A name the user recognizes the device by.
    public var name: String
    /// What kind of device (`ios`, `android`, `web`, …), as the app says.
    public var type: String
    /// The hardware model, if the app says.
    public var model: String?
    /// The operating system and version, if the app says.
    public var os: String?
    /// The app's version, if it says.
    public var appVersion: String?
    /// The installation's stable id: a login from a known fingerprint reuses its device instead of adding one.
    public var fingerprint: String?

    /// A device to register at login, with the fields the app sent (already checked).
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
    /// The tenant of the session's user.
    public var tenantId: String
    /// The user the session signs in.
    public var userId: String
    /// The device it belongs to: removing the device revokes it.
    public var deviceId: String
    /// When the login created it.
    public var createdAt: Date
    /// When its refresh token was last rotated.
    public var refreshedAt: Date
    /// The session's absolute end: no refresh reaches past it.
    public var expiresAt: Date
    /// When it was revoked; `nil` while it may still be refreshed.
    public var revokedAt: Date?
    /// `logout`, `device_logout`, `all_devices_logout`, `device_removed`, `refresh_reuse`.
    public var revokedReason: String?

    /// Builds a session record; the store fills it from a row.
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

    /// Whether a refresh at `now` may use the session: not revoked and not past its absolute end.
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
    /// The user the login names.
    public var user: User
    /// The stored password hash (PHC text); `nil` for a user who has no password and cannot log in with one.
    public var passwordHash: String?
    /// Failed logins since the last success: what the lock-out counts.
    public var failedLogins: Int
    /// Until when logins are refused after too many failures; `nil` when not locked.
    public var lockedUntil: Date?

    /// Pairs a user with their login state, as one read under the user's lock finds them.
    public init(user: User, passwordHash: String?, failedLogins: Int, lockedUntil: Date?) {
        self.user = user
        self.passwordHash = passwordHash
        self.failedLogins = failedLogins
        self.lockedUntil = lockedUntil
    }
}
