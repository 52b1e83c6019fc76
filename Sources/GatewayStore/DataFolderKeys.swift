public import Foundation

/// The key files a data folder may hold (``CredentialCipher/keyFileName``, ``TransferKey/fileName`` and the session
/// signing keys under ``SessionKeyFiles/directoryName``), copied as a whole between folders, for a backup and its
/// restore: each read as the gateway reads it (a regular, owner-only file, never a link) and written owner-only.
public enum DataFolderKeys {
    /// The key files `folder` holds, as paths relative to it, the master key first.
    public static func present(in folder: URL) -> [String] {
        let manager = FileManager.default
        var names: [String] = []
        for name in [CredentialCipher.keyFileName, TransferKey.fileName]
        where manager.fileExists(atPath: folder.appending(path: name).path(percentEncoded: false)) {
            names.append(name)
        }
        let sessions = folder.appending(path: SessionKeyFiles.directoryName).path(percentEncoded: false)
        let keys = ((try? manager.contentsOfDirectory(atPath: sessions)) ?? []).filter { $0.hasSuffix(".key") }.sorted()
        names += keys.map { SessionKeyFiles.directoryName + "/" + $0 }
        return names
    }

    /// Copies every key file of `source` into `destination` (made with mode 0700 if needed); the names copied.
    /// - Throws: `MasterKeyError` naming a file that is unsafe or unreadable at the source, or that cannot be made (or
    ///   already exists) at the destination; never with key material.
    public static func copy(from source: URL, to destination: URL) throws -> [String] {
        let names = present(in: source)
        for name in names {
            let from = source.appending(path: name).path(percentEncoded: false)
            let to = destination.appending(path: name)
            guard var contents = try OwnerOnlyKeyFile.existingContents(at: from, name: "the key file") else {
                throw MasterKeyError(.keyFileUnavailable, "the key file \(from) went away while it was copied")
            }
            defer { for index in contents.indices { contents[index] = 0 } }
            let created = try OwnerOnlyKeyFile.create(
                at: to.path(percentEncoded: false),
                directory: to.deletingLastPathComponent().path(percentEncoded: false),
                contents: contents,
                name: "the key file"
            )
            guard created else {
                throw MasterKeyError(.keyFileUnavailable, "the key file \(to.path(percentEncoded: false)) already exists")
            }
        }
        return names
    }
}
