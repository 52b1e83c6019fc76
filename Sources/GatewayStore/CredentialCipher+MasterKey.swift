import Crypto
public import Foundation

extension CredentialCipher {
    /// The environment variable that holds the master key: the base64 of 32 random bytes
    /// (`openssl rand -base64 32`).
    public static let environmentVariable = "BROKERGATEWAY_MASTER_KEY"
    /// The key file's name in the data folder.
    public static let keyFileName = "master.key"

    /// The gateway's master key, found by this rule:
    ///
    /// 1. `BROKERGATEWAY_MASTER_KEY` in `environment`, or the file `BROKERGATEWAY_MASTER_KEY_FILE` names (a mounted
    ///    secret: ``SuppliedSecret``), when set, wins: the base64 (standard or URL-safe) of exactly 32 bytes. Any
    ///    other value, including an empty one, or both set, is an error rather than a silent fall-back.
    /// 2. Otherwise `<dataDirectory>/master.key`: base64 of 32 bytes on one line. It must be a regular file (not a
    ///    symbolic link) that neither group nor others can access (mode `0600` or stricter); a wider mode is refused.
    /// 3. When there is no key file, one is made with a new random key: written to a temporary file created with
    ///    `O_CREAT|O_EXCL` and mode `0600`, then hard-linked into place, so the key file never exists half-written
    ///    or with a wider mode, and two instances starting together end up using the same key. The data folder is
    ///    created (mode `0700`) if needed.
    ///
    /// - Throws: `MasterKeyError` with a message that says what is wrong and never contains key material.
    public static func load(environment: [String: String], dataDirectory: URL) throws -> CredentialCipher {
        if var supplied = try SuppliedSecret.named(environmentVariable, in: environment) {
            defer { supplied.erase() }
            return try CredentialCipher(
                base64Key: supplied.text,
                source: supplied.path.map { .secretFile(path: $0) } ?? .environment,
                origin: supplied.origin
            )
        }
        let directory = dataDirectory.path(percentEncoded: false)
        let path = dataDirectory.appending(path: keyFileName).path(percentEncoded: false)
        // A race with another instance creating the file is resolved by reading the winner's file.
        for _ in 0..<3 {
            if var contents = try OwnerOnlyKeyFile.existingContents(at: path, name: "the master key file") {
                defer { for index in contents.indices { contents[index] = 0 } }
                return try CredentialCipher(
                    base64Key: String(decoding: contents, as: UTF8.self),
                    source: .keyFile(path: path, created: false),
                    origin: "the master key file \(path)"
                )
            }
            let key = SymmetricKey(size: .bits256)
            var text = Array(key.withUnsafeBytes { Data($0) }.base64EncodedString().utf8) + [UInt8(ascii: "\n")]
            defer { for index in text.indices { text[index] = 0 } }
            if try OwnerOnlyKeyFile.create(at: path, directory: directory, contents: text, name: "the master key file") {
                return CredentialCipher(key: key, source: .keyFile(path: path, created: true))
            }
        }
        throw MasterKeyError(.keyFileUnavailable, "the master key file \(path) could not be read or created")
    }
}

extension CredentialCipher {
    /// The environment variable that holds a master key rotation's new key (`gateway keys rotate-master`), or, with
    /// `_FILE`, the file that does (``SuppliedSecret``).
    public static let newKeyEnvironmentVariable = "BROKERGATEWAY_NEW_MASTER_KEY"

    /// The new key a rotation is to use, when `environment` supplies one (``newKeyEnvironmentVariable``); `nil`
    /// otherwise.
    /// - Throws: `MasterKeyError` when it is supplied but is not the base64 of 32 bytes, or is both set and a file.
    public static func newKey(environment: [String: String]) throws -> CredentialCipher? {
        guard var supplied = try SuppliedSecret.named(newKeyEnvironmentVariable, in: environment) else { return nil }
        defer { supplied.erase() }
        return try CredentialCipher(base64Key: supplied.text, source: .supplied, origin: "the new master key (\(supplied.origin))")
    }

    /// Whether `other` was made with the same key as this cipher.
    public func hasSameKey(as other: CredentialCipher) -> Bool { key == other.key }

    /// Writes this cipher's key to the key file at `path`, replacing it at once (the file holds the old key or the new
    /// one, never a mix), owner-only: a rotation's new key in a deployment that keeps its key in the data folder.
    /// - Throws: `MasterKeyError` (`keyFileUnavailable`) when it cannot be written.
    public func replaceKeyFile(at path: String) throws {
        var text = Array(key.withUnsafeBytes { Data($0) }.base64EncodedString().utf8) + [UInt8(ascii: "\n")]
        defer { for index in text.indices { text[index] = 0 } }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path(percentEncoded: false)
        try OwnerOnlyKeyFile.replace(at: path, directory: directory, contents: text, name: "the master key file")
    }
}
