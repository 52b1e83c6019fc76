import Crypto
public import Foundation
package import GatewayCore
package import Logging

/// The master key's records in the database (`store_meta`): the check every instance opens at start, and, while a
/// rotation is open, each of the rotation's two keys sealed under the other.
public struct MasterKeyRecords: Sendable, Equatable {
    /// An empty value sealed under the active master key (`StoreRules.keyCheckName`).
    public var check: Data?
    /// The rotation's new key, sealed under the old one.
    public var next: Data?
    /// The rotation's old key, sealed under the new one.
    public var previous: Data?

    /// The records: the check and, during a rotation, both wrapped keys.
    public init(check: Data?, next: Data? = nil, previous: Data? = nil) {
        self.check = check
        self.next = next
        self.previous = previous
    }

    /// Whether a rotation is open (both wrapped keys are stored).
    public var isRotating: Bool { next != nil && previous != nil }

    /// The `store_meta` key of the new key sealed under the old one.
    public static let nextName = "master_key_rotation.next"
    /// The `store_meta` key of the old key sealed under the new one.
    public static let previousName = "master_key_rotation.previous"
}

/// The kinds of value sealed under the master key, each in a column of its own table.
public enum SealedSecretKind: String, Sendable, CaseIterable, CustomStringConvertible {
    /// A connection's broker credentials (`connections.credentials_ciphertext`).
    case credentials
    /// An alert's webhook signing secret (`alerts.webhook_secret`).
    case webhookSecret = "webhook-secret"

    /// The kind's name, as the rotation's report prints it.
    public var description: String { rawValue }
}

/// One sealed value as stored: which row holds it and the ciphertext.
public struct SealedSecretRow: Sendable, Equatable {
    /// What the value is.
    public var kind: SealedSecretKind
    /// The row's tenant.
    public var tenantId: String
    /// The row's id (a connection's or an alert's): the cursor rows are paged by.
    public var id: String
    /// The ciphertext, bound to the row (``CredentialCipher``).
    public var sealed: Data

    /// A sealed value of one row.
    public init(kind: SealedSecretKind, tenantId: String, id: String, sealed: Data) {
        self.kind = kind
        self.tenantId = tenantId
        self.id = id
        self.sealed = sealed
    }

    /// The additional data the ciphertext is bound to: the row, and what kind of value it is.
    var associatedData: Data {
        switch kind {
        case .credentials: CredentialCipher.associatedData(tenantId: tenantId, connectionId: id)
        case .webhookSecret: CredentialCipher.webhookSecretAssociatedData(tenantId: tenantId, alertId: id)
        }
    }
}

/// What a backend does for a master key rotation: its SQL and its transactions only. The rules (what is sealed under
/// which key, in which order, when a rotation may finish) are ``MasterKeyRotation``'s, written once for both.
public protocol MasterKeyStore: Sendable {
    /// The cipher the store seals and opens with; its key ring learns the rotation's keys.
    var cipher: CredentialCipher { get }

    /// The check and the rotation's wrapped keys, as stored now.
    func masterKeyRecords() async throws -> MasterKeyRecords

    /// Stores both wrapped keys unless a rotation is already recorded (one transaction); answers the records as
    /// stored afterwards, so a caller that lost a race sees the winner's.
    func recordMasterKeyRotation(next: Data, previous: Data) async throws -> MasterKeyRecords

    /// In one transaction, when the stored new key's wrap is still `next`: the check replaced by `check` and both
    /// wrapped keys removed. `false` when another rotation (or none) is recorded.
    func finishMasterKeyRotation(next: Data, check: Data) async throws -> Bool

    /// Up to `limit` sealed values of `kind` whose row id sorts after `after` (all when `nil`), in id order.
    func sealedSecrets(_ kind: SealedSecretKind, after: String?, limit: Int) async throws -> [SealedSecretRow]

    /// Replaces a row's sealed value with `sealed` when it still holds `row.sealed` (a compare-and-swap, so a
    /// concurrent write is never lost); `false` when the row changed or is gone.
    func replaceSealedSecret(_ row: SealedSecretRow, with sealed: Data) async throws -> Bool
}

