/// A JSON value that keeps what wire simulators care about and `Codable` loses:
/// numbers as their literal text (so a decimal never passes through `Double`),
/// object members in the order they were written (bodies read like the broker's),
/// and explicit `null`s (brokers send `"filled_at": null`, not a missing key).
///
/// Parsing is strict RFC 8259 with a nesting limit, so hostile input cannot exhaust the stack.
public enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number exactly as written, already validated against the JSON number grammar.
    case number(String)
    case string(String)
    case array([JSON])
    case object([Member])

    /// One `"key": value` of an object; an object keeps its members in order, duplicates included.
    public struct Member: Sendable, Equatable {
        /// The member's name, unescaped.
        public var key: String
        /// The member's value (`.null` for an explicit `null`).
        public var value: JSON

        /// A member `key: value`.
        public init(key: String, value: JSON) {
            self.key = key
            self.value = value
        }
    }
}

// MARK: Building

extension JSON: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// `"text"` as a JSON string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal as a JSON number (`42`); decimals are `.number("1.50")` or, for money, `.string("1.50")`.
    public init(integerLiteral value: Int) { self = .number(String(value)) }
    /// `[a, b]` as a JSON array.
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    /// `["b": 1, "a": 2]` as an object whose members keep the literal's order (a Swift dictionary would not).
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(elements.map { Member(key: $0.0, value: $0.1) })
    }
    /// `nil` as JSON `null`.
    public init(nilLiteral: ()) { self = .null }

    /// An integer as a JSON number (for a variable; a literal can be written bare).
    public static func int(_ value: Int) -> JSON { .number(String(value)) }
    /// A 64-bit integer as a JSON number (unix times in milliseconds or nanoseconds, sequence numbers).
    public static func int64(_ value: Int64) -> JSON { .number(String(value)) }

    /// A string, or `null` when absent.
    public static func string(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }
}

// MARK: Reading

extension JSON {
    /// The value of member `key` of an object (the last one if the key repeats); nil when absent or not an object.
    /// An explicit `null` is `.null`, not nil.
    public subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        // Last one wins for duplicate keys, like most JSON readers.
        return members.last(where: { $0.key == key })?.value
    }

    /// Whether the value is `null`.
    public var isNull: Bool { self == .null }

    /// The text of a string; nil for any other value (a number is not converted).
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The flag of a boolean; nil for any other value (no `"true"` strings).
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The elements of an array; nil for any other value.
    public var arrayValue: [JSON]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The members of an object in written order, duplicates included; nil for any other value.
    public var objectMembers: [Member]? {
        if case .object(let m) = self { return m }
        return nil
    }

    /// Short name of the value's type, for validation messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

// MARK: Serialising

extension JSON {
    /// Compact UTF-8 text.
    public var serialized: String {
        String(decoding: serializedBytes, as: UTF8.self)
    }

    /// Compact UTF-8 text as bytes: written into one byte array, which costs a fraction of appending to a `String`
    /// piece by piece (an account's 10,000 positions are some 400,000 pieces, issue 29).
    public var serializedBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        self.write(into: &out)
        return out
    }

    private func write(into out: inout [UInt8]) {
        switch self {
        case .null: Self.append("null", to: &out)
        case .bool(let b): Self.append(b ? "true" : "false", to: &out)
        case .number(let text): Self.append(text, to: &out)
        case .string(let s): Self.writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    private static func writeString(_ s: String, into out: inout [UInt8]) {
        var s = s
        s.withUTF8 { bytes in
            out.append(UInt8(ascii: "\""))
            // Most text (keys, ids, decimals) needs no escape: appended whole, not byte by byte.
            if !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                out.append(contentsOf: bytes)
                out.append(UInt8(ascii: "\""))
                return
            }
            // Byte by byte: every byte of a multi-byte character is 0x80 or above, so only ASCII is ever escaped.
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
                case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
                case UInt8(ascii: "\n"): out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case UInt8(ascii: "\r"): out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                case UInt8(ascii: "\t"): out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                case 0..<0x20:
                    let hex = String(byte, radix: 16)
                    append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex, to: &out)
                default: out.append(byte)
                }
            }
            out.append(UInt8(ascii: "\""))
        }
    }
}

// MARK: Parsing

/// Why a body is not JSON, with the byte offset where reading stopped.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The byte offset (UTF-8, from 0) where reading stopped.
    public var offset: Int
    /// What was wrong there (`unexpected end of input`, `nesting too deep`, …).
    public var reason: String
    /// `reason at offset n`: safe to answer to the client, it quotes none of the input.
    public var description: String { "\(reason) at offset \(offset)" }
}

extension JSON {
    /// Nesting deeper than this is refused (a hostile body must not exhaust the stack).
    public static let maximumDepth = 64

    /// Parses `text` as exactly one JSON value (whitespace around it allowed); throws ``JSONParseError`` otherwise.
    public init(parsing text: String) throws(JSONParseError) {
        try self.init(parsing: Array(text.utf8))
    }

    /// Parses UTF-8 `bytes` (a request body) as exactly one JSON value; throws ``JSONParseError`` for anything else,
    /// trailing characters and nesting deeper than ``maximumDepth`` included. Invalid UTF-8 in a string becomes U+FFFD.
    public init(parsing bytes: [UInt8]) throws(JSONParseError) {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw JSONParseError(offset: parser.index, reason: "unexpected trailing characters")
        }
        self = value
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    func fail(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSON {
        guard depth < JSON.maximumDepth else { throw fail("nesting too deep") }
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail("unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: String) throws(JSONParseError) {
        for byte in literal.utf8 {
            guard index < bytes.count, bytes[index] == byte else { throw fail("invalid literal") }
            index += 1
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSON {
        index += 1
        var members: [JSON.Member] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth + 1)
            members.append(.init(key: key, value: value))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
            index += 1
            return .object(members)
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSON {
        index += 1
        var items: [JSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
            index += 1
            return .array(items)
        }
    }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        var scalars = String.UnicodeScalarView()
        var run = [UInt8]()
        func flush(_ run: inout [UInt8], into scalars: inout String.UnicodeScalarView) {
            if !run.isEmpty {
                scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
                run.removeAll(keepingCapacity: true)
            }
        }
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                flush(&run, into: &scalars)
                let result = String(scalars)
                return result
            case UInt8(ascii: "\\"):
                flush(&run, into: &scalars)
                index += 1
                guard index < bytes.count else { throw fail("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    let unit = try parseHex4()
                    if (0xD800...0xDBFF).contains(unit) {
                        // A high surrogate must be followed by an escaped low surrogate.
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        else { throw fail("unpaired surrogate") }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
                        let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                        guard let scalar = Unicode.Scalar(value) else { throw fail("invalid code point") }
                        scalars.append(scalar)
                    } else {
                        guard let scalar = Unicode.Scalar(UInt32(unit)) else { throw fail("unpaired surrogate") }
                        scalars.append(scalar)
                    }
                default: throw fail("invalid escape")
                }
            case 0x00..<0x20:
                throw fail("control character in string")
            default:
                run.append(byte)
                index += 1
            }
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw fail("truncated unicode escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt16
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt16(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt16(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt16(byte - UInt8(ascii: "A") + 10)
            default: throw fail("invalid unicode escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    mutating func parseNumber() throws(JSONParseError) -> String {
        let start = index
        func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }
}
