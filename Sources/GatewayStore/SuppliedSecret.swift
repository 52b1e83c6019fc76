public import Foundation

/// A secret handed to the gateway by its platform rather than kept in its data folder: the value of an environment
/// variable `NAME`, or the contents of the file `NAME_FILE` names (how container platforms mount secrets: Docker and
/// Compose secrets under `/run/secrets/`, Kubernetes secret volumes). Every instance of a fleet can then start from
/// the same environment, with no file copied between them.
///
/// A mounted file is read as the platform made it (through its symbolic links, whatever its mode: the platform, not
/// the gateway, decides who may read it); line breaks and spaces at either end are ignored. Setting both forms, or a
/// file that cannot be read or is oversized, is an error that names the variable or the path, never the secret; what
/// the value must be (an empty one included) is the caller's to check and say.
public struct SuppliedSecret: Sendable {
    /// The suffix of the variable that names a file holding the secret.
    public static let fileSuffix = "_FILE"
    /// The largest secret file read (a key ring of many keys fits many times over).
    static let maximumFileBytes = 64 * 1024

    /// The secret's bytes (the caller zeroes its own copies once it has decoded them).
    public var bytes: [UInt8]
    /// Where it came from, for errors and the start-up log: a variable's name or a path, never the secret.
    public var origin: String
    /// The file it was read from, when it came from one.
    public var path: String?

    /// The secret `name` supplies in `environment`, or `nil` when neither `name` nor `name_FILE` is set.
    /// - Throws: `MasterKeyError(.invalidKey)` for both forms set or an empty `_FILE` path, `.keyFileUnavailable` for
    ///   a file that cannot be read or is over 64 KiB.
    public static func named(_ name: String, in environment: [String: String]) throws -> SuppliedSecret? {
        let fileVariable = name + fileSuffix
        switch (environment[name], environment[fileVariable]) {
        case (nil, nil):
            return nil
        case (.some, .some):
            throw MasterKeyError(.invalidKey, "set \(name) or \(fileVariable), not both")
        case (let value?, nil):
            // An empty value is the caller's to refuse, saying what the value must be.
            return SuppliedSecret(bytes: trimmed(Array(value.utf8)), origin: "\(name) (set in the environment)", path: nil)
        case (nil, let path?):
            guard !path.isEmpty else { throw MasterKeyError(.invalidKey, "\(fileVariable) is set but empty") }
            let origin = "the file \(path) (\(fileVariable))"
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw MasterKeyError(.keyFileUnavailable, "\(origin) cannot be read")
            }
            defer { try? handle.close() }
            let data: Data
            do {
                data = try handle.read(upToCount: maximumFileBytes + 1) ?? Data()
            } catch {
                throw MasterKeyError(.keyFileUnavailable, "\(origin) cannot be read")
            }
            var raw = Array(data)
            defer { for index in raw.indices { raw[index] = 0 } }
            guard raw.count <= maximumFileBytes else {
                throw MasterKeyError(.keyFileUnavailable, "\(origin) is over \(maximumFileBytes / 1024) KiB")
            }
            return SuppliedSecret(bytes: trimmed(raw), origin: origin, path: path)
        }
    }

    /// The secret as text (base64 and key ids are ASCII).
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Sets the bytes to zero.
    mutating func erase() {
        for index in bytes.indices { bytes[index] = 0 }
    }

    /// `bytes` without the line breaks and spaces at either end.
    static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        let blank: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        guard let first = bytes.firstIndex(where: { !blank.contains($0) }),
            let last = bytes.lastIndex(where: { !blank.contains($0) })
        else { return [] }
        return Array(bytes[first...last])
    }
}
