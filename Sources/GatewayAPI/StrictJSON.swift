import Foundation
import GatewayCore
import GatewayModel

/// What the JSON decoder lets through and the API must not: a body that starts with a byte-order mark, an object
/// that names one member twice (the decoder keeps one of them, so the client's request and the gateway's reading of
/// it can differ: `{"side":"buy","side":"sell"}`), and a string holding a NUL character (U+0000, raw or escaped),
/// which names, labels and ids carry on into logs, C libraries and brokers that end the text there.
///
/// RFC 8259 §8.1 lets a parser ignore a byte-order mark and §4 leaves duplicate names' meaning to the implementation;
/// the API refuses both as malformed (400, I-JSON, RFC 7493 §2.3, forbids duplicate names). A NUL character is valid
/// JSON that the document's string schemas admit, so it breaks a rule rather than the syntax: 422, like every rule JSON
/// Schema does not say. A body that is not JSON at all is left to the decoder, which names that itself.
enum StrictJSON {
    /// The first problem in `bytes` as the API's error: 400 `invalid_request` for a mark or a member named twice, 422
    /// `unprocessable` for a NUL character; `nil` when there is none (or the text is not JSON: the decoder says so).
    static func refusal(of bytes: [UInt8]) -> GatewayError? {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            return .invalid("body", "starts with a byte-order mark; send UTF-8 without one")
        }
        var scanner = Scanner(bytes: bytes)
        do {
            scanner.skipSpace()
            try scanner.value(path: [])
            return nil
        } catch let found as Found {
            return found.isSyntax ? .invalid(found.problem.field, found.problem.problem) : .unprocessable([found.problem])
        } catch {
            return nil
        }
    }

    /// Nesting deeper than this is not checked further (the decoder refuses far less deep bodies itself).
    static let maximumDepth = 512

    private struct Found: Error {
        var problem: FieldProblem
        /// The text's form (a member named twice), not a value's content (a NUL).
        var isSyntax = false
    }

    /// The text is not JSON (or nests too deep): the decoder answers for it.
    private struct NotJSON: Error {}

    private enum PathItem {
        case key(String)
        case index(Int)
    }

    private static func field(_ path: [PathItem]) -> String {
        var text = ""
        for item in path {
            switch item {
            case .key(let key): text += text.isEmpty ? key : ".\(key)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text.isEmpty ? "body" : text
    }

    private struct Scanner {
        let bytes: [UInt8]
        var offset = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func skipSpace() {
            while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
        }

        mutating func expect(_ byte: UInt8) throws {
            guard offset < bytes.count, bytes[offset] == byte else { throw NotJSON() }
            offset += 1
        }

        mutating func value(path: [PathItem]) throws {
            guard path.count <= StrictJSON.maximumDepth, offset < bytes.count else { throw NotJSON() }
            switch bytes[offset] {
            case UInt8(ascii: "{"): try object(path: path)
            case UInt8(ascii: "["): try array(path: path)
            case UInt8(ascii: "\""):
                if try string().hasNUL { throw Found(problem: nulProblem(path)) }
            default:
                // A number, true, false or null: nothing in them is strict JSON's concern; the decoder reads them.
                while offset < bytes.count, !Self.endsScalar(bytes[offset]) { offset += 1 }
            }
        }

        static func endsScalar(_ byte: UInt8) -> Bool {
            [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}")].contains(byte)
        }

        func nulProblem(_ path: [PathItem]) -> FieldProblem {
            FieldProblem(field: StrictJSON.field(path), problem: "must not contain a NUL character (U+0000)")
        }

        mutating func object(path: [PathItem]) throws {
            try expect(UInt8(ascii: "{"))
            skipSpace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return
            }
            var names: Set<String> = []
            while true {
                skipSpace()
                guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw NotJSON() }
                let name = try string()
                let member = path + [.key(name.text)]
                if name.hasNUL {
                    throw Found(
                        problem: FieldProblem(
                            field: StrictJSON.field(path + [.key(name.text.replacingNUL)]),
                            problem: "is a member name with a NUL character (U+0000)"
                        )
                    )
                }
                guard names.insert(name.text).inserted else {
                    throw Found(
                        problem: FieldProblem(
                            field: StrictJSON.field(member),
                            problem: "appears more than once in its object; send each member once"
                        ),
                        isSyntax: true
                    )
                }
                skipSpace()
                try expect(UInt8(ascii: ":"))
                skipSpace()
                try value(path: member)
                skipSpace()
                guard offset < bytes.count else { throw NotJSON() }
                if bytes[offset] == UInt8(ascii: ",") {
                    offset += 1
                    continue
                }
                try expect(UInt8(ascii: "}"))
                return
            }
        }

        mutating func array(path: [PathItem]) throws {
            try expect(UInt8(ascii: "["))
            skipSpace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return
            }
            var index = 0
            while true {
                skipSpace()
                try value(path: path + [.index(index)])
                index += 1
                skipSpace()
                guard offset < bytes.count else { throw NotJSON() }
                if bytes[offset] == UInt8(ascii: ",") {
                    offset += 1
                    continue
                }
                try expect(UInt8(ascii: "]"))
                return
            }
        }

        /// A string at the offset (its opening quote), decoded: escapes resolved, so `"a"` and `"\u0061"` are one
        /// name. `hasNUL` when it holds U+0000, raw or escaped.
        mutating func string() throws -> (text: String, hasNUL: Bool) {
            try expect(UInt8(ascii: "\""))
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            var hasNUL = false
            func flush() {
                guard !raw.isEmpty else { return }
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll(keepingCapacity: true)
            }
            while offset < bytes.count {
                let byte = bytes[offset]
                offset += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flush()
                    return (String(scalars), hasNUL)
                case UInt8(ascii: "\\"):
                    flush()
                    guard offset < bytes.count else { throw NotJSON() }
                    let escape = bytes[offset]
                    offset += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(Unicode.Scalar(escape))
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        var unit = try hex4()
                        if (0xD800...0xDBFF).contains(unit), offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"),
                            bytes[offset + 1] == UInt8(ascii: "u")
                        {
                            let save = offset
                            offset += 2
                            let low = try hex4()
                            if (0xDC00...0xDFFF).contains(low) {
                                unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                            } else {
                                offset = save
                            }
                        }
                        if unit == 0 { hasNUL = true }
                        // A lone surrogate is not a scalar; it stands as U+FFFD here (the decoder judges it).
                        scalars.append(Unicode.Scalar(unit) ?? "\u{FFFD}")
                    default:
                        throw NotJSON()
                    }
                case 0x00:
                    hasNUL = true
                    raw.append(byte)
                default:
                    raw.append(byte)
                }
            }
            throw NotJSON()
        }

        mutating func hex4() throws -> UInt32 {
            guard offset + 4 <= bytes.count else { throw NotJSON() }
            var value: UInt32 = 0
            for byte in bytes[offset..<offset + 4] {
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw NotJSON()
                }
                value = value << 4 | digit
            }
            offset += 4
            return value
        }
    }
}

extension String {
    /// The text with each NUL shown as `\u0000`, so a field name that holds one can be named in an error.
    fileprivate var replacingNUL: String { replacingOccurrences(of: "\u{0}", with: "\\u0000") }
}