/// Re-seals every stored secret under a new master key while the gateway serves.
///
/// A rotation is open from ``begin(store:newKey:)`` until ``finish(store:)``. While it is open the database holds
/// the new key sealed under the old one and the old key sealed under the new one, so an instance configured with
/// either key learns the other (at start, or the first time a value does not open) and opens every value, whichever
/// key sealed it; instances that know both seal under the new key. ``reseal(store:pageSize:)`` re-seals the values
/// still under the old key, each with a compare-and-swap, and can run again at any time: an interrupted rotation is
/// resumed by running it again. ``finish(store:)`` re-seals what is left, makes the new key the database's check and
/// removes both wrapped keys: from then on only the new key opens the database. Every instance must be running with
/// the new key before that (the README's "Rotating the master key").
public enum MasterKeyRotation {
    /// What a rotation step did.
    public struct Report: Sendable, Equatable {
        /// The new key's id (``keyID(_:)``): which key is which, without the key.
        public var newKeyID: String
        /// The old key's id.
        public var oldKeyID: String
        /// Values re-sealed under the new key now, per kind.
        public var resealed: [SealedSecretKind: Int] = [:]
        /// Values already under the new key, per kind.
        public var alreadyResealed: [SealedSecretKind: Int] = [:]
        /// Rows whose value opens under neither key (altered or moved): they are left as they are.
        public var undecryptable: [SealedSecretRow] = []
        /// Whether the rotation is finished (only the new key opens the database).
        public var finished = false
    }

    /// The id of a cipher's configured key: the first 8 bytes of a SHA-256 over a fixed label and the key, in hex. It tells keys apart in
    /// messages and reports and reveals nothing of the key.
    public static func keyID(_ cipher: CredentialCipher) -> String { keyID(cipher.key) }

