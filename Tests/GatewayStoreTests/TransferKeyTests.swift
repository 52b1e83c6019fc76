import Foundation
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

/// The gateway's HPKE key pair for imports: kept in the data folder like the master key, and opening only what was
/// sealed to it.
@Suite("Store: the transfer key")
struct TransferKeyTests {
    @Test func itIsMadeOnceOwnerOnlyAndReadBack() async throws {
        try await withTemporaryDirectory { directory in
            let first = try TransferKey.load(dataDirectory: directory)
            let path = directory.appending(path: TransferKey.fileName).path(percentEncoded: false)
            #expect(try posixPermissions(path) == 0o600)
            let second = try TransferKey.load(dataDirectory: directory)
            #expect(first.publicKey == second.publicKey)
            #expect(first.publicKey.count == 32)
            // The file holds the private key, not the public one.
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(!text.contains(first.publicKeyBase64))
        }
    }

    @Test func aLinkOrAWideModeIsRefused() async throws {
        try await withTemporaryDirectory { directory in
            let elsewhere = directory.appending(path: "elsewhere.key")
            try Data((Data(repeating: 7, count: 32).base64EncodedString() + "\n").utf8).write(to: elsewhere)
            let path = directory.appending(path: TransferKey.fileName)
            try FileManager.default.createSymbolicLink(at: path, withDestinationURL: elsewhere)
            expectMasterKeyError(.insecureKeyFile) { try TransferKey.load(dataDirectory: directory) }
            try FileManager.default.removeItem(at: path)
            try FileManager.default.copyItem(at: elsewhere, to: path)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path.path(percentEncoded: false))
            expectMasterKeyError(.insecureKeyFile) { try TransferKey.load(dataDirectory: directory) }
        }
    }

    @Test func onlyTheRecipientOpensWhatIsSealedToIt() throws {
        let recipient = TransferKey.random()
        let other = TransferKey.random()
        let message = Data(#"{"secret":"s3cret"}"#.utf8)
        let sealed = try TransferKey.seal(message, to: recipient.publicKey)
        #expect(sealed.range(of: Data("s3cret".utf8)) == nil)
        #expect(recipient.open(sealed) == message)
        #expect(other.open(sealed) == nil)
        var altered = sealed
        altered[altered.count - 1] ^= 1
        #expect(recipient.open(altered) == nil)
        #expect(recipient.open(Data(repeating: 0, count: 10)) == nil)
        #expect(TransferKey.recipient(base64: recipient.publicKeyBase64) == recipient.publicKey)
        #expect(TransferKey.recipient(base64: "AAAA") == nil)
    }
}
