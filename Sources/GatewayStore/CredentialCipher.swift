import Crypto
package import Foundation
package import GatewayCore

/// Encrypts a connection's credentials at rest with AES-256-GCM under the gateway's master key.
///
/// A sealed value is `0x01 ‖ nonce (12) ‖ ciphertext ‖ tag (16)`, with a fresh random nonce each time. The tenant id
/// and the connection id are authenticated as additional data, so a ciphertext copied into another row (or
/// another tenant) fails to open instead of handing one connection's secrets to another.
///
/// Make one with ``load(environment:dataDirectory:)`` (the gateway's rule for finding its master key),
/// ``init(base64Key:)``, ``init(keyBytes:)``, or ``random()`` for tests.
///
/// During a master key rotation (``MasterKeyRotation``) a cipher holds two keys: it seals under the rotation's new
/// key and opens under either. Copies of a cipher share one key ring, so a key one store learns from the database
/// serves every copy.
public struct CredentialCipher: Sendable {
    let ring: MasterKeyRing
    /// Where the master key came from (never the key itself).
    public let source: MasterKeySource

    /// The key this cipher was made with (the configured master key), whatever it has learned since.
    var key: SymmetricKey { ring.configured }

    /// The master key's size: 32 bytes (AES-256).
    public static let keyByteCount = 32
    static let formatVersion: UInt8 = 1

    /// A cipher over 32 raw key bytes.
    /// - Throws: `MasterKeyError` (`invalidKey`) for any other length.
    public init(keyBytes: [UInt8]) throws {
        try self.init(keyBytes: keyBytes, source: .supplied)
    }

    /// A cipher over the base64 (standard or URL-safe, padding optional) of 32 key bytes, as in
    /// `BROKERGATEWAY_MASTER_KEY`. Surrounding whitespace is ignored.
    /// - Throws: `MasterKeyError` (`invalidKey`) when the text is not base64 or not 32 bytes.
    public init(base64Key: String) throws {
        try self.init(base64Key: base64Key, source: .supplied, origin: "the master key")
    }

    /// A cipher with a fresh random key that exists only in memory: for tests and throwaway stores.
    public static func random() -> CredentialCipher {
        CredentialCipher(key: SymmetricKey(size: .bits256), source: .ephemeral)
    }

    init(key: SymmetricKey, source: MasterKeySource) {
        self.ring = MasterKeyRing(configured: key)
        self.source = source
    }

    init(keyBytes: [UInt8], source: MasterKeySource, origin: String = "the master key") throws {
        guard keyBytes.count == Self.keyByteCount else {
            throw MasterKeyError(
                .invalidKey,
                "\(origin) must be exactly \(Self.keyByteCount) bytes (a 256-bit key) but is \(keyBytes.count) bytes; "
                    + "make one with `openssl rand -base64 32`"
            )
        }
        self.init(key: SymmetricKey(data: keyBytes), source: source)
    }

    init(base64Key: String, source: MasterKeySource, origin: String) throws {
        guard !base64Key.allSatisfy(\.isWhitespace) else {
            throw MasterKeyError(
                .invalidKey,
                "\(origin) is empty; it must be the base64 of \(Self.keyByteCount) bytes "
                    + "(make one with `openssl rand -base64 32`)"
            )
        }
        guard let bytes = Self.decodeBase64(base64Key) else {
            throw MasterKeyError(
                .invalidKey,
                "\(origin) must be the base64 of \(Self.keyByteCount) bytes, but it is not valid base64; "
                    + "make one with `openssl rand -base64 32`"
            )
        }
        try self.init(keyBytes: bytes, source: source, origin: origin)
    }

    static func decodeBase64(_ text: String) -> [UInt8]? {
        var normalized = text.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        guard !normalized.isEmpty else { return nil }
        let remainder = normalized.utf8.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { normalized += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: normalized).map { Array($0) }
    }

    // MARK: Sealing

