import Foundation
import Testing

/// Checks on the package's own source files, not on what they do.
@Suite("Source hygiene")
struct SourceHygieneTests {
    /// The package root: this file is `<root>/Tests/SandboxTests/SourceHygieneTests.swift`.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A raw NUL byte makes grep and other tools take a Swift file for binary and skip it silently; write `\0` instead.
    @Test("no Swift file under Sources/, Adapters/ or Tests/ contains a NUL byte")
    func noNULBytes() throws {
        var checked = 0
        var offenders: [String] = []
        for folder in ["Sources", "Adapters", "Tests"] {
            let base = Self.packageRoot.appendingPathComponent(folder)
            guard let files = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in files where file.pathExtension == "swift" {
                checked += 1
                if try Data(contentsOf: file).contains(0) {
                    let root = Self.packageRoot.path + "/"
                    offenders.append(file.path.hasPrefix(root) ? String(file.path.dropFirst(root.count)) : file.path)
                }
            }
        }
        #expect(checked > 0, "no Swift files found below \(Self.packageRoot.path)")
        #expect(offenders.isEmpty, "raw NUL bytes in \(offenders)")
    }
}
