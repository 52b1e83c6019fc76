import Crypto
import Foundation
import GatewayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The master key file's I/O, kept apart from `CredentialCipher` (whose `open` would shadow `open(2)`).
enum MasterKeyFile {
    /// The key in an existing key file, or `nil` when there is none.
    static func existingKey(at path: String) throws -> CredentialCipher? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        if descriptor < 0 {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP {
                throw MasterKeyError(.insecureKeyFile, "the master key file \(path) is a symbolic link; use a regular file")
            }
            throw MasterKeyError(
                .keyFileUnavailable, "the master key file \(path) cannot be opened: \(String(cString: strerror(code)))")
        }
        defer { _ = close(descriptor) }

        // Checked on the open descriptor, so the file cannot be swapped between the check and the read.
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw MasterKeyError(.keyFileUnavailable, "the master key file \(path) cannot be inspected")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw MasterKeyError(.insecureKeyFile, "the master key file \(path) is not a regular file")
        }
        let permissions = status.st_mode & 0o777
        guard permissions & 0o077 == 0 else {
            throw MasterKeyError(
                .insecureKeyFile,
                "the master key file \(path) has mode \(String(permissions, radix: 8)), which lets group or others "
                    + "access it; refusing to use it. Run `chmod 600 \(path)` if it was never exposed, otherwise "
                    + "treat the key as compromised")
        }

        var contents: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while contents.count <= 4096 {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw MasterKeyError(.keyFileUnavailable, "the master key file \(path) cannot be read")
            }
            if count == 0 { break }
            contents.append(contentsOf: buffer[0..<count])
        }
        defer {
            for index in contents.indices { contents[index] = 0 }
        }
        return try CredentialCipher(
            base64Key: String(decoding: contents, as: UTF8.self), source: .keyFile(path: path, created: false),
            origin: "the master key file \(path)")
    }

    /// Makes the key file, or returns `nil` when another process made it first.
    static func createKey(at path: String, directory: String) throws -> CredentialCipher? {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw MasterKeyError(.keyFileUnavailable, "the data folder \(directory) cannot be created")
        }

        let key = SymmetricKey(size: .bits256)
        var text = Array(key.withUnsafeBytes { Data($0) }.base64EncodedString().utf8)
        text.append(UInt8(ascii: "\n"))
        defer {
            for index in text.indices { text[index] = 0 }
        }

        let temporary = directory + "/.\(CredentialCipher.keyFileName).\(RandomIdentifier.base32(count: 12)).tmp"
        if let code = try writeNewFile(at: temporary, contents: text, origin: path) {
            throw MasterKeyError(
                .keyFileUnavailable, "the master key file \(path) cannot be created: \(String(cString: strerror(code)))")
        }
        defer { _ = unlink(temporary) }

        // link(2) never replaces an existing file: exactly one of several racing instances wins.
        if link(temporary, path) == 0 {
            fsyncDirectory(directory)
            return CredentialCipher(key: key, source: .keyFile(path: path, created: true))
        }
        let code = errno
        if code == EEXIST { return nil }
        guard code == EPERM || code == ENOTSUP || code == EOPNOTSUPP || code == ENOSYS else {
            throw MasterKeyError(
                .keyFileUnavailable, "the master key file \(path) cannot be created: \(String(cString: strerror(code)))")
        }
        // A filesystem without hard links: create the file in place, still exclusively and with mode 0600.
        if let code = try writeNewFile(at: path, contents: text, origin: path) {
            if code == EEXIST { return nil }
            throw MasterKeyError(
                .keyFileUnavailable, "the master key file \(path) cannot be created: \(String(cString: strerror(code)))")
        }
        fsyncDirectory(directory)
        return CredentialCipher(key: key, source: .keyFile(path: path, created: true))
    }

    /// Creates a file that did not exist, readable and writable by its owner only from the first moment.
    /// - Returns: `errno` when the file cannot be created (`EEXIST` when it already exists), `nil` on success.
    private static func writeNewFile(at path: String, contents: [UInt8], origin: String) throws -> Int32? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return errno }
        var isOpen = true
        defer { if isOpen { _ = close(descriptor) } }
        func fail(_ problem: String) -> MasterKeyError {
            if isOpen { _ = close(descriptor) }
            isOpen = false
            _ = unlink(path)
            return MasterKeyError(.keyFileUnavailable, "the master key file \(origin) cannot be \(problem)")
        }
        // The umask can only narrow 0600; make it exactly 0600 so the owner can read it back.
        guard fchmod(descriptor, 0o600) == 0 else { throw fail("given mode 0600") }
        var written = 0
        while written < contents.count {
            let count = contents.withUnsafeBytes { bytes in
                write(descriptor, bytes.baseAddress.map { $0 + written }, bytes.count - written)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw fail("written")
            }
            written += count
        }
        guard fsync(descriptor) == 0 else { throw fail("flushed to disk") }
        isOpen = false
        guard close(descriptor) == 0 else { throw fail("written") }
        return nil
    }

    private static func fsyncDirectory(_ directory: String) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = close(descriptor)
    }
}