    /// Encrypts credentials for one connection row.
    package func seal(_ credentials: BrokerCredentials, tenantId: String, connectionId: String) throws -> Data {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let plaintext = try encoder.encode(credentials.values)
            let box = try AES.GCM.seal(
                plaintext,
                using: ring.sealing,
                authenticating: Self.associatedData(tenantId: tenantId, connectionId: connectionId)
            )
            guard let combined = box.combined else {
                throw GatewayError(.internalError, "the credentials could not be encrypted")
            }
            var sealed = Data([Self.formatVersion])
            sealed.append(combined)
            return sealed
        } catch let error as GatewayError {
            throw error
        } catch {
            throw GatewayError(.internalError, "the credentials of connection \(connectionId) could not be encrypted")
        }
    }

    /// Decrypts the credentials of one connection row.
    /// - Throws: `GatewayError(.internalError)` when the value was sealed under another key, for another row, or was
    ///   altered. The error never carries key or plaintext material.
    package func open(_ sealed: Data, tenantId: String, connectionId: String) throws -> BrokerCredentials {
        let failure = GatewayError(
            .internalError,
            "the stored credentials of connection \(connectionId) could not be decrypted "
                + "(the master key differs from the one that encrypted them, or the stored value was altered)",
            retryable: false
        )
        guard
            let plaintext = Self.open(
                sealed,
                with: ring.opening,
                authenticating: Self.associatedData(tenantId: tenantId, connectionId: connectionId)
            ),
            let values = try? JSONDecoder().decode([String: String].self, from: plaintext)
        else { throw failure }
        return BrokerCredentials(values)
    }

    /// The credentials a connection row holds, as both backends answer `ConnectionStore.credentials`: not found when
    /// the tenant has no such row (`sealed` is `nil`); when the value does not open (another master key, a ciphertext
    /// moved from another row), `undecryptable` runs first, so the backend logs it with its own logger, and the error
    /// of ``open(_:tenantId:connectionId:)`` is rethrown.
    package func openStored(
        _ sealed: Data?,
        tenantId: String,
        connectionId: String,
        undecryptable: () -> Void
    ) throws -> BrokerCredentials {
        guard let sealed else { throw StoreRules.connectionNotFound(connectionId) }
        do {
            return try open(sealed, tenantId: tenantId, connectionId: connectionId)
        } catch {
            undecryptable()
            throw error
        }
    }

    /// Encrypts an alert's webhook signing secret, bound to the tenant and the alert as the credentials are to their
    /// connection (another purpose in the additional data, so neither opens as the other).
    package func seal(webhookSecret: String, tenantId: String, alertId: String) throws -> Data {
        do {
            let box = try AES.GCM.seal(
                Data(webhookSecret.utf8),
                using: ring.sealing,
                authenticating: Self.webhookSecretAssociatedData(tenantId: tenantId, alertId: alertId)
            )
            guard let combined = box.combined else { throw GatewayError(.internalError, "the webhook secret could not be encrypted") }
            var sealed = Data([Self.formatVersion])
            sealed.append(combined)
            return sealed
        } catch let error as GatewayError {
            throw error
        } catch {
            throw GatewayError(.internalError, "the webhook secret of alert \(alertId) could not be encrypted")
        }
    }

    /// Decrypts an alert's webhook signing secret. The error never carries key or secret material.
    package func open(webhookSecret sealed: Data, tenantId: String, alertId: String) throws -> String {
        let failure = GatewayError(
            .internalError,
            "the stored webhook secret of alert \(alertId) could not be decrypted",
            retryable: false
        )
        guard
            let plaintext = Self.open(
                sealed,
                with: ring.opening,
                authenticating: Self.webhookSecretAssociatedData(tenantId: tenantId, alertId: alertId)
            )
        else { throw failure }
        return String(decoding: plaintext, as: UTF8.self)
    }

    /// The plaintext of a sealed value under the first of `keys` that opens it; `nil` when none does (another key,
    /// another row, an altered value, an unknown format).
    static func open(_ sealed: Data, with keys: [SymmetricKey], authenticating associatedData: Data) -> Data? {
        guard sealed.first == formatVersion, let box = try? AES.GCM.SealedBox(combined: Data(sealed.dropFirst())) else {
            return nil
        }
        for key in keys {
            // A wrong key fails the tag check: the next key is tried.
            if let plaintext = try? AES.GCM.open(box, using: key, authenticating: associatedData) { return plaintext }
        }
        return nil
    }

    /// Binds a webhook secret's ciphertext to its alert.
    static func webhookSecretAssociatedData(tenantId: String, alertId: String) -> Data {
        Data("brokergateway.alert-secret.v1\u{0}\(tenantId)\u{0}\(alertId)".utf8)
    }

    /// Binds a ciphertext to its row. Ids are generated by the store and never contain NUL, so the separators make
    /// the encoding unambiguous.
    static func associatedData(tenantId: String, connectionId: String) -> Data {
        Data("brokergateway.credentials.v1\u{0}\(tenantId)\u{0}\(connectionId)".utf8)
    }
}

/// Where a ``CredentialCipher``'s master key came from. Safe to log: it never holds key material.
public enum MasterKeySource: Sendable, Hashable, CustomStringConvertible {
    /// The `BROKERGATEWAY_MASTER_KEY` environment variable.
    case environment
    /// A key file; `created` is `true` on the run that made it.
    case keyFile(path: String, created: Bool)
    /// A file the platform mounted, named by `BROKERGATEWAY_MASTER_KEY_FILE`.
    case secretFile(path: String)
    /// Given directly by the caller (`init(keyBytes:)`, `init(base64Key:)`).
    case supplied
    /// A random key that lives only in memory (`random()`).
    case ephemeral

    /// Where the key came from, for the start-up log line: a path or a variable's name, never key material.
    public var description: String {
        switch self {
        case .environment: "environment variable \(CredentialCipher.environmentVariable)"
        case .keyFile(let path, let created): created ? "new key file \(path)" : "key file \(path)"
        case .secretFile(let path): "secret file \(path) (\(CredentialCipher.environmentVariable)\(SuppliedSecret.fileSuffix))"
        case .supplied: "supplied key"
        case .ephemeral: "ephemeral in-memory key"
        }
    }
}
