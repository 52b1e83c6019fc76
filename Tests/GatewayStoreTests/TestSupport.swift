import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

/// Runs `body` with a fresh folder of its own, removed afterwards even when `body` throws.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory.appending(path: "GatewayStoreTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

/// A file-backed store in its own temporary folder.
func withStore<T>(
    cipher: CredentialCipher = .random(),
    _ body: (SQLiteStore, URL) async throws -> T
) async throws -> T {
    try await withTemporaryDirectory { directory in
        let store = try await SQLiteStore.opening(path: databasePath(in: directory), cipher: cipher)
        defer { try? store.close() }
        return try await body(store, directory)
    }
}

func databasePath(in directory: URL) -> String {
    directory.appending(path: SQLiteStore.databaseFileName).path(percentEncoded: false)
}

/// The bytes of the database file and of its `-wal` and `-shm` companions, where present.
func databaseFileBytes(in directory: URL) throws -> [Data] {
    let path = databasePath(in: directory)
    return try [path, path + "-wal", path + "-shm"].compactMap { file in
        FileManager.default.fileExists(atPath: file) ? try Data(contentsOf: URL(fileURLWithPath: file)) : nil
    }
}

func occurs(_ text: String, in files: [Data]) -> Bool {
    let needle = Data(text.utf8)
    return files.contains { $0.range(of: needle) != nil }
}

func posixPermissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

func sampleConnection(
    _ name: String = "Paper account",
    credentials: [String: String] = ["apiKeyId": "AK1", "apiSecretKey": "s3cret"]
) -> NewConnection {
    NewConnection(
        broker: .alpaca,
        displayName: name,
        baseURL: "sandbox://alpaca",
        settings: ["dataBaseURL": "sandbox://alpaca"],
        credentials: BrokerCredentials(credentials)
    )
}

/// Expects `body` to throw a `GatewayError` with `code`.
func expectGatewayError<T>(
    _ code: GatewayError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("expected GatewayError \(code), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as GatewayError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected GatewayError \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

/// Expects `body` to throw a `MasterKeyError` with `code`, and returns it.
@discardableResult
func expectMasterKeyError<T>(
    _ code: MasterKeyError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> T
) -> MasterKeyError? {
    do {
        _ = try body()
        Issue.record("expected MasterKeyError \(code), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as MasterKeyError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected MasterKeyError \(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
