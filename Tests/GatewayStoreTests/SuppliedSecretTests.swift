import Crypto
import Foundation
import GatewayCore
import Testing

@testable import GatewayStore

/// Secrets for a fleet (issue 31): the master key, the transfer key and the session signing keys each come from an
/// environment variable or a mounted file (`NAME_FILE`), so instances start from the same environment with no file
/// copied and nothing written to their data folders; a malformed or doubly given secret stops them with a message that
/// names the variable or the file and never the secret.
@Suite("Store: secrets from the environment or a mounted file")
struct SuppliedSecretTests {
    static let masterKey = Data((0..<32).map { UInt8($0) }).base64EncodedString()

    /// A mounted secret as Kubernetes makes one: a world-readable file reached through a symbolic link.
    func mounted(_ contents: String, in directory: URL, name: String) throws -> String {
        let hidden = directory.appending(path: "..data-\(name)")
        try Data(contents.utf8).write(to: hidden)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: hidden.path(percentEncoded: false))
        let link = directory.appending(path: name)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: hidden)
        return link.path(percentEncoded: false)
    }

    @Test func theMasterKeyFromAMountedFileOpensWhatTheSameKeyFromTheEnvironmentSealed() async throws {
        try await withTemporaryDirectory { directory in
            let secrets = directory.appending(path: "secrets")
            let data = directory.appending(path: "data")
            try FileManager.default.createDirectory(at: secrets, withIntermediateDirectories: true)
            let path = try mounted(Self.masterKey + "\n", in: secrets, name: "master-key")
            let fromFile = try CredentialCipher.load(environment: ["BROKERGATEWAY_MASTER_KEY_FILE": path], dataDirectory: data)
            #expect(fromFile.source == .secretFile(path: path))
            let fromEnvironment = try CredentialCipher.load(environment: ["BROKERGATEWAY_MASTER_KEY": Self.masterKey], dataDirectory: data)
            #expect(fromEnvironment.source == .environment)
            let sealed = try fromEnvironment.seal(BrokerCredentials(["secretKey": "s3cret"]), tenantId: "ten_a", connectionId: "conn_a")
            #expect(try fromFile.open(sealed, tenantId: "ten_a", connectionId: "conn_a") == BrokerCredentials(["secretKey": "s3cret"]))
            // Nothing was written where the key file would be.
            #expect(!FileManager.default.fileExists(atPath: data.appending(path: CredentialCipher.keyFileName).path(percentEncoded: false)))
        }
    }

    @Test func bothFormsAnEmptyValueAMissingFileOrAnEmptyFileAreRefusedWithoutTheSecret() async throws {
        try await withTemporaryDirectory { directory in
            let path = try mounted(Self.masterKey, in: directory, name: "master-key")
            let both = expectMasterKeyError(.invalidKey) {
                try CredentialCipher.load(
                    environment: ["BROKERGATEWAY_MASTER_KEY": Self.masterKey, "BROKERGATEWAY_MASTER_KEY_FILE": path],
                    dataDirectory: directory
                )
            }
            #expect(both?.message.contains("not both") == true)
            #expect(both?.message.contains(Self.masterKey) == false)
            expectMasterKeyError(.invalidKey) {
                try CredentialCipher.load(environment: ["BROKERGATEWAY_MASTER_KEY": " \n"], dataDirectory: directory)
            }
            expectMasterKeyError(.invalidKey) {
                try CredentialCipher.load(environment: ["BROKERGATEWAY_MASTER_KEY_FILE": ""], dataDirectory: directory)
            }
            let missing = directory.appending(path: "nowhere").path(percentEncoded: false)
            let unreadable = expectMasterKeyError(.keyFileUnavailable) {
                try CredentialCipher.load(environment: ["BROKERGATEWAY_MASTER_KEY_FILE": missing], dataDirectory: directory)
            }
            #expect(unreadable?.message.contains(missing) == true)
            let empty = try mounted("\n", in: directory, name: "empty")
            expectMasterKeyError(.invalidKey) {
                try CredentialCipher.load(environment: ["BROKERGATEWAY_MASTER_KEY_FILE": empty], dataDirectory: directory)
            }
            let short = try mounted("c2hvcnQ=", in: directory, name: "short")
            let invalid = expectMasterKeyError(.invalidKey) {
                try CredentialCipher.load(environment: ["BROKERGATEWAY_MASTER_KEY_FILE": short], dataDirectory: directory)
            }
            #expect(invalid?.message.contains(short) == true)
            #expect(invalid?.message.contains("c2hvcnQ=") == false)
        }
    }

    @Test func theTransferKeyFromTheEnvironmentIsTheSameOnEveryInstanceAndNoFileIsMade() async throws {
        try await withTemporaryDirectory { directory in
            let secret = Curve25519.KeyAgreement.PrivateKey()
            let environment = ["BROKERGATEWAY_TRANSFER_KEY": secret.rawRepresentation.base64EncodedString()]
            let first = try TransferKey.load(environment: environment, dataDirectory: directory.appending(path: "one"))
            let second = try TransferKey.load(environment: environment, dataDirectory: directory.appending(path: "two"))
            #expect(first.publicKey == Array(secret.publicKey.rawRepresentation))
            #expect(second.publicKey == first.publicKey)
            // What one instance's public key seals, another instance opens.
            let sealed = try TransferKey.seal(Data("bundle".utf8), to: first.publicKey)
            #expect(second.open(sealed) == Data("bundle".utf8))
            #expect(!FileManager.default.fileExists(atPath: directory.appending(path: "one").path(percentEncoded: false)))
            let path = try mounted(secret.rawRepresentation.base64EncodedString(), in: directory, name: "transfer-key")
            let fromFile = try TransferKey.load(environment: ["BROKERGATEWAY_TRANSFER_KEY_FILE": path], dataDirectory: directory)
            #expect(fromFile.publicKey == first.publicKey)
            let bad = expectMasterKeyError(.invalidKey) {
                try TransferKey.load(environment: ["BROKERGATEWAY_TRANSFER_KEY": "bm90IGEga2V5"], dataDirectory: directory)
            }
            #expect(bad?.message.contains("BROKERGATEWAY_TRANSFER_KEY") == true)
            #expect(bad?.message.contains("bm90IGEga2V5") == false)
        }
    }

    @Test func sessionKeysFromTheEnvironmentKeepTheirOrderAndIdsAndNoFolderIsMade() async throws {
        try await withTemporaryDirectory { directory in
            let old = P256.Signing.PrivateKey()
            let new = P256.Signing.PrivateKey()
            let value = "sk-2026-old=\(old.rawRepresentation.base64EncodedString()),\n sk-2026-new=\(new.rawRepresentation.base64EncodedString())\n"
            let data = directory.appending(path: "data")
            let keys = try SessionKeyFiles.load(environment: ["BROKERGATEWAY_SESSION_KEYS": value], dataDirectory: data)
            #expect(keys.map(\.kid) == ["sk-2026-old", "sk-2026-new"])
            #expect(keys.map { $0.key.rawRepresentation } == [old.rawRepresentation, new.rawRepresentation])
            #expect(!FileManager.default.fileExists(atPath: data.path(percentEncoded: false)))
            let path = try mounted(value, in: directory, name: "session-keys")
            let fromFile = try SessionKeyFiles.load(environment: ["BROKERGATEWAY_SESSION_KEYS_FILE": path], dataDirectory: data)
            #expect(fromFile.map(\.kid) == ["sk-2026-old", "sk-2026-new"])

            let encoded = new.rawRepresentation.base64EncodedString()
            for malformed in ["a=\(encoded),a=\(encoded)", "bad id=\(encoded)", "nokey", "k=bm90IGEga2V5", " , \n"] {
                let error = expectMasterKeyError(.invalidKey) {
                    try SessionKeyFiles.load(environment: ["BROKERGATEWAY_SESSION_KEYS": malformed], dataDirectory: data)
                }
                #expect(error?.message.contains("BROKERGATEWAY_SESSION_KEYS") == true, "\(malformed)")
                #expect(error?.message.contains(encoded) == false)
            }
        }
    }
}