    static func keyID(_ key: SymmetricKey) -> String {
        var hasher = SHA256()
        hasher.update(data: Data("brokergateway.master-key-id.v1".utf8))
        key.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return hasher.finalize().prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    // MARK: Start-up and learning

    /// The start-up check of a store's master key against its records: the configured key must open the check, or,
    /// while a rotation is open, be either of its keys (the cipher then holds both). Without records the database is
    /// new and the caller stores the check.
    /// - Throws: `MasterKeyError` (`keyMismatch`) when the configured key is neither.
    package static func admit(_ cipher: CredentialCipher, records: MasterKeyRecords) throws {
        guard let check = records.check else {
            throw GatewayError(.internalError, "the gateway's database cannot be read (it has no master key check)")
        }
        if opens(check, under: cipher.key, as: keyCheckData) {
            if records.isRotating { _ = learn(cipher, records: records) }
            return
        }
        if records.isRotating, learn(cipher, records: records) || cipher.ring.isRotating { return }
        throw MasterKeyError(
            .keyMismatch,
            "the master key (\(cipher.source), id \(keyID(cipher.key))) is not the one this database was created "
                + "with, so its stored credentials cannot be decrypted; use the database's key "
                + "(\(CredentialCipher.environmentVariable) or the data folder's \(CredentialCipher.keyFileName)), "
                + "or the new key if it was rotated with `gateway keys rotate-master --finish`"
        )
    }

    /// Lets `cipher` hold both keys of the open rotation `records` describes, when its configured key is one of
    /// them. `true` when the cipher's keys changed.
    @discardableResult
    package static func learn(_ cipher: CredentialCipher, records: MasterKeyRecords) -> Bool {
        guard let next = records.next, let previous = records.previous else { return false }
        let configured = cipher.key
        if let newKey = unwrap(next, under: configured, as: .next) {
            return cipher.ring.enterRotation(from: configured, to: newKey)
        }
        if let oldKey = unwrap(previous, under: configured, as: .previous) {
            return cipher.ring.enterRotation(from: oldKey, to: configured)
        }
        return false
    }

    // MARK: The operator's steps

    /// Opens a rotation to `newKey`'s key (a fresh random key when `nil`), or resumes the one already open.
    /// - Returns: the rotation's new key, as a cipher of its own, and whether this call opened the rotation.
    /// - Throws: `MasterKeyError` (`invalidKey`) when `newKey` is the current key, or (`rotationInProgress`) when
    ///   another rotation, to a different key, is open.
    public static func begin(
        store: some MasterKeyStore,
        newKey: CredentialCipher?
    ) async throws -> (key: CredentialCipher, opened: Bool) {
        let (key, opened) = try await open(store: store, newKey: newKey?.key)
        return (CredentialCipher(key: key, source: .supplied), opened)
    }

    static func open(store: some MasterKeyStore, newKey: SymmetricKey?) async throws -> (key: SymmetricKey, opened: Bool) {
        let cipher = store.cipher
        var records = try await store.masterKeyRecords()
        if !records.isRotating {
            guard let check = records.check, opens(check, under: cipher.key, as: keyCheckData) else {
                throw MasterKeyError(
                    .keyMismatch,
                    "the master key (\(cipher.source)) does not open this database's check; rotate with the database's key"
                )
            }
            let target = newKey ?? SymmetricKey(size: .bits256)
            guard target != cipher.key else {
                throw MasterKeyError(
                    .invalidKey,
                    "the new master key is the current one (id \(keyID(target))); make a new one with `openssl rand -base64 32`"
                )
            }
            let next = try wrap(target, under: cipher.key, as: .next)
            let previous = try wrap(cipher.key, under: target, as: .previous)
            records = try await store.recordMasterKeyRotation(next: next, previous: previous)
            if records.next == next {
                cipher.ring.enterRotation(from: cipher.key, to: target)
                return (target, true)
            }
        }
        // Open already (this command's earlier run, or another operator's just now): its key, learned from the
        // database with the configured one.
        learn(cipher, records: records)
        guard cipher.ring.isRotating else {
            throw MasterKeyError(.keyMismatch, "a master key rotation is open, but its records do not open under the master key (\(cipher.source))")
        }
        let target = cipher.ring.sealing
        if let newKey, newKey != target {
            throw MasterKeyError(
                .rotationInProgress,
                "a rotation to another master key (id \(keyID(target))) is open; finish it with that key first "
                    + "(`gateway keys rotate-master --finish`)"
            )
        }
        return (target, false)
    }

    /// Re-seals, under the open rotation's new key, every stored value still sealed under the old one, `pageSize`
    /// rows at a time, each with a compare-and-swap. A value that changed under it (another instance wrote it) is
    /// looked at again on a further pass, until a pass finds nothing to do. Safe to run again at any time.
    public static func reseal(store: some MasterKeyStore, pageSize: Int = 200) async throws -> Report {
        let cipher = store.cipher
        guard cipher.ring.isRotating else { throw notRotating }
        let (newKey, oldKeys) = (cipher.ring.sealing, Array(cipher.ring.opening.dropFirst()))
        var report = Report(newKeyID: keyID(newKey), oldKeyID: oldKeys.first.map(keyID) ?? "-")
        for kind in SealedSecretKind.allCases {
            var pass = 0
            while true {
                pass += 1
                var changedUnderUs = false
                var undecryptable: [SealedSecretRow] = []
                var cursor: String?
                while true {
                    let rows = try await store.sealedSecrets(kind, after: cursor, limit: pageSize)
                    for row in rows {
                        let associatedData = row.associatedData
                        if CredentialCipher.open(row.sealed, with: [newKey], authenticating: associatedData) != nil {
                            if pass == 1 { report.alreadyResealed[kind, default: 0] += 1 }
                            continue
                        }
                        guard let plaintext = CredentialCipher.open(row.sealed, with: oldKeys, authenticating: associatedData) else {
                            undecryptable.append(row)
                            continue
                        }
                        let resealed = try seal(plaintext, under: newKey, authenticating: associatedData)
                        if try await store.replaceSealedSecret(row, with: resealed) {
                            report.resealed[kind, default: 0] += 1
                        } else {
                            changedUnderUs = true
                        }
                    }
                    guard rows.count == pageSize, let last = rows.last else { break }
                    cursor = last.id
                }
                if !changedUnderUs || pass == 10 {
                    report.undecryptable += undecryptable
                    break
                }
            }
        }
        return report
    }

    /// Finishes the open rotation: re-seals what is left under the old key, then, in one transaction, makes the new
    /// key the database's check and removes both wrapped keys. Afterwards an instance started with the old key is
    /// refused (`key_mismatch`).
    /// - Throws: `MasterKeyError` (`rotationIncomplete`) when a value opens under neither key, or (`notRotating`)
    ///   when no rotation is open.
    public static func finish(store: some MasterKeyStore) async throws -> Report {
        let cipher = store.cipher
        let records = try await store.masterKeyRecords()
        guard records.isRotating, let next = records.next else { throw notRotating }
        learn(cipher, records: records)
        var report = try await reseal(store: store)
        guard report.undecryptable.isEmpty else {
            let rows = report.undecryptable.prefix(10).map { "\($0.kind) \($0.id)" }.joined(separator: ", ")
            throw MasterKeyError(
                .rotationIncomplete,
                "\(report.undecryptable.count) stored values open under neither key (\(rows)); the rotation stays open"
            )
        }
        let newKey = cipher.ring.sealing
        let check = try seal(Data(keyCheckPlaintext), under: newKey, authenticating: keyCheckData)
        guard try await store.finishMasterKeyRotation(next: next, check: check) else {
            throw MasterKeyError(.rotationInProgress, "the open rotation changed while finishing it; run the command again")
        }
        cipher.ring.settle(on: newKey)
        report.finished = true
        return report
    }

    // MARK: Sealing under one key

    /// What the wrapped keys are bound to, so neither opens as the other or as any stored value.
    enum WrapPurpose: String {
        case next
        case previous
    }

    static let notRotating = MasterKeyError(
        .notRotating,
        "no master key rotation is open; start one with `gateway keys rotate-master`"
    )

    /// The check's additional data and plaintext: an empty credentials object bound to the check's name, exactly as
    /// the stores have sealed it since the first release.
    static var keyCheckData: Data { CredentialCipher.associatedData(tenantId: "", connectionId: StoreRules.keyCheckName) }
    static let keyCheckPlaintext = Array("{}".utf8)

    static func wrap(_ key: SymmetricKey, under wrappingKey: SymmetricKey, as purpose: WrapPurpose) throws -> Data {
        try key.withUnsafeBytes { bytes in
            try seal(Data(bytes), under: wrappingKey, authenticating: Data("brokergateway.master-key-wrap.v1\u{0}\(purpose.rawValue)".utf8))
        }
    }

    static func unwrap(_ sealed: Data, under key: SymmetricKey, as purpose: WrapPurpose) -> SymmetricKey? {
        let data = Data("brokergateway.master-key-wrap.v1\u{0}\(purpose.rawValue)".utf8)
        guard let bytes = CredentialCipher.open(sealed, with: [key], authenticating: data),
            bytes.count == CredentialCipher.keyByteCount
        else { return nil }
        return SymmetricKey(data: bytes)
    }

    static func opens(_ sealed: Data, under key: SymmetricKey, as associatedData: Data) -> Bool {
        CredentialCipher.open(sealed, with: [key], authenticating: associatedData) != nil
    }

    static func seal(_ plaintext: Data, under key: SymmetricKey, authenticating associatedData: Data) throws -> Data {
        guard let combined = try AES.GCM.seal(plaintext, using: key, authenticating: associatedData).combined else {
            throw GatewayError(.internalError, "a value could not be encrypted under the new master key")
        }
        var sealed = Data([CredentialCipher.formatVersion])
        sealed.append(combined)
        return sealed
    }
}

extension MasterKeyStore {
    /// A row's credentials, as ``ConnectionStore/credentials(tenantId:connectionId:)`` answers them on both backends:
    /// a value that does not open under the keys held first makes the store learn an open rotation's other key from
    /// the database, then is tried again; only then is it logged and refused.
    package func openCredentials(
        _ sealed: Data?,
        tenantId: String,
        connectionId: String,
        logger: Logger
    ) async throws -> BrokerCredentials {
        if let sealed, let credentials = try? cipher.open(sealed, tenantId: tenantId, connectionId: connectionId) {
            return credentials
        }
        if sealed != nil { await learnMasterKeys(logger: logger) }
        return try cipher.openStored(sealed, tenantId: tenantId, connectionId: connectionId) {
            logger.error("stored credentials do not decrypt", metadata: ["tenant": .string(tenantId), "connection": .string(connectionId)])
        }
    }

