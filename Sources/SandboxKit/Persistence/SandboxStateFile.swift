public import Foundation

/// Why a sandbox's saved state could not be read or written. It always names the file: the state is a user's
/// simulated account, so a file that cannot be read stops the start instead of being silently replaced by a fresh
/// account.
public struct SandboxStateError: Error, Sendable, CustomStringConvertible {
    /// The file's path.
    public var path: String
    /// What went wrong: unreadable, another document, a newer version, or a failed write.
    public var reason: String

    /// Names the file and what went wrong with it.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `sandbox state file <path>: <reason>`, for a start-up failure message.
    public var description: String { "sandbox state file \(path): \(reason)" }
}

/// One sandbox's state as one versioned JSON document in a file:
/// `{"format": "brokergateway-sandbox-state", "version": 1, "sandbox": "saxo", "state": {…}}`.
///
/// Written atomically (a temporary file in the same folder, synced, then renamed over the old one), so a crash
/// mid-write leaves the previous state, never half of one; readable by this user only (the state holds the
/// simulated accounts' keys and tokens). A missing file is a fresh sandbox; an unreadable file, another document,
/// or a version newer than this build knows is an error naming the file.
public struct SandboxStateFile<Snapshot: Codable & Sendable>: Sendable {
    /// The file the state is read from and written to.
    public let url: URL
    /// The snapshot layout this build writes and the newest it reads.
    public let version: Int
    /// The sandbox's name, written into the document (so a file copied to the wrong name is refused).
    public let sandbox: String

    static var format: String { "brokergateway-sandbox-state" }

    /// A state file at `url`, for the sandbox named `sandbox`, whose snapshots have layout `version`. Touches no file.
    public init(url: URL, sandbox: String, version: Int) {
        self.url = url
        self.sandbox = sandbox
        self.version = version
    }

    /// `<folder>/<sandbox>.json`.
    public init(folder: URL, sandbox: String, version: Int) {
        self.init(url: folder.appendingPathComponent(sandbox + ".json"), sandbox: sandbox, version: version)
    }

    /// The document's header, read before the state so a newer version is told apart from a damaged file.
    private struct Header: Decodable {
        var format: String
        var version: Int
        var sandbox: String
    }

    private struct Document: Codable {
        var format: String
        var version: Int
        var sandbox: String
        var state: Snapshot
    }

    /// The saved snapshot, or `nil` when there is no file (a fresh sandbox).
    /// - Parameter userInfo: what the snapshot's decoding needs (a sandbox's instruments, to resolve what it saved).
    public func load(userInfo: [CodingUserInfoKey: any Sendable] = [:]) throws(SandboxStateError) -> Snapshot? {
        let data: Data
        do {
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            data = try Data(contentsOf: url)
        } catch {
            throw SandboxStateError(path: url.path, reason: "cannot be read (\(error.localizedDescription))")
        }
        let decoder = Self.decoder
        decoder.userInfo = userInfo
        let header: Header
        do {
            header = try decoder.decode(Header.self, from: data)
        } catch {
            throw SandboxStateError(path: url.path, reason: "is not a sandbox state document (\(Self.describe(error)))")
        }
        guard header.format == Self.format else {
            throw SandboxStateError(path: url.path, reason: "is not a sandbox state document (format \(header.format))")
        }
        guard header.sandbox == sandbox else {
            throw SandboxStateError(path: url.path, reason: "holds the \(header.sandbox) sandbox's state, not the \(sandbox) sandbox's")
        }
        guard header.version <= version else {
            throw SandboxStateError(
                path: url.path,
                reason: "was written by a newer build (state version \(header.version); this build reads up to \(version))"
            )
        }
        guard header.version >= 1 else {
            throw SandboxStateError(path: url.path, reason: "has an invalid state version \(header.version)")
        }
        do {
            return try decoder.decode(Document.self, from: data).state
        } catch {
            throw SandboxStateError(path: url.path, reason: "cannot be decoded (\(Self.describe(error)))")
        }
    }

    /// The document for `snapshot`, as ``write(_:)`` saves it.
    public func encode(_ snapshot: Snapshot) throws(SandboxStateError) -> Data {
        do {
            return try Self.encoder.encode(Document(format: Self.format, version: version, sandbox: sandbox, state: snapshot))
        } catch {
            throw SandboxStateError(path: url.path, reason: "cannot be encoded (\(Self.describe(error)))")
        }
    }

    /// Replaces the file with `data` atomically, readable by this user only. Blocks on the disk: call it off
    /// Swift's cooperative pool (``PersistentState`` writes on its own dispatch queue).
    public func write(_ data: Data) throws(SandboxStateError) {
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try FileManager.default.createDirectory(
                at: folder,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw SandboxStateError(path: url.path, reason: "its folder cannot be made (\(error.localizedDescription))")
        }
        // O_EXCL and O_NOFOLLOW: the temporary name is fresh, and a link planted there cannot redirect the write.
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw SandboxStateError(path: url.path, reason: "cannot be written (\(String(cString: strerror(errno))))")
        }
        var failure: String?
        let written = data.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let count = Foundation.write(descriptor, base + offset, buffer.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += count
            }
            return true
        }
        if !written { failure = String(cString: strerror(errno)) }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if failure == nil, rename(temporary.path, url.path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary.path)
            throw SandboxStateError(path: url.path, reason: "cannot be written (\(failure))")
        }
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        // Sorted, so an unchanged state encodes to the same bytes and is not written again.
        encoder.outputFormatting = [.sortedKeys]
        // Dates as `Date` encodes itself (seconds since 2001 as a JSON number that reads back to the same Double), so
        // an order's times survive exactly, not rounded to milliseconds.
        encoder.dateEncodingStrategy = .deferredToDate
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .deferredToDate
        return decoder
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): "\(context.debugDescription) at \(path(context.codingPath))"
        case DecodingError.keyNotFound(let key, let context): "no \(key.stringValue) at \(path(context.codingPath))"
        case DecodingError.typeMismatch(_, let context): "\(context.debugDescription) at \(path(context.codingPath))"
        case DecodingError.valueNotFound(_, let context): "\(context.debugDescription) at \(path(context.codingPath))"
        default: "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "the top" : keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
