import Crypto
import Foundation
import Testing

/// The server and client code generated from openapi.json is committed (scripts/generate-openapi.sh writes it), not
/// made by a build plugin. These checks keep it what the generator makes from today's document: each target's
/// Generated/openapi.sha256 records the SHA-256 of the inputs (the document, the generator's configuration) and of
/// every generated file, and is recomputed here.
@Suite("API: the committed generated code is the generator's output from today's document")
struct GeneratedOpenAPITests {
    /// The package root, from this file's path (Tests/GatewayAPITests/…).
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static let regenerate = "run scripts/generate-openapi.sh and commit what it writes"

    /// One line of a `sha256sum` listing: `<64 hex digits><two spaces><path>`.
    struct Entry: Equatable {
        var digest: String
        var path: String
    }

    /// The entries of a `sha256sum` listing; a line of any other shape is an error, not skipped.
    static func entries(_ listing: String) throws -> [Entry] {
        try listing.split(separator: "\n").map { line in
            let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].count == 64, parts[0].allSatisfy(\.isHexDigit), parts[1].hasPrefix(" ") else {
                throw ManifestError(line: String(line))
            }
            return Entry(digest: String(parts[0]), path: String(parts[1].dropFirst()))
        }
    }

    struct ManifestError: Error, CustomStringConvertible {
        var line: String
        var description: String { "not a sha256sum line: \(line)" }
    }

    static func sha256(of file: URL) throws -> String {
        SHA256.hash(data: try Data(contentsOf: file)).map { String(format: "%02x", $0) }.joined()
    }

    @Test(arguments: ["GatewayAPI", "BrokerGatewayClient"])
    func generatedCodeMatchesItsInputs(target: String) throws {
        let folder = Self.packageRoot.appendingPathComponent("Sources/\(target)")
        let manifest = folder.appendingPathComponent("Generated/openapi.sha256")
        let listed = try Self.entries(try String(contentsOf: manifest, encoding: .utf8))
        let paths = listed.map(\.path)
        #expect(paths.prefix(2) == ["openapi.json", "openapi-generator-config.yaml"], "\(manifest.path) lists the inputs first")

        // Every input and generated file still has the digest it had when the script last ran: a changed document
        // or configuration means the code is stale; a changed generated file means it was edited by hand.
        for entry in listed {
            let actual = try Self.sha256(of: folder.appendingPathComponent(entry.path))
            #expect(actual == entry.digest, "Sources/\(target)/\(entry.path) changed since the code was generated: \(Self.regenerate)")
        }

        // And nothing generated is there that the script did not write (a stray file would be compiled too).
        let generated = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("Generated").path)
            .filter { $0.hasSuffix(".swift") }.map { "Generated/\($0)" }
        #expect(Set(generated) == Set(paths.dropFirst(2)), "Sources/\(target)/Generated holds other files than it lists: \(Self.regenerate)")
        #expect(generated.contains("Generated/Types.swift"))
    }

    @Test func manifestLinesAreRead() throws {
        let digest = String(repeating: "ab", count: 32)
        #expect(try Self.entries("\(digest)  Generated/Types.swift\n") == [Entry(digest: digest, path: "Generated/Types.swift")])
        #expect(throws: ManifestError.self) { try Self.entries("\(digest) Generated/Types.swift") }
        #expect(throws: ManifestError.self) { try Self.entries("not-a-digest  openapi.json") }
    }
}
