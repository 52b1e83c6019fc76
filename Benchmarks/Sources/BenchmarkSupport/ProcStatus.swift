import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A process's memory and CPU time, from /proc (Linux): `nil` where /proc cannot say (another system, a process
/// that has ended).
public struct ProcStatus: Sendable {
    /// Resident memory now (VmRSS), in KiB.
    public var rssKB: Int
    /// The most resident memory so far (VmHWM), in KiB.
    public var peakKB: Int

    /// The status of process `pid`.
    public init?(pid: Int32) {
        self.init(statusPath: "/proc/\(pid)/status")
    }

    /// The status of this process.
    public init?() {
        self.init(statusPath: "/proc/self/status")
    }

    init?(statusPath: String) {
        guard let text = try? String(contentsOfFile: statusPath, encoding: .utf8),
            let rss = Self.field("VmRSS", in: text), let peak = Self.field("VmHWM", in: text)
        else { return nil }
        rssKB = rss
        peakKB = peak
    }

    /// The kilobytes of a `Name:   1234 kB` line of a /proc status file.
    static func field(_ name: String, in text: String) -> Int? {
        text.split(separator: "\n").first { $0.hasPrefix(name + ":") }
            .flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") }
    }

    /// This process's peak resident memory as /proc writes it (`123456 kB`), or "unknown".
    public static func peakMemory() -> String {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return "unknown" }
        return status.split(separator: "\n").first { $0.hasPrefix("VmHWM") }?
            .split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "unknown"
    }

    /// The CPU seconds of several processes, summed; `nil` when any cannot be read.
    public static func cpuSeconds(pids: [Int32]) -> Double? {
        var total = 0.0
        for pid in pids {
            guard let seconds = cpuSeconds(pid: pid) else { return nil }
            total += seconds
        }
        return total
    }

    /// User plus system CPU seconds the process has used (fields 14 and 15 of /proc/<pid>/stat, in clock ticks).
    public static func cpuSeconds(pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
        return cpuSeconds(stat: text, ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// The user plus system time of a /proc/<pid>/stat line, in seconds.
    static func cpuSeconds(stat text: String, ticksPerSecond: Double) -> Double? {
        // The command name, in parentheses, may hold spaces: fields are counted after its closing parenthesis, where
        // state is field 3, utime 14 and stime 15.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / ticksPerSecond
    }
}

/// The `gateway` executable next to this benchmark's own (`swift build --package-path Benchmarks -c release
/// --product gateway` puts it there).
public func siblingGateway() -> String {
    siblingExecutable("gateway")
}

/// The executable `name` next to this benchmark's own: another product of the same `swift build --package-path
/// Benchmarks` (ReadBenchmark's `FloorServer`), so the benchmark finds it without a path on its command line.
public func siblingExecutable(_ name: String) -> String {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
}
