import Foundation
import GatewayCore
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

@Suite("Master key")
struct MasterKeyTests {
    static let credentials = BrokerCredentials(["token": "abc"])

    func keyPath(_ directory: URL) -> String {
        directory.appending(path: CredentialCipher.keyFileName).path(percentEncoded: false)
    }

    /// Whether two ciphers hold the same key: what one seals, the other opens.
    func sameKey(_ lhs: CredentialCipher, _ rhs: CredentialCipher) -> Bool {
        guard let sealed = try? lhs.seal(Self.credentials, tenantId: "t", connectionId: "c") else { return false }
        return (try? rhs.open(sealed, tenantId: "t", connectionId: "c")) == Self.credentials
    }

    @Test("the key file is created with mode 0600 on first run and reused on the second")
    func keyFileCreatedThenReused() async throws {
        try await withTemporaryDirectory { directory in
            let dataDirectory = directory.appending(path: "nested/data")
            let first = try CredentialCipher.load(environment: [:], dataDirectory: dataDirectory)
            let path = keyPath(dataDirectory)
            #expect(first.source == .keyFile(path: path, created: true))
            #expect(try posixPermissions(path) == 0o600)
            let contents = try String(contentsOfFile: path, encoding: .utf8)
            #expect(Data(base64Encoded: contents.trimmingCharacters(in: .whitespacesAndNewlines))?.count == 32)
            // No temporary file is left behind.
            #expect(try FileManager.default.contentsOfDirectory(atPath: dataDirectory.path(percentEncoded: false)) == ["master.key"])

            let second = try CredentialCipher.load(environment: [:], dataDirectory: dataDirectory)
            #expect(second.source == .keyFile(path: path, created: false))
            #expect(sameKey(first, second))
            #expect(!sameKey(first, .random()))
        }
    }

    @Test("the environment variable wins over a key file")
    func environmentWins() async throws {
        try await withTemporaryDirectory { directory in
            let bytes = (0..<32).map { UInt8($0) }
            let environment = [CredentialCipher.environmentVariable: Data(bytes).base64EncodedString()]

            let fromEnvironment = try CredentialCipher.load(environment: environment, dataDirectory: directory)
            #expect(fromEnvironment.source == .environment)
            #expect(!FileManager.default.fileExists(atPath: keyPath(directory)), "no key file is made when the variable is set")
            #expect(sameKey(fromEnvironment, try CredentialCipher(keyBytes: bytes)))

            let fromFile = try CredentialCipher.load(environment: [:], dataDirectory: directory)
            let again = try CredentialCipher.load(environment: environment, dataDirectory: directory)
            #expect(again.source == .environment)
            #expect(sameKey(again, fromEnvironment))
            #expect(!sameKey(again, fromFile))
        }
    }

    @Test("URL-safe base64 and missing padding are accepted")
    func base64Variants() throws {
        let bytes = [UInt8](repeating: 0xfb, count: 32)
        let standard = Data(bytes).base64EncodedString()
        let urlSafe = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        #expect(sameKey(try CredentialCipher(base64Key: standard), try CredentialCipher(base64Key: " \(urlSafe)\n")))
    }

    @Test(
        "a wrong-length or malformed environment key is a clear error",
        arguments: [
            Data(count: 16).base64EncodedString(), Data(count: 31).base64EncodedString(),
            Data(count: 33).base64EncodedString(), Data(count: 64).base64EncodedString(), "not base64!", "",
        ]
    )
    func invalidEnvironmentKey(value: String) async throws {
        try await withTemporaryDirectory { directory in
            let error = expectMasterKeyError(.invalidKey) {
                try CredentialCipher.load(
                    environment: [CredentialCipher.environmentVariable: value],
                    dataDirectory: directory
                )
            }
            #expect(error?.message.contains(CredentialCipher.environmentVariable) == true)
            #expect(error?.message.contains("32 bytes") == true)
            if !value.isEmpty { #expect(error?.message.contains(value) == false, "the message never repeats the key") }
            #expect(!FileManager.default.fileExists(atPath: keyPath(directory)))
        }
    }

    @Test("an existing key file that group or others can access is refused", arguments: [0o644, 0o640, 0o604, 0o660, 0o606])
    func overPermissiveKeyFileRefused(mode: Int) async throws {
        try await withTemporaryDirectory { directory in
            _ = try CredentialCipher.load(environment: [:], dataDirectory: directory)
            let path = keyPath(directory)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            let error = expectMasterKeyError(.insecureKeyFile) {
                try CredentialCipher.load(environment: [:], dataDirectory: directory)
            }
            #expect(error?.message.contains("chmod 600") == true)
            #expect(error?.message.contains(String(mode, radix: 8)) == true)

            try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: path)
            #expect(
                try CredentialCipher.load(environment: [:], dataDirectory: directory).source
                    == .keyFile(path: path, created: false)
            )
        }
    }

    @Test("a key file that is a symbolic link or holds a bad key is refused")
    func badKeyFiles() async throws {
        try await withTemporaryDirectory { directory in
            let target = directory.appending(path: "elsewhere.key").path(percentEncoded: false)
            _ = FileManager.default.createFile(
                atPath: target,
                contents: Data(Data(count: 32).base64EncodedString().utf8),
                attributes: [.posixPermissions: 0o600]
            )
            try FileManager.default.createSymbolicLink(atPath: keyPath(directory), withDestinationPath: target)
            expectMasterKeyError(.insecureKeyFile) { try CredentialCipher.load(environment: [:], dataDirectory: directory) }

            try FileManager.default.removeItem(atPath: keyPath(directory))
            _ = FileManager.default.createFile(
                atPath: keyPath(directory),
                contents: Data("c2hvcnQ=\n".utf8),
                attributes: [.posixPermissions: 0o600]
            )
            expectMasterKeyError(.invalidKey) { try CredentialCipher.load(environment: [:], dataDirectory: directory) }
        }
    }
}
