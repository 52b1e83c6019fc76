/// A MessagePack value: the types Alpaca's streams use (alpaca-py's data streams speak msgpack only).
///
/// Provenance: the MessagePack specification, https://github.com/msgpack/msgpack/blob/master/spec.md (formats
/// nil, bool, int, float, str, bin, array, map, ext, and the timestamp extension type -1). Only what the streams
/// need: no other extension types are interpreted (``ext(type:data:)`` keeps them as bytes).
public enum MessagePack: Sendable, Equatable {
    case null
    case bool(Bool)
    /// Every integer that fits in `Int64`; written in the smallest format (positive ones as unsigned, as the spec's
    /// encoders and Python's msgpack do).
    case int(Int64)
    /// Only the unsigned integers above `Int64.max`.
    case uint(UInt64)
    /// float64 when written; float32 read is widened.
    case float(Double)
    case string(String)
    case binary([UInt8])
    case array([MessagePack])
    /// Keys in wire order (msgpack maps are ordered on the wire; Alpaca's keys are strings).
    case map([Entry])
    /// Extension type -1: seconds since 1970 and nanoseconds (0 ..< 1 000 000 000).
    case timestamp(seconds: Int64, nanoseconds: UInt32)
    /// Any other extension type, uninterpreted.
    case ext(type: Int8, data: [UInt8])

    /// One key–value pair of a map; a map keeps its entries in wire order, duplicates included.
    public struct Entry: Sendable, Equatable {
        /// The entry's key (a `.string` in everything Alpaca sends).
        public var key: MessagePack
        /// The entry's value.
        public var value: MessagePack

        /// An entry `key: value`.
        public init(_ key: MessagePack, _ value: MessagePack) {
            self.key = key
            self.value = value
        }
    }

    /// A map with string keys, in the given order.
    public static func object(_ members: KeyValuePairs<String, MessagePack>) -> MessagePack {
        .map(members.map { Entry(.string($0.key), $0.value) })
    }

    /// The value of string key `key` of a map, or nil.
    public subscript(key: String) -> MessagePack? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.key == .string(key) }?.value
    }

    /// The text of a string; nil for any other value (binary is not decoded).
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The elements of an array; nil for any other value.
    public var arrayValue: [MessagePack]? {
        if case .array(let items) = self { return items }
        return nil
    }
}

extension MessagePack: ExpressibleByStringLiteral {
    /// `"text"` as a MessagePack string.
    public init(stringLiteral value: String) { self = .string(value) }
}

/// Why bytes are not one well-formed MessagePack value.
public struct MessagePackError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The byte offset (from 0) where decoding stopped.
    public var offset: Int
    /// What was wrong there (`unexpected end of input`, `nesting too deep`, …).
    public var reason: String
    /// `reason at offset n`: safe to answer to the client, it quotes none of the input.
    public var description: String { "\(reason) at offset \(offset)" }
}

// MARK: Encoding

