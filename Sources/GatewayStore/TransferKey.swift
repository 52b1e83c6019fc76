import Crypto
public import Foundation

/// The gateway's HPKE key pair for moving connections between gateways: another gateway seals an export to this
/// gateway's public key (`GET /v1/connections/import-key`), and only this gateway's private key opens it, so an
/// export is never handed out beside the key that opens it.
///
/// HPKE (RFC 9180) in base mode with DHKEM(X25519, HKDF-SHA256), HKDF-SHA256 and ChaCha20-Poly1305 (swift-crypto's
/// `HPKE`). A sealed bundle is `encapsulated key (32 bytes) ‖ ciphertext`. The private key lives in the data folder
/// as `transfer.key` (base64 of its 32 raw bytes), created on first run with mode 0600 like `master.key`, and is
/// never written to the database.
public struct TransferKey: Sendable {
    /// The key file's name in the data folder.
    public static let fileName = "transfer.key"
    /// The cipher suite, as the import-key route names it.
    public static let suiteName = "DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305"
    static var suite: HPKE.Ciphersuite { .Curve25519_SHA256_ChachaPoly }
    /// Binds a bundle to this use: a sealed message made for something else does not open as a bundle.
    static let info = Data("brokergateway connections export v2".utf8)
    static let encapsulatedKeyByteCount = 32

    /// The private key's raw bytes (`Curve25519.KeyAgreement.PrivateKey` is rebuilt from them when used).
    private let privateKeyBytes: [UInt8]
    /// The public key's 32 raw bytes.
    public let publicKey: [UInt8]

    init(privateKey: Curve25519.KeyAgreement.PrivateKey) {
        privateKeyBytes = Array(privateKey.rawRepresentation)
        publicKey = Array(privateKey.publicKey.rawRepresentation)
    }

    /// The public key as the import-key route shows it and an export request names it: base64 of 32 bytes.
    public var publicKeyBase64: String { Data(publicKey).base64EncodedString() }

    /// A key pair that exists only in memory: for tests.
    public static func random() -> TransferKey {
        TransferKey(privateKey: Curve25519.KeyAgreement.PrivateKey())
    }

    /// The environment variable that supplies the private key (base64 of its 32 raw bytes, e.g.
    /// `openssl rand -base64 32`), or with `_FILE` the file that holds it.
    public static let environmentVariable = "BROKERGATEWAY_TRANSFER_KEY"

    /// The key `BROKERGATEWAY_TRANSFER_KEY` or `BROKERGATEWAY_TRANSFER_KEY_FILE` supplies (``SuppliedSecret``), so a
    /// fleet shares it from its environment; otherwise the data folder's `transfer.key`, made on first use (mode
    /// 0600, a regular file, never a link; two instances starting together end up with the same key).
    /// - Throws: `MasterKeyError` naming the variable or the file, when it is malformed, unsafe or unreadable; never
    ///   with key material.
    public static func load(environment: [String: String] = [:], dataDirectory: URL) throws -> TransferKey {
        if var supplied = try SuppliedSecret.named(environmentVariable, in: environment) {
            defer { supplied.erase() }
            guard var bytes = CredentialCipher.decodeBase64(supplied.text),
                let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: bytes)
            else {
                throw MasterKeyError(
                    .invalidKey,
                    "\(supplied.origin) must be the base64 of a 32-byte X25519 private key (make one with `openssl rand -base64 32`)"
                )
            }
            for index in bytes.indices { bytes[index] = 0 }
            return TransferKey(privateKey: key)
        }
        let directory = dataDirectory.path(percentEncoded: false)
        let path = dataDirectory.appending(path: fileName).path(percentEncoded: false)
        let name = "the transfer key file"
        for _ in 0..<3 {
            if var contents = try OwnerOnlyKeyFile.existingContents(at: path, name: name) {
                defer { for index in contents.indices { contents[index] = 0 } }
                guard let bytes = CredentialCipher.decodeBase64(String(decoding: contents, as: UTF8.self)),
                    let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: bytes)
                else {
                    throw MasterKeyError(.invalidKey, "\(name) \(path) must be the base64 of a 32-byte X25519 private key")
                }
                return TransferKey(privateKey: key)
            }
            let key = Curve25519.KeyAgreement.PrivateKey()
            var text = Array(key.rawRepresentation.base64EncodedString().utf8) + [UInt8(ascii: "\n")]
            defer { for index in text.indices { text[index] = 0 } }
            if try OwnerOnlyKeyFile.create(at: path, directory: directory, contents: text, name: name) {
                return TransferKey(privateKey: key)
            }
        }
        throw MasterKeyError(.keyFileUnavailable, "\(name) \(path) could not be read or created")
    }

    /// A recipient's public key from its base64 text; `nil` unless it is 32 bytes of a valid X25519 key.
    public static func recipient(base64 text: String) -> [UInt8]? {
        guard text.count <= 128, let bytes = CredentialCipher.decodeBase64(text), bytes.count == 32,
            (try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: bytes)) != nil
        else { return nil }
        return bytes
    }

    /// Seals `plaintext` to the recipient whose raw public key this is.
    public static func seal(_ plaintext: Data, to recipient: [UInt8]) throws -> Data {
        let key = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: recipient)
        var sender = try HPKE.Sender(recipientKey: key, ciphersuite: suite, info: info)
        return sender.encapsulatedKey + (try sender.seal(plaintext))
    }

    /// Opens a bundle sealed to this key; `nil` when it was sealed to another key, altered, or is not a bundle.
    public func open(_ sealed: Data) -> Data? {
        guard sealed.count > Self.encapsulatedKeyByteCount,
            let privateKey = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: privateKeyBytes)
        else { return nil }
        let encapsulated = sealed.prefix(Self.encapsulatedKeyByteCount)
        let ciphertext = sealed.dropFirst(Self.encapsulatedKeyByteCount)
        guard
            var recipient = try? HPKE.Recipient(
                privateKey: privateKey,
                ciphersuite: Self.suite,
                info: Self.info,
                encapsulatedKey: Data(encapsulated)
            )
        else { return nil }
        return try? recipient.open(ciphertext)
    }
}