    /// An alert's webhook secret, learning an open rotation's other key first when it does not open (as
    /// ``openCredentials(_:tenantId:connectionId:logger:)``).
    package func openWebhookSecret(_ sealed: Data, tenantId: String, alertId: String, logger: Logger) async throws -> String {
        if let secret = try? cipher.open(webhookSecret: sealed, tenantId: tenantId, alertId: alertId) { return secret }
        await learnMasterKeys(logger: logger)
        do {
            return try cipher.open(webhookSecret: sealed, tenantId: tenantId, alertId: alertId)
        } catch {
            logger.error("stored webhook secret does not decrypt", metadata: ["tenant": .string(tenantId), "alert": .string(alertId)])
            throw error
        }
    }

    /// Reads the master key records and lets the cipher hold both keys of an open rotation.
    package func learnMasterKeys(logger: Logger) async {
        do {
            if MasterKeyRotation.learn(cipher, records: try await masterKeyRecords()) {
                logger.notice(
                    "master key rotation open: sealing under the new key, opening under both",
                    metadata: ["newKey": .string(MasterKeyRotation.keyID(cipher.ring.sealing))]
                )
            }
        } catch {
            logger.warning("cannot read the master key records", metadata: ["error": .string("\(error)")])
        }
    }
}

/// The statements a backend runs for ``MasterKeyStore``, the same text on SQLite and PostgreSQL (`?` placeholders;
/// the PostgreSQL store numbers them).
package enum MasterKeySQL {
    /// The check and both wrapped keys: rows of `key`, `value`.
    package static let records = "SELECT key, value FROM store_meta WHERE key IN (?, ?, ?)"
    package static var recordNames: [String] { [StoreRules.keyCheckName, MasterKeyRecords.nextName, MasterKeyRecords.previousName] }
    /// Stores a value under a name unless one is stored.
    package static let insertIfAbsent = "INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING"
    /// The stored new key's wrap (to compare before finishing).
    package static let next = "SELECT value FROM store_meta WHERE key = ?"
    /// Replaces the check.
    package static let replaceCheck = "UPDATE store_meta SET value = ? WHERE key = ?"
    /// Removes both wrapped keys.
    package static let removeWraps = "DELETE FROM store_meta WHERE key IN (?, ?)"

    /// A page of sealed values of `kind` after a row id (`''` for the first page): `id`, `tenant_id`, `sealed`.
    package static func page(_ kind: SealedSecretKind) -> String {
        "SELECT id, tenant_id, \(column(kind)) AS sealed FROM \(table(kind)) WHERE id > ? ORDER BY id LIMIT ?"
    }

    /// Replaces one row's sealed value if it is still the one read: arguments new value, id, old value.
    package static func replace(_ kind: SealedSecretKind) -> String {
        "UPDATE \(table(kind)) SET \(column(kind)) = ? WHERE id = ? AND \(column(kind)) = ?"
    }

    /// The records from the rows of ``records``.
    package static func records(_ rows: [(key: String, value: Data)]) -> MasterKeyRecords {
        let values = Dictionary(rows.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        return MasterKeyRecords(
            check: values[StoreRules.keyCheckName],
            next: values[MasterKeyRecords.nextName],
            previous: values[MasterKeyRecords.previousName]
        )
    }

    private static func table(_ kind: SealedSecretKind) -> String {
        switch kind {
        case .credentials: "connections"
        case .webhookSecret: "alerts"
        }
    }

    private static func column(_ kind: SealedSecretKind) -> String {
        switch kind {
        case .credentials: "credentials_ciphertext"
        case .webhookSecret: "webhook_secret"
        }
    }
}
