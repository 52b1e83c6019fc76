import Foundation
import GatewayModel

/// The number literals of a JSON text, each with the path of its member, as the client wrote them.
///
/// Foundation's JSON reader turns a number into a `Decimal` by keeping its first 38 or 39 significant digits and
/// dropping the rest without a word ("1.00000000000000000000000000000000000000001" reads as 1), and afterwards the
/// literal is gone. So the API reads the literals of the bodies that carry decimals itself, before the generated
/// server decodes them (``DecimalLiterals``). This is a scanner, not a parser: it stops at the first byte that is not
/// JSON and leaves the error to the decoder, which names it.
enum JSONNumberLiterals {
    /// A number literal and where it is: `quantity`, `legs[0].price` (the decoder's own path notation).
    struct Literal: Sendable, Hashable {
        var path: String
        var text: String
    }

    /// Every number literal of `json` up to the first byte that is not JSON, in document order.
    static func all(in json: Data) -> [Literal] {
        var scanner = Scanner(bytes: Array(json))
        scanner.scan()
        return scanner.literals
    }

    private enum Container {
        case object(key: String?)
        case array(index: Int)
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var stack: [Container] = []
        var literals: [Literal] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        var path: String {
            var text = ""
            for container in stack {
                switch container {
                case .object(let key?): text += text.isEmpty ? key : ".\(key)"
                case .object(nil): break
                case .array(let index): text += "[\(index)]"
                }
            }
            return text.isEmpty ? "body" : text
        }

        mutating func scan() {
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"), UInt8(ascii: ":"):
                    index += 1
                case UInt8(ascii: "{"):
                    stack.append(.object(key: nil))
                    index += 1
                case UInt8(ascii: "["):
                    stack.append(.array(index: 0))
                    index += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard !stack.isEmpty else { return }
                    stack.removeLast()
                    index += 1
                case UInt8(ascii: ","):
                    switch stack.last {
                    case .array(let position)?: stack[stack.count - 1] = .array(index: position + 1)
                    case .object?: stack[stack.count - 1] = .object(key: nil)
                    case nil: return
                    }
                    index += 1
                case UInt8(ascii: "\""):
                    guard let text = string() else { return }
                    // A string where a key is expected names the member; any other string is a value.
                    if case .object(nil)? = stack.last, nextSignificantByte() == UInt8(ascii: ":") {
                        stack[stack.count - 1] = .object(key: text)
                    }
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    let start = index
                    while index < bytes.count, Self.isNumberByte(bytes[index]) { index += 1 }
                    literals.append(Literal(path: path, text: String(decoding: bytes[start..<index], as: UTF8.self)))
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    while index < bytes.count, bytes[index] >= UInt8(ascii: "a"), bytes[index] <= UInt8(ascii: "z") {
                        index += 1
                    }
                default:
                    return
                }
            }
        }

        /// The string starting at `index` (its escapes kept as written), with `index` moved past its closing quote.
        mutating func string() -> String? {
            let start = index + 1
            var cursor = start
            while cursor < bytes.count {
                switch bytes[cursor] {
                case UInt8(ascii: "\\"): cursor += 2
                case UInt8(ascii: "\""):
                    index = cursor + 1
                    return String(decoding: bytes[start..<cursor], as: UTF8.self)
                default: cursor += 1
                }
            }
            return nil
        }

        func nextSignificantByte() -> UInt8? {
            var cursor = index
            while cursor < bytes.count, [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains(bytes[cursor]) {
                cursor += 1
            }
            return cursor < bytes.count ? bytes[cursor] : nil
        }

        static func isNumberByte(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
        }
    }
}