extension MessagePack {
    /// The value's bytes, each integer, string, collection and timestamp in its smallest format.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        encode(into: &out)
        return out
    }

    /// Appends the value's bytes to `out` (what ``encoded`` returns).
    func encode(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(0xc0)
        case .bool(let flag): out.append(flag ? 0xc3 : 0xc2)
        case .int(let value): Self.encodeInt(value, into: &out)
        case .uint(let value): Self.encodeUInt(value, into: &out)
        case .float(let value):
            out.append(0xcb)
            Self.append(value.bitPattern, bytes: 8, into: &out)
        case .string(let text):
            let bytes = Array(text.utf8)
            Self.header(count: bytes.count, fix: 0xa0, fixLimit: 32, one: 0xd9, two: 0xda, four: 0xdb, into: &out)
            out += bytes
        case .binary(let bytes):
            Self.header(count: bytes.count, fix: nil, fixLimit: 0, one: 0xc4, two: 0xc5, four: 0xc6, into: &out)
            out += bytes
        case .array(let items):
            Self.header(count: items.count, fix: 0x90, fixLimit: 16, one: nil, two: 0xdc, four: 0xdd, into: &out)
            for item in items { item.encode(into: &out) }
        case .map(let entries):
            Self.header(count: entries.count, fix: 0x80, fixLimit: 16, one: nil, two: 0xde, four: 0xdf, into: &out)
            for entry in entries {
                entry.key.encode(into: &out)
                entry.value.encode(into: &out)
            }
        case .timestamp(let seconds, let nanoseconds):
            if nanoseconds == 0, seconds >= 0, seconds <= Int64(UInt32.max) {
                // timestamp 32: fixext 4, uint32 seconds.
                out += [0xd6, 0xff]
                Self.append(UInt64(seconds), bytes: 4, into: &out)
            } else if seconds >= 0, seconds < (1 << 34), nanoseconds < 1_000_000_000 {
                // timestamp 64: fixext 8, nanoseconds in the upper 30 bits, seconds in the lower 34.
                out += [0xd7, 0xff]
                Self.append(UInt64(nanoseconds) << 34 | UInt64(seconds), bytes: 8, into: &out)
            } else {
                // timestamp 96: ext 8 of 12 bytes, uint32 nanoseconds then int64 seconds.
                out += [0xc7, 12, 0xff]
                Self.append(UInt64(nanoseconds), bytes: 4, into: &out)
                Self.append(UInt64(bitPattern: seconds), bytes: 8, into: &out)
            }
        case .ext(let type, let data):
            let code = UInt8(bitPattern: type)
            switch data.count {
            case 1: out += [0xd4, code]
            case 2: out += [0xd5, code]
            case 4: out += [0xd6, code]
            case 8: out += [0xd7, code]
            case 16: out += [0xd8, code]
            default:
                Self.header(count: data.count, fix: nil, fixLimit: 0, one: 0xc7, two: 0xc8, four: 0xc9, into: &out)
                out.append(code)
            }
            out += data
        }
    }

    private static func encodeInt(_ value: Int64, into out: inout [UInt8]) {
        if value >= 0 {
            encodeUInt(UInt64(value), into: &out)
        } else if value >= -32 {
            out.append(UInt8(bitPattern: Int8(value)))  // negative fixint 0xe0 ... 0xff
        } else if value >= Int64(Int8.min) {
            out.append(0xd0)
            append(UInt64(bitPattern: value), bytes: 1, into: &out)
        } else if value >= Int64(Int16.min) {
            out.append(0xd1)
            append(UInt64(bitPattern: value), bytes: 2, into: &out)
        } else if value >= Int64(Int32.min) {
            out.append(0xd2)
            append(UInt64(bitPattern: value), bytes: 4, into: &out)
        } else {
            out.append(0xd3)
            append(UInt64(bitPattern: value), bytes: 8, into: &out)
        }
    }

    private static func encodeUInt(_ value: UInt64, into out: inout [UInt8]) {
        if value < 0x80 {
            out.append(UInt8(value))  // positive fixint
        } else if value <= UInt64(UInt8.max) {
            out += [0xcc, UInt8(value)]
        } else if value <= UInt64(UInt16.max) {
            out.append(0xcd)
            append(value, bytes: 2, into: &out)
        } else if value <= UInt64(UInt32.max) {
            out.append(0xce)
            append(value, bytes: 4, into: &out)
        } else {
            out.append(0xcf)
            append(value, bytes: 8, into: &out)
        }
    }

    /// A length header: the fix form when it fits, else the 8-, 16- or 32-bit form the type has.
    private static func header(
        count: Int,
        fix: UInt8?,
        fixLimit: Int,
        one: UInt8?,
        two: UInt8,
        four: UInt8,
        into out: inout [UInt8]
    ) {
        if let fix, count < fixLimit {
            out.append(fix | UInt8(count))
        } else if let one, count <= Int(UInt8.max) {
            out += [one, UInt8(count)]
        } else if count <= Int(UInt16.max) {
            out.append(two)
            append(UInt64(count), bytes: 2, into: &out)
        } else {
            // Nothing the sandbox sends comes near 4 GiB; a larger count would not fit the format.
            out.append(four)
            append(UInt64(min(count, Int(UInt32.max))), bytes: 4, into: &out)
        }
    }

    /// Big-endian, the low `bytes` bytes of `value`.
    private static func append(_ value: UInt64, bytes: Int, into out: inout [UInt8]) {
        for index in stride(from: bytes - 1, through: 0, by: -1) {
            out.append(UInt8(truncatingIfNeeded: value >> (UInt64(index) * 8)))
        }
    }
}

