import Foundation

/// A strict parser of the Prometheus text exposition format (0.0.4), enough to check what `/metrics` serves: every
/// line is a comment (`# HELP`, `# TYPE`), blank, or a sample `name{label="value",...} value [timestamp]`. Anything
/// else is an error, so a malformed exposition fails the test that reads it.
public struct PrometheusText: Sendable {
    /// One sample line: a metric name, its labels and its value.
    public struct Sample: Hashable, Sendable {
        /// The metric name, with a histogram's `_bucket`, `_sum` or `_count` suffix as written.
        public var name: String
        /// The labels, unescaped.
        public var labels: [String: String]
        /// The sample's value as written (`+Inf`, `NaN` included); metrics are not money, so `Double` is right here.
        public var value: Double
    }

    /// Why a line of the exposition is not valid text format, with its 1-based line number.
    public struct ParseError: Error, CustomStringConvertible {
        /// The 1-based line number of the offending line.
        public var line: Int
        /// What is wrong with it.
        public var reason: String
        /// `line N: reason`, for a test failure message.
        public var description: String { "line \(line): \(reason)" }
    }

    /// `# TYPE` of each family.
    public var types: [String: String] = [:]
    /// Every sample, in the order served.
    public var samples: [Sample] = []

    /// Parses a whole exposition, throwing ``ParseError`` at the first line that is not a comment, blank or sample.
    public init(_ text: String) throws {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3)
                if parts.count >= 4, parts[1] == "TYPE" {
                    guard ["counter", "gauge", "histogram", "summary", "untyped"].contains(String(parts[3])) else {
                        throw ParseError(line: number, reason: "unknown type \(parts[3])")
                    }
                    guard types[String(parts[2])] == nil else { throw ParseError(line: number, reason: "TYPE repeated for \(parts[2])") }
                    types[String(parts[2])] = String(parts[3])
                }
                continue
            }
            samples.append(try Self.sample(Substring(line), line: number))
        }
    }

    static func sample(_ line: Substring, line number: Int) throws -> Sample {
        var rest = line[...]
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
        guard let first = name.first, !first.isNumber else { throw ParseError(line: number, reason: "no metric name") }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let label = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                guard !label.isEmpty else { throw ParseError(line: number, reason: "bad label name") }
                rest = rest.dropFirst(label.count)
                guard rest.hasPrefix("=\"") else { throw ParseError(line: number, reason: "label without =\"") }
                rest = rest.dropFirst(2)
                var value = ""
                while let character = rest.first, character != "\"" {
                    rest = rest.dropFirst()
                    if character == "\\" {
                        guard let escaped = rest.first else { throw ParseError(line: number, reason: "dangling escape") }
                        rest = rest.dropFirst()
                        switch escaped {
                        case "n": value.append("\n")
                        case "\\": value.append("\\")
                        case "\"": value.append("\"")
                        default: throw ParseError(line: number, reason: "bad escape \\\(escaped)")
                        }
                    } else {
                        value.append(character)
                    }
                }
                guard rest.first == "\"" else { throw ParseError(line: number, reason: "unterminated label value") }
                rest = rest.dropFirst()
                guard labels.updateValue(value, forKey: String(label)) == nil else {
                    throw ParseError(line: number, reason: "label \(label) repeated")
                }
                if rest.first == "," { rest = rest.dropFirst() }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { throw ParseError(line: number, reason: "no space before the value") }
        let fields = rest.dropFirst().split(separator: " ")
        guard (1...2).contains(fields.count) else { throw ParseError(line: number, reason: "expected a value and maybe a timestamp") }
        let text = String(fields[0])
        let value: Double
        switch text {
        case "+Inf": value = .infinity
        case "-Inf": value = -.infinity
        case "NaN": value = .nan
        default:
            guard let parsed = Double(text) else { throw ParseError(line: number, reason: "value \(text) is not a number") }
            value = parsed
        }
        return Sample(name: String(name), labels: labels, value: value)
    }

    /// The samples of a series name, optionally only those whose labels include `matching`.
    public func series(_ name: String, _ matching: [String: String] = [:]) -> [Sample] {
        samples.filter { sample in sample.name == name && matching.allSatisfy { sample.labels[$0.key] == $0.value } }
    }

    /// The sum of the matching samples' values.
    public func sum(_ name: String, _ matching: [String: String] = [:]) -> Double {
        series(name, matching).reduce(0) { $0 + $1.value }
    }
}
