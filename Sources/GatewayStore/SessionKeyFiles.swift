public import Crypto
public import Foundation
import GatewayCore

/// The keys end users' access tokens are signed with: P-256 private keys in `<data>/session-keys/`, one file each
/// (`<kid>.key`, base64 of the raw key, mode 0600, never a link). The newest (by name) signs; every one verifies, so
/// adding a newer file rotates the signing key without logging anyone out, and removing an old one (after the access
/// token lifetime) retires it.
public enum SessionKeyFiles {
    /// The folder under the data folder that holds the signing keys.
    public static let directoryName = "session-keys"

    /// The keys, oldest first, with their ids; a first key is made when the folder has none.
    /// - Throws: `MasterKeyError` naming the file that is unsafe or unreadable; never with key material.
    public static func load(dataDirectory: URL, now: Date = Date()) throws -> [(kid: String, key: P256.Signing.PrivateKey)] {
        let directory = dataDirectory.appending(path: directoryName)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path(percentEncoded: false))
            .filter { $0.hasSuffix(".key") }.sorted()
        var keys: [(kid: String, key: P256.Signing.PrivateKey)] = []
        for name in names {
            let path = directory.appending(path: name).path(percentEncoded: false)
            guard var contents = try OwnerOnlyKeyFile.existingContents(at: path, name: "the session key file") else { continue }
            defer { for index in contents.indices { contents[index] = 0 } }
            guard let bytes = CredentialCipher.decodeBase64(String(decoding: contents, as: UTF8.self)),
                let key = try? P256.Signing.PrivateKey(rawRepresentation: bytes)
            else {
                throw MasterKeyError(.invalidKey, "the session key file \(path) must be the base64 of a raw P-256 private key")
            }
            keys.append((String(name.dropLast(".key".count)), key))
        }
        if keys.isEmpty {
            let kid = "sk" + String(Int64(now.timeIntervalSince1970)) + "-" + RandomIdentifier.base32(count: 6)
            let key = P256.Signing.PrivateKey()
            var text = Array(key.rawRepresentation.base64EncodedString().utf8) + [UInt8(ascii: "\n")]
            defer { for index in text.indices { text[index] = 0 } }
            let path = directory.appending(path: kid + ".key").path(percentEncoded: false)
            guard
                try OwnerOnlyKeyFile.create(
                    at: path,
                    directory: directory.path(percentEncoded: false),
                    contents: text,
                    name: "the session key file"
                )
            else {
                return try load(dataDirectory: dataDirectory, now: now)
            }
            keys.append((kid, key))
        }
        return keys
    }
}
