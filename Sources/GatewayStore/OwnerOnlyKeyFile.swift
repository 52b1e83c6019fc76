import Foundation
import GatewayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The I/O of the secret key files in the data folder (`master.key`, `transfer.key`): a regular file, never a symbolic
/// link, readable by its owner only, created exclusively with mode 0600 and hard-linked into place so it never exists
/// half-written. Kept apart from `CredentialCipher` (whose `open` would shadow `open(2)`). `name` says which file a
/// message is about ("the master key file"); no message ever contains key material.
enum OwnerOnlyKeyFile {
    /// The contents of an existing key file (at most 4 KiB), or `nil` when there is none. The caller zeroes them.
    static func existingContents(at path: String, name: String) throws -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        if descriptor < 0 {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP {
                throw MasterKeyError(.insecureKeyFile, "\(name) \(path) is a symbolic link; use a regular file")
            }
            throw MasterKeyError(
                .keyFileUnavailable,
                "\(name) \(path) cannot be opened: \(String(cString: strerror(code)))"
            )
        }
        defer { _ = close(descriptor) }

        // Checked on the open descriptor, so the file cannot be swapped between the check and the read.
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw MasterKeyError(.keyFileUnavailable, "\(name) \(path) cannot be inspected")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw MasterKeyError(.insecureKeyFile, "\(name) \(path) is not a regular file")
        }
        let permissions = status.st_mode & 0o777
        guard permissions & 0o077 == 0 else {
            throw MasterKeyError(
                .insecureKeyFile,
                "\(name) \(path) has mode \(String(permissions, radix: 8)), which lets group or others "
                    + "access it; refusing to use it. Run `chmod 600 \(path)` if it was never exposed, otherwise "
                    + "treat the key as compromised"
            )
        }

        var contents: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while contents.count <= 4096 {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw MasterKeyError(.keyFileUnavailable, "\(name) \(path) cannot be read")
            }
            if count == 0 { break }
            contents.append(contentsOf: buffer[0..<count])
        }
        for index in buffer.indices { buffer[index] = 0 }
        return contents
    }

    /// Makes the key file with `contents`; `false` when another process made it first (read theirs instead).
    static func create(at path: String, directory: String, contents text: [UInt8], name: String) throws -> Bool {
        do {
            try FileManager.default.createDirectory(
                atPath: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw MasterKeyError(.keyFileUnavailable, "the data folder \(directory) cannot be created")
        }

        let fileName = URL(fileURLWithPath: path).lastPathComponent
        let temporary = directory + "/.\(fileName).\(RandomIdentifier.base32(count: 12)).tmp"
        if let code = try writeNewFile(at: temporary, contents: text, origin: "\(name) \(path)") {
            throw MasterKeyError(
                .keyFileUnavailable,
                "\(name) \(path) cannot be created: \(String(cString: strerror(code)))"
            )
        }
        defer { _ = unlink(temporary) }

        // link(2) never replaces an existing file: exactly one of several racing instances wins.
        if link(temporary, path) == 0 {
            fsyncDirectory(directory)
            return true
        }
        let code = errno
        if code == EEXIST { return false }
        guard code == EPERM || code == ENOTSUP || code == EOPNOTSUPP || code == ENOSYS else {
            throw MasterKeyError(
                .keyFileUnavailable,
                "\(name) \(path) cannot be created: \(String(cString: strerror(code)))"
            )
        }
        // A filesystem without hard links: create the file in place, still exclusively and with mode 0600.
        if let code = try writeNewFile(at: path, contents: text, origin: "\(name) \(path)") {
            if code == EEXIST { return false }
            throw MasterKeyError(
                .keyFileUnavailable,
                "\(name) \(path) cannot be created: \(String(cString: strerror(code)))"
            )
        }
        fsyncDirectory(directory)
        return true
    }

    /// Replaces the key file's contents with `text` at once: a new owner-only file, renamed over the old one, so the
    /// file holds either the old key or the new one, never a mix (a master key rotation's new key).
    static func replace(at path: String, directory: String, contents text: [UInt8], name: String) throws {
        let fileName = URL(fileURLWithPath: path).lastPathComponent
        let temporary = directory + "/.\(fileName).\(RandomIdentifier.base32(count: 12)).tmp"
        if let code = try writeNewFile(at: temporary, contents: text, origin: "\(name) \(path)") {
            throw MasterKeyError(.keyFileUnavailable, "\(name) \(path) cannot be written: \(String(cString: strerror(code)))")
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            _ = unlink(temporary)
            throw MasterKeyError(.keyFileUnavailable, "\(name) \(path) cannot be replaced: \(String(cString: strerror(code)))")
        }
        fsyncDirectory(directory)
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
            return MasterKeyError(.keyFileUnavailable, "\(origin) cannot be \(problem)")
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
