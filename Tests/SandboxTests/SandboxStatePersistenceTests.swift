import Dispatch
import Foundation
import Testing

@testable import SandboxKit

/// The persistence primitive the in-process sandboxes keep their state with (`SandboxStateFile`, `PersistentState`).
@Suite("Sandbox state persistence")
struct SandboxStatePersistenceTests {
    struct Counter: Codable, Sendable, Equatable {
        var orders: [String] = []
        var cash: Decimal = 0
        var next = 1
    }

    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bg-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func file(_ folder: URL, version: Int = 1) -> SandboxStateFile<Counter> {
        SandboxStateFile(folder: folder, sandbox: "test", version: version)
    }

    @Test func aMissingFileIsAFreshSandbox() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try file(folder).load() == nil)
    }

    @Test func theStateReadsBackAsItWasWritten() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = PersistentState<Counter, Counter>(Counter(), file: file(folder)) { $0 }
        state.withLock { counter in
            counter.orders.append("76300001")
            // Digits a Double would lose, and a trailing zero.
            counter.cash = Decimal(string: "1000000.123456789012345670")!
            counter.next = 2
        }
        try await state.flush()
        let loaded = try #require(try file(folder).load())
        #expect(loaded == Counter(orders: ["76300001"], cash: Decimal(string: "1000000.12345678901234567")!, next: 2))
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("test.json").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    /// The new state goes to a temporary file that is renamed over the old one: a reader holding the old file sees
    /// all of the old state (never half of each), and no temporary file is left behind.
    @Test func aWriteReplacesTheFileAtomically() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = file(folder)
        try file.write(try file.encode(Counter(orders: ["old"], cash: 1, next: 2)))
        let old = try FileHandle(forReadingFrom: file.url)
        defer { try? old.close() }
        try file.write(try file.encode(Counter(orders: ["new", "newer"], cash: 2, next: 3)))
        let oldText = String(decoding: try old.readToEnd() ?? Data(), as: UTF8.self)
        #expect(oldText.contains("\"old\"") && !oldText.contains("newer"), "the old file was rewritten in place: \(oldText)")
        #expect(try file.load()?.orders == ["new", "newer"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["test.json"])
    }

    @Test(arguments: [
        ("not json at all", "is not a sandbox state document"),
        (#"{"format":"brokergateway-sandbox-state","version":1,"sandbox":"test","state":{"orders":"x"}}"#, "cannot be decoded"),
        (#"{"format":"brokergateway-sandbox-state","version":2,"sandbox":"test","state":{}}"#, "newer build"),
        (#"{"format":"brokergateway-sandbox-state","version":1,"sandbox":"saxo","state":{}}"#, "the saxo sandbox's state"),
    ])
    func anUnreadableFileIsRefusedWithItsName(content: String, reason: String) throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("test.json")
        try Data(content.utf8).write(to: url)
        let error = try #require(throws: SandboxStateError.self) { try file(folder).load() }
        #expect(error.description.contains(url.path), "\(error)")
        #expect(error.description.contains(reason), "\(error)")
        // Never discarded: the user's account is still there to be looked at.
        #expect(try String(contentsOf: url, encoding: .utf8) == content)
    }

    /// A burst of changes before the writer runs is one write; a flush writes what is pending and returns once it is
    /// on disk; an unchanged state is not written again. The writer's queue is held (suspended) while the burst
    /// happens, so what is observed does not depend on timing.
    @Test func aBurstOfChangesIsWrittenOnce() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let queue = DispatchQueue(label: "test-writer")
        queue.suspend()
        let state = PersistentState<Counter, Counter>(Counter(), file: file(folder), queue: queue, coalescing: .milliseconds(0)) { $0 }
        for number in 1...50 { state.withLock { $0.orders.append(String(number)) } }
        #expect(state.writeCount == 0)
        queue.resume()
        try await state.flush()
        #expect(state.writeCount == 1)
        #expect(try file(folder).load()?.orders.count == 50)
        // Reads (every `withLock` counts as a change) that leave the state as it was write nothing.
        for _ in 1...10 { _ = state.withLock { $0.orders.count } }
        try await state.flush()
        #expect(state.writeCount == 1)
        state.withLock { $0.next += 1 }
        try await state.flush()
        #expect(state.writeCount == 2)
        #expect(try file(folder).load()?.next == 2)
    }

    @Test func withoutAFileTheStateStaysInMemory() async throws {
        let state = PersistentState<Counter, Counter>(Counter())
        state.withLock { $0.next = 5 }
        try await state.flush()
        #expect(state.writeCount == 0)
        #expect(state.read { $0.next } == 5)
    }
}
