/// A benchmark's command line: `--name value` options and `--flag` switches, read by name with a default.
///
/// A value that is there but not of the asked type is an error that names the option, never the default in
/// silence: a typo must not turn a 1,000-client run into a 200-client one.
public struct Arguments: Sendable {
    /// The words of the command line as given; options are found by searching, so order does not matter.
    public let values: [String]

    /// Reads `values` as given, usually `CommandLine.arguments` (the program name is harmless: it is never an option).
    public init(_ values: [String]) { self.values = values }

    /// Whether `--name` is given.
    public func flag(_ name: String) -> Bool { values.contains(name) }

    /// The value after `name`, or `fallback` when the option is not given.
    public func string(_ name: String, _ fallback: String) throws -> String {
        guard let index = values.firstIndex(of: name) else { return fallback }
        guard index + 1 < values.count else { throw BenchmarkError("\(name) needs a value") }
        return values[index + 1]
    }

    /// The integer after `name`, or `fallback` when the option is not given.
    public func int(_ name: String, _ fallback: Int) throws -> Int {
        guard values.contains(name) else { return fallback }
        let text = try string(name, "")
        guard let value = Int(text) else { throw BenchmarkError("\(name) expects an integer, not \"\(text)\"") }
        return value
    }

    /// A comma-separated list of integers after `name` (`--clients 1,10,100`), or `fallback`.
    public func ints(_ name: String, _ fallback: [Int]) throws -> [Int] {
        guard values.contains(name) else { return fallback }
        let text = try string(name, "")
        return try text.split(separator: ",", omittingEmptySubsequences: false).map { item in
            guard let value = Int(item) else { throw BenchmarkError("\(name) expects integers separated by commas, not \"\(text)\"") }
            return value
        }
    }
}

/// Why a benchmark stopped, in words.
public struct BenchmarkError: Error, CustomStringConvertible {
    /// The reason, naming the option or step at fault.
    public var description: String
    /// An error that says `description`.
    public init(_ description: String) { self.description = description }
}