// MARK: Decoding

extension MessagePack {
    /// Nesting deeper than this is refused (a hostile frame must not exhaust the stack).
    public static let maximumDepth = 64

    /// Decodes exactly one value; trailing bytes are an error.
    public init(decoding bytes: [UInt8]) throws(MessagePackError) {
        var reader = MessagePackReader(bytes: bytes)
        let value = try reader.value(depth: 0)
        guard reader.index == bytes.count else {
            throw MessagePackError(offset: reader.index, reason: "unexpected trailing bytes")
        }
        self = value
    }
}

private struct MessagePackReader {
    let bytes: [UInt8]
    var index = 0

    func fail(_ reason: String) -> MessagePackError { MessagePackError(offset: index, reason: reason) }

    mutating func byte() throws(MessagePackError) -> UInt8 {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        defer { index += 1 }
        return bytes[index]
    }

    /// A big-endian unsigned integer of `count` bytes.
    mutating func unsigned(_ count: Int) throws(MessagePackError) -> UInt64 {
        guard bytes.count - index >= count else { throw fail("unexpected end of input") }
        var value: UInt64 = 0
        for offset in 0..<count { value = value << 8 | UInt64(bytes[index + offset]) }
        index += count
        return value
    }

    mutating func take(_ count: Int) throws(MessagePackError) -> [UInt8] {
        guard count >= 0, bytes.count - index >= count else { throw fail("length beyond the end of input") }
        defer { index += count }
        return Array(bytes[index..<index + count])
    }

    /// A collection's element count, refused when the remaining bytes cannot hold that many elements (each takes
    /// at least one byte), so a forged count never reserves memory.
    mutating func count(_ width: Int, perElement: Int) throws(MessagePackError) -> Int {
        let count = Int(try unsigned(width))
        guard count <= (bytes.count - index) / perElement else { throw fail("count beyond the end of input") }
        return count
    }

