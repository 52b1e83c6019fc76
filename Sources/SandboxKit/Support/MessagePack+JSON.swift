public import Foundation

/// The same message in either codec: Alpaca's streams speak JSON unless the client asked for msgpack
/// (`Content-Type: application/msgpack` on the upgrade request), and the sandbox builds each message once.
extension MessagePack {
    /// A JSON value as msgpack: integral numbers become ints, other numbers float64, objects maps.
    public init(json: JSON) {
        switch json {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .number(let text):
            if let value = Int64(text) {
                self = .int(value)
            } else if let value = UInt64(text) {
                self = .uint(value)
            } else if let value = Double(text) {
                self = .float(value)
            } else {
                self = .string(text)
            }
        case .string(let text): self = .string(text)
        case .array(let items): self = .array(items.map(MessagePack.init(json:)))
        case .object(let members): self = .map(members.map { Entry(.string($0.key), MessagePack(json: $0.value)) })
        }
    }

    /// The value as JSON: timestamps as RFC 3339 with nine fractional digits (as Alpaca's JSON streams write
    /// them), binary as base64, non-finite floats and other extension types as null.
    public var json: JSON {
        switch self {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .int(let value): .number(String(value))
        case .uint(let value): .number(String(value))
        case .float(let value): value.isFinite ? .number(String(value)) : .null
        case .string(let text): .string(text)
        case .binary(let bytes): .string(Data(bytes).base64EncodedString())
        case .array(let items): .array(items.map(\.json))
        case .map(let entries):
            .object(
                entries.map { entry in
                    let key: String =
                        switch entry.key {
                        case .string(let text): text
                        default: entry.key.json.serialized
                        }
                    return JSON.Member(key: key, value: entry.value.json)
                }
            )
        case .timestamp(let seconds, let nanoseconds):
            .string(Self.rfc3339(seconds: seconds, nanoseconds: nanoseconds))
        case .ext: .null
        }
    }

    /// A timestamp of `date`, to the nanosecond a `Date` (a Double) can hold.
    public static func timestamp(_ date: Date) -> MessagePack {
        let seconds = Timestamp.unixSeconds(date)
        let fraction = date.timeIntervalSince1970 - Double(seconds)
        let nanoseconds = fraction.isFinite ? UInt32(min(max((fraction * 1e9).rounded(.down), 0), 999_999_999)) : 0
        return .timestamp(seconds: seconds, nanoseconds: nanoseconds)
    }

    static func rfc3339(seconds: Int64, nanoseconds: UInt32) -> String {
        let clamped = min(max(seconds, -Int64(Timestamp.secondsLimit)), Int64(Timestamp.secondsLimit))
        var text = Timestamp.format(Date(timeIntervalSince1970: Double(clamped)), fractionDigits: 0)
        text.removeLast()  // "Z"
        let digits = String(min(nanoseconds, 999_999_999))
        return text + "." + String(repeating: "0", count: 9 - digits.count) + digits + "Z"
    }
}
