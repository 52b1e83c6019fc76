public import Crypto
public import Foundation
public import GatewayCore

/// How alerts are kept and delivered: the per-user limit, the webhook's retries and bounds, where outbound calls go,
/// and APNs when the operator configures it.
public struct AlertSettings: Sendable {
    /// The most alerts one user may have (one more is a 422).
    public var maxAlertsPerUser: Int
    /// Attempts of one notification on one channel, the first included.
    public var maxAttempts: Int
    /// The wait before the second attempt; each later wait doubles, with up to 25 % jitter, up to `maxDelay`.
    public var baseDelay: Duration
    /// The longest wait between attempts, a receiver's `Retry-After` included.
    public var maxDelay: Duration
    /// How long one attempt may take (connect, send, the whole answer).
    public var timeout: Duration
    /// The largest answer read from a receiver; a larger one fails the attempt.
    public var maxResponseBytes: Int
    /// Where webhook and APNs requests leave the process: `HTTPClientTransport` under the gateway's egress policy
    /// (user-supplied URLs reach public addresses only), whose AsyncHTTPClient negotiates HTTP/2 with ALPN over TLS
    /// (which APNs requires).
    public var transport: any BrokerTransport
    /// `nil`: no APNs (an alert's device token is kept but nothing is pushed).
    public var apns: APNsSettings?
    /// Deliveries (one attempt on one channel) `AlertEngine` runs at once, across tenants.
    public var maxConcurrentDeliveries: Int
    /// Of those, one tenant's at most: a tenant whose receivers hang holds this many slots, never all of them.
    public var maxConcurrentPerTenant: Int
    /// Of those, to one receiver (a webhook's host and port, or APNs) at most.
    public var maxConcurrentPerDestination: Int
    /// Deliveries one tenant may have queued, running or waiting for a retry; a new one past it is dropped (written
    /// to its alert's delivery log and counted), and other tenants' queues are untouched.
    public var maxPendingPerTenant: Int

    /// Delivery settings from configuration; each default is the gateway's own.
    public init(
        maxAlertsPerUser: Int = 100,
        maxAttempts: Int = 5,
        baseDelay: Duration = .seconds(1),
        maxDelay: Duration = .seconds(60),
        timeout: Duration = .seconds(10),
        maxResponseBytes: Int = 64 * 1024,
        transport: any BrokerTransport = HTTPClientTransport(),
        apns: APNsSettings? = nil,
        maxConcurrentDeliveries: Int = 16,
        maxConcurrentPerTenant: Int = 4,
        maxConcurrentPerDestination: Int = 4,
        maxPendingPerTenant: Int = 1_000
    ) {
        self.maxConcurrentDeliveries = max(1, maxConcurrentDeliveries)
        self.maxConcurrentPerTenant = max(1, maxConcurrentPerTenant)
        self.maxConcurrentPerDestination = max(1, maxConcurrentPerDestination)
        self.maxPendingPerTenant = max(1, maxPendingPerTenant)
        self.maxAlertsPerUser = max(1, maxAlertsPerUser)
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.timeout = timeout
        self.maxResponseBytes = max(1024, maxResponseBytes)
        self.transport = transport
        self.apns = apns
    }
}

/// The operator's APNs provider credentials (token-based: a .p8 signing key from the Apple developer account).
public struct APNsSettings: Sendable {
    /// Which APNs service pushes go to: Apple's production service, or its sandbox for development builds of an app.
    public enum Environment: String, Sendable, CaseIterable {
        case production
        case sandbox

        /// The environment's APNs host, as Apple documents it.
        public var host: String {
            switch self {
            case .production: "api.push.apple.com"
            case .sandbox: "api.sandbox.push.apple.com"
            }
        }
    }

    /// The Apple developer team id: the provider token's issuer (`iss`).
    public var teamId: String
    /// The id of the signing key in the developer account: the provider token's `kid`.
    public var keyId: String
    /// The .p8 key (ES256, P-256).
    public var key: P256.Signing.PrivateKey
    /// The app's bundle id (`apns-topic`).
    public var topic: String
    /// Production or sandbox; a device token is valid in one of them only.
    public var environment: Environment
    /// Where pushes go; `https://<environment's host>` unless a test points it elsewhere.
    public var baseURL: String

    /// APNs credentials from configuration; `baseURL` defaults to the environment's host.
    public init(
        teamId: String,
        keyId: String,
        key: P256.Signing.PrivateKey,
        topic: String,
        environment: Environment,
        baseURL: String? = nil
    ) {
        self.teamId = teamId
        self.keyId = keyId
        self.key = key
        self.topic = topic
        self.environment = environment
        self.baseURL = baseURL ?? "https://\(environment.host)"
    }

    /// Reads the .p8 file (PEM, PKCS #8). The error names the file, never its content.
    public static func load(
        teamId: String,
        keyId: String,
        keyFile: String,
        topic: String,
        environment: Environment
    ) throws -> APNsSettings {
        let text: String
        do {
            text = try String(contentsOfFile: keyFile, encoding: .utf8)
        } catch {
            throw GatewayError(.internalError, "the APNs key file \(keyFile) cannot be read", retryable: false)
        }
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: text)
        } catch {
            throw GatewayError(.internalError, "the APNs key file \(keyFile) is not a P-256 private key in PEM (.p8)", retryable: false)
        }
        return APNsSettings(teamId: teamId, keyId: keyId, key: key, topic: topic, environment: environment)
    }
}
