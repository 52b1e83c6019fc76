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

    /// The environment variable that supplies the keys instead of the folder (``SuppliedSecret``; with `_FILE`, the
    /// file that holds them): `<kid>=<base64 of the raw P-256 key>` entries separated by commas or line breaks,
    /// oldest first, so the last signs and every one verifies, as in the folder. A key id is 1 to 64 letters, digits,
    /// `-` or `_`. Every instance given the same value signs and verifies the same tokens.
    public static let environmentVariable = "BROKERGATEWAY_SESSION_KEYS"

    /// The keys `BROKERGATEWAY_SESSION_KEYS` (or its `_FILE`) supplies, oldest first, with their ids; otherwise the
    /// data folder's, where a first key is made when the folder has none.
    /// - Throws: `MasterKeyError` naming the variable or the file that is malformed, unsafe or unreadable; never with
    ///   key material.
    public static func load(
        environment: [String: String] = [:],
        dataDirectory: URL,
        now: Date = Date()
    ) throws -> [(kid: String, key: P256.Signing.PrivateKey)] {
        if var supplied = try SuppliedSecret.named(environmentVariable, in: environment) {
            defer { supplied.erase() }
            return try ring(supplied)
        }
        return try loadFolder(dataDirectory: dataDirectory, now: now)
    }

    /// The keys of a supplied ring, in the order given.
    static func ring(_ supplied: SuppliedSecret) throws -> [(kid: String, key: P256.Signing.PrivateKey)] {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_".utf8)
        var keys: [(kid: String, key: P256.Signing.PrivateKey)] = []
        let entries = supplied.bytes.split(whereSeparator: { $0 == UInt8(ascii: ",") || $0 == 0x0A || $0 == 0x0D })
        for (number, entry) in entries.enumerated() {
            let trimmed = SuppliedSecret.trimmed(Array(entry))
            if trimmed.isEmpty { continue }
            let parts = trimmed.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let kid = parts[0]
            guard parts.count == 2, (1...64).contains(kid.count), kid.allSatisfy(allowed.contains) else {
                throw MasterKeyError(
                    .invalidKey,
                    "\(supplied.origin): entry \(number + 1) must be <key id>=<base64 key>, the id 1 to 64 letters, digits, - or _"
                )
            }
            let id = String(decoding: kid, as: UTF8.self)
            guard !keys.contains(where: { $0.kid == id }) else {
                throw MasterKeyError(.invalidKey, "\(supplied.origin): the key id \(id) is given twice")
            }
            guard var bytes = CredentialCipher.decodeBase64(String(decoding: parts[1], as: UTF8.self)),
                let key = try? P256.Signing.PrivateKey(rawRepresentation: bytes)
            else {
                throw MasterKeyError(
                    .invalidKey,
                    "\(supplied.origin): the key \(id) must be the base64 of a raw 32-byte P-256 private key (`openssl rand -base64 32`)"
                )
            }
            for index in bytes.indices { bytes[index] = 0 }
            keys.append((id, key))
        }
        guard !keys.isEmpty else { throw MasterKeyError(.invalidKey, "\(supplied.origin) holds no key") }
        return keys
    }

    /// The data folder's keys, oldest first, with their ids; a first key is made when the folder has none.
    static func loadFolder(dataDirectory: URL, now: Date) throws -> [(kid: String, key: P256.Signing.PrivateKey)] {
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
                return try loadFolder(dataDirectory: dataDirectory, now: now)
            }
            keys.append((kid, key))
        }
        return keys
    }
}
