import ArgumentParser
import Foundation
import GatewayStore

/// `gateway keys rotate-master`: re-seals every stored secret under a new master key while the gateway serves.
///
/// The first run opens the rotation and re-seals; running it again resumes an interrupted one. While the rotation
/// is open, instances started with either key open every secret. `--finish`, once every instance runs with the new
/// key, makes the new key the only one. The README's "Rotating the master key" has the steps.
struct KeysRotateMasterCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-master",
        abstract: "Re-seal every stored secret under a new master key while the gateway serves (resumable).",
        discussion: """
            Without --finish: opens a rotation (or resumes the open one) and re-seals every stored credential and \
            webhook secret under the new key. While it is open, instances started with the old key or the new one \
            open every secret. The new key comes from BROKERGATEWAY_NEW_MASTER_KEY, BROKERGATEWAY_NEW_MASTER_KEY_FILE \
            or --new-key-file; when the master key is the data folder's master.key and none is given, a fresh key is \
            made and written there. Then give the new key to every instance (restart or roll them), and run \
            `gateway keys rotate-master --finish` with it: afterwards only the new key opens the database.
            """
    )

    @Option(
        name: .customLong("new-key-file"),
        help: "A file holding the new master key (base64 of 32 bytes), as BROKERGATEWAY_NEW_MASTER_KEY_FILE."
    )
    var newKeyFile: String?

    @Flag(help: "Finish the open rotation; the master key this command is given must be the new key.")
    var finish = false

    @OptionGroup var store: StoreOptions

    func lines() async throws -> [String] {
        var environment = ProcessInfo.processInfo.environment
        if let newKeyFile {
            environment[CredentialCipher.newKeyEnvironmentVariable] = nil
            environment[CredentialCipher.newKeyEnvironmentVariable + SuppliedSecret.fileSuffix] = newKeyFile
        }
        let newKey = try CredentialCipher.newKey(environment: environment)
        let finish = finish
        return try await store.withStore { store in
            let cipher = store.cipher
            if finish {
                let records = try await store.masterKeyRecords()
                guard records.isRotating else { throw MasterKeyError(.notRotating, "no master key rotation is open") }
                let (target, _) = try await MasterKeyRotation.begin(store: store, newKey: nil)
                guard target.hasSameKey(as: cipher) else {
                    throw MasterKeyError(
                        .keyMismatch,
                        "finish with the rotation's new key (id \(MasterKeyRotation.keyID(target))) as the master key; "
                            + "this command was given the old one (\(cipher.source)). Give every instance the new key "
                            + "first, then finish with it"
                    )
                }
                let report = try await MasterKeyRotation.finish(store: store)
                return Self.lines(report, state: "finished")
                    + ["only the new key opens this database now; an instance started with the old key is refused"]
            }
            let records = try await store.masterKeyRecords()
            let keyFilePath: String? =
                if case .keyFile(let path, _) = cipher.source { path } else { nil }
            if keyFilePath == nil, newKey == nil, !records.isRotating {
                throw MasterKeyError(
                    .invalidKey,
                    "the master key comes from \(cipher.source): give the new key in "
                        + "\(CredentialCipher.newKeyEnvironmentVariable), "
                        + "\(CredentialCipher.newKeyEnvironmentVariable)\(SuppliedSecret.fileSuffix) or --new-key-file"
                )
            }
            let (target, opened) = try await MasterKeyRotation.begin(store: store, newKey: newKey)
            // The database holds both keys now, each sealed under the other: replacing the file cannot lose either.
            if let keyFilePath, !target.hasSameKey(as: cipher) {
                try target.replaceKeyFile(at: keyFilePath)
            }
            let report = try await MasterKeyRotation.reseal(store: store)
            let keyHome = keyFilePath.map { "the key file \($0) holds it now" } ?? "give it to every instance as \(cipher.source)"
            return Self.lines(report, state: opened ? "opened" : "resumed")
                + [
                    "the rotation stays open, both keys open every secret: \(keyHome), restart every instance, then run "
                        + "`gateway keys rotate-master --finish`"
                ]
        }
    }

    /// The report as tab-separated lines: the rotation's state and keys, then one line per kind of secret, then one
    /// per value that opens under neither key.
    static func lines(_ report: MasterKeyRotation.Report, state: String) -> [String] {
        var lines = [OperatorOutput.line("rotation", state, "new-key", report.newKeyID, "old-key", report.oldKeyID)]
        for kind in SealedSecretKind.allCases {
            lines.append(
                OperatorOutput.line(
                    kind.description,
                    "resealed",
                    String(report.resealed[kind, default: 0]),
                    "already",
                    String(report.alreadyResealed[kind, default: 0])
                )
            )
        }
        for row in report.undecryptable {
            lines.append(OperatorOutput.line("undecryptable", row.kind.description, row.tenantId, row.id))
        }
        return lines
    }
}
