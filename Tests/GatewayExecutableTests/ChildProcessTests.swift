import ChildProcess
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
import TestWorlds
#endif

/// The tests' process starter: what the child inherits, what it says, how it ends.
@Suite("ChildProcess: tests' child processes", .heavyWorld)
struct ChildProcessTests {
    @Test func theChildInheritsOnlyItsThreeStandardDescriptors() async throws {
        // Descriptors this process holds open (not close-on-exec) while the child starts: none may reach it.
        var held: [Int32] = []
        defer { for descriptor in held { close(descriptor) } }
        for _ in 0..<200 {
            let descriptor = open("/dev/null", O_RDONLY)
            try #require(descriptor >= 0)
            held.append(descriptor)
        }
        let child = try ChildProcess(
            executable: "/bin/sh",
            arguments: ["-c", "ls /proc/self/fd"],
            standardOutput: .lines
        )
        var listed: [String] = []
        for await line in child.lines { listed.append(line) }
        #expect(await child.termination() == .exited(0))
        // `ls` itself opens one descriptor to read the folder: 0, 1, 2 and that one.
        let inherited = listed.compactMap(Int32.init).filter { $0 > 2 }
        #expect(inherited.count <= 1, "the child inherited \(inherited)")
        #expect(Set(inherited).isDisjoint(with: held), "the child inherited \(inherited)")
    }

    @Test func bothStreamsToOneFileKeepEveryLine() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: file) }
        let child = try ChildProcess(
            executable: "/bin/sh",
            arguments: ["-c", "echo one; echo two >&2; echo three; exit 3"],
            standardOutput: .file(file.path),
            standardError: .file(file.path)
        )
        #expect(await child.termination() == .exited(3))
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.split(separator: "\n") == ["one", "two", "three"])
    }

    @Test func aKilledChildReportsItsSignalAndAWaitCanTimeOut() async throws {
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "exec sleep 600"])
        #expect(await child.termination(within: .milliseconds(50)) == nil)
        #expect(child.isRunning)
        child.send(SIGKILL)
        #expect(await child.termination() == .signalled(SIGKILL))
        #expect(!child.isRunning)
    }

    @Test func aMissingProgramIsAnError() {
        #expect(throws: ChildProcess.Failure.self) {
            _ = try ChildProcess(executable: "/nonexistent/program", arguments: [])
        }
    }
}