    mutating func value(depth: Int) throws(MessagePackError) -> MessagePack {
        guard depth < MessagePack.maximumDepth else { throw fail("nesting too deep") }
        let start = index
        let lead = try byte()
        switch lead {
        case 0x00...0x7f: return .int(Int64(lead))
        case 0x80...0x8f: return try map(Int(lead & 0x0f), depth: depth)
        case 0x90...0x9f: return try array(Int(lead & 0x0f), depth: depth)
        case 0xa0...0xbf: return try string(Int(lead & 0x1f), at: start)
        case 0xc0: return .null
        case 0xc2: return .bool(false)
        case 0xc3: return .bool(true)
        case 0xc4: return .binary(try take(Int(try unsigned(1))))
        case 0xc5: return .binary(try take(Int(try unsigned(2))))
        case 0xc6: return .binary(try take(Int(try unsigned(4))))
        case 0xc7: return try ext(length: Int(try unsigned(1)), at: start)
        case 0xc8: return try ext(length: Int(try unsigned(2)), at: start)
        case 0xc9: return try ext(length: Int(try unsigned(4)), at: start)
        case 0xca: return .float(Double(Float(bitPattern: UInt32(try unsigned(4)))))
        case 0xcb: return .float(Double(bitPattern: try unsigned(8)))
        case 0xcc: return .int(Int64(try unsigned(1)))
        case 0xcd: return .int(Int64(try unsigned(2)))
        case 0xce: return .int(Int64(try unsigned(4)))
        case 0xcf:
            let value = try unsigned(8)
            return value <= UInt64(Int64.max) ? .int(Int64(value)) : .uint(value)
        case 0xd0: return .int(Int64(Int8(truncatingIfNeeded: try unsigned(1))))
        case 0xd1: return .int(Int64(Int16(truncatingIfNeeded: try unsigned(2))))
        case 0xd2: return .int(Int64(Int32(truncatingIfNeeded: try unsigned(4))))
        case 0xd3: return .int(Int64(bitPattern: try unsigned(8)))
        case 0xd4: return try ext(length: 1, at: start)
        case 0xd5: return try ext(length: 2, at: start)
        case 0xd6: return try ext(length: 4, at: start)
        case 0xd7: return try ext(length: 8, at: start)
        case 0xd8: return try ext(length: 16, at: start)
        case 0xd9: return try string(Int(try unsigned(1)), at: start)
        case 0xda: return try string(Int(try unsigned(2)), at: start)
        case 0xdb: return try string(Int(try unsigned(4)), at: start)
        case 0xdc: return try array(try count(2, perElement: 1), depth: depth)
        case 0xdd: return try array(try count(4, perElement: 1), depth: depth)
        case 0xde: return try map(try count(2, perElement: 2), depth: depth)
        case 0xdf: return try map(try count(4, perElement: 2), depth: depth)
        case 0xe0...0xff: return .int(Int64(Int8(bitPattern: lead)))
        default:
            index = start
            throw fail("0xc1 is never used")
        }
    }

    mutating func string(_ length: Int, at start: Int) throws(MessagePackError) -> MessagePack {
        let bytes = try take(length)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw MessagePackError(offset: start, reason: "str is not valid UTF-8")
        }
        return .string(text)
    }

    mutating func array(_ count: Int, depth: Int) throws(MessagePackError) -> MessagePack {
        var items: [MessagePack] = []
        items.reserveCapacity(count)
        for _ in 0..<count { items.append(try value(depth: depth + 1)) }
        return .array(items)
    }

    mutating func map(_ count: Int, depth: Int) throws(MessagePackError) -> MessagePack {
        var entries: [MessagePack.Entry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let key = try value(depth: depth + 1)
            entries.append(.init(key, try value(depth: depth + 1)))
        }
        return .map(entries)
    }

    mutating func ext(length: Int, at start: Int) throws(MessagePackError) -> MessagePack {
        let type = Int8(bitPattern: try byte())
        let data = try take(length)
        guard type == -1 else { return .ext(type: type, data: data) }
        func big(_ slice: ArraySlice<UInt8>) -> UInt64 { slice.reduce(0) { $0 << 8 | UInt64($1) } }
        switch length {
        case 4:
            return .timestamp(seconds: Int64(big(data[0..<4])), nanoseconds: 0)
        case 8:
            let packed = big(data[0..<8])
            let nanoseconds = UInt32(packed >> 34)
            guard nanoseconds < 1_000_000_000 else { throw MessagePackError(offset: start, reason: "timestamp nanoseconds out of range") }
            return .timestamp(seconds: Int64(packed & 0x3_ffff_ffff), nanoseconds: nanoseconds)
        case 12:
            let nanoseconds = UInt32(big(data[0..<4]))
            guard nanoseconds < 1_000_000_000 else { throw MessagePackError(offset: start, reason: "timestamp nanoseconds out of range") }
            return .timestamp(seconds: Int64(bitPattern: big(data[4..<12])), nanoseconds: nanoseconds)
        default:
            throw MessagePackError(offset: start, reason: "timestamp of \(length) bytes")
        }
    }
}
