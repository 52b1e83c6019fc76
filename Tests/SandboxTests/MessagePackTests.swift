import Foundation
import SandboxKit
import Testing

/// The sandbox's msgpack codec against byte sequences worked from the MessagePack specification
/// (https://github.com/msgpack/msgpack/blob/master/spec.md: "Formats" and "Timestamp extension type"), and the
/// example on msgpack.org's front page.
@Suite("MessagePack")
struct MessagePackTests {
    static let cases: [(MessagePack, [UInt8])] = [
        (.null, [0xc0]),
        (.bool(false), [0xc2]),
        (.bool(true), [0xc3]),
        // positive fixint, then uint 8/16/32/64 at each boundary
        (.int(0), [0x00]),
        (.int(127), [0x7f]),
        (.int(128), [0xcc, 0x80]),
        (.int(255), [0xcc, 0xff]),
        (.int(256), [0xcd, 0x01, 0x00]),
        (.int(65_535), [0xcd, 0xff, 0xff]),
        (.int(65_536), [0xce, 0x00, 0x01, 0x00, 0x00]),
        (.int(4_294_967_296), [0xcf, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00]),
        (.uint(UInt64.max), [0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
        // negative fixint, then int 8/16/32/64
        (.int(-1), [0xff]),
        (.int(-32), [0xe0]),
        (.int(-33), [0xd0, 0xdf]),
        (.int(-128), [0xd0, 0x80]),
        (.int(-129), [0xd1, 0xff, 0x7f]),
        (.int(-32_769), [0xd2, 0xff, 0xff, 0x7f, 0xff]),
        (.int(-2_147_483_649), [0xd3, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff]),
        // float 64: IEEE 754 big-endian
        (.float(1.5), [0xcb, 0x3f, 0xf8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
        (.float(187.42), [0xcb] + Array(withUnsafeBytes(of: (187.42).bitPattern.bigEndian) { Array($0) })),
        // fixstr, str 8
        (.string(""), [0xa0]),
        (.string("a"), [0xa1, 0x61]),
        (.string("é"), [0xa2, 0xc3, 0xa9]),
        (.string(String(repeating: "x", count: 32)), [0xd9, 0x20] + Array(repeating: 0x78, count: 32)),
        (.string(String(repeating: "x", count: 256)), [0xda, 0x01, 0x00] + Array(repeating: 0x78, count: 256)),
        // bin 8
        (.binary([1, 2]), [0xc4, 0x02, 0x01, 0x02]),
        // fixarray, array 16
        (.array([.int(1), .int(2), .int(3)]), [0x93, 0x01, 0x02, 0x03]),
        (.array(Array(repeating: .null, count: 16)), [0xdc, 0x00, 0x10] + Array(repeating: 0xc0, count: 16)),
        // fixmap; msgpack.org's example {"compact":true,"schema":0}
        (.object(["a": .int(1)]), [0x81, 0xa1, 0x61, 0x01]),
        (
            .object(["compact": .bool(true), "schema": .int(0)]),
            [0x82, 0xa7, 0x63, 0x6f, 0x6d, 0x70, 0x61, 0x63, 0x74, 0xc3, 0xa6, 0x73, 0x63, 0x68, 0x65, 0x6d, 0x61, 0x00]
        ),
        // timestamp 32 (fixext 4), 64 (fixext 8: nanoseconds << 34 | seconds), 96 (ext 8 of 12 bytes)
        (.timestamp(seconds: 1, nanoseconds: 0), [0xd6, 0xff, 0x00, 0x00, 0x00, 0x01]),
        (.timestamp(seconds: 1_736_175_600, nanoseconds: 0), [0xd6, 0xff, 0x67, 0x7b, 0xef, 0xf0]),
        (.timestamp(seconds: 1, nanoseconds: 1), [0xd7, 0xff, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01]),
        (
            .timestamp(seconds: -1, nanoseconds: 0),
            [0xc7, 0x0c, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
        ),
        // other extension types stay bytes (fixext 1, ext 8)
        (.ext(type: 5, data: [0x2a]), [0xd4, 0x05, 0x2a]),
        (.ext(type: 5, data: [1, 2, 3]), [0xc7, 0x03, 0x05, 0x01, 0x02, 0x03]),
    ]

    @Test("each value encodes to the spec's bytes and decodes back", arguments: 0..<cases.count)
    func bytes(_ index: Int) throws {
        let (value, bytes) = Self.cases[index]
        #expect(value.encoded == bytes)
        #expect(try MessagePack(decoding: bytes) == value)
    }

    @Test("formats a decoder must read although the encoder never writes them")
    func widerFormats() throws {
        #expect(try MessagePack(decoding: [0xca, 0x3f, 0xc0, 0x00, 0x00]) == .float(1.5))  // float 32
        #expect(try MessagePack(decoding: [0xd0, 0x01]) == .int(1))  // int 8 holding a positive value
        #expect(try MessagePack(decoding: [0xcd, 0x00, 0x01]) == .int(1))  // uint 16 holding a small value
        #expect(try MessagePack(decoding: [0xdb, 0x00, 0x00, 0x00, 0x01, 0x61]) == .string("a"))  // str 32
        #expect(try MessagePack(decoding: [0xde, 0x00, 0x01, 0xa1, 0x61, 0xc0]) == .object(["a": .null]))  // map 16
        #expect(try MessagePack(decoding: [0xc5, 0x00, 0x01, 0x07]) == .binary([7]))  // bin 16
    }

    @Test(
        "malformed input is an error, never a trap",
        arguments: [
            [UInt8](),  // nothing
            [0xc1],  // never used
            [0xcd, 0x01],  // uint 16 cut short
            [0xa2, 0x61],  // fixstr longer than the input
            [0xa1, 0xff],  // str not UTF-8
            [0x01, 0x02],  // trailing bytes
            [0xdd, 0xff, 0xff, 0xff, 0xff],  // array 32 of four billion elements in four bytes
            [0xdf, 0x7f, 0xff, 0xff, 0xff, 0x00],  // map 32 likewise
            [0xc6, 0xff, 0xff, 0xff, 0xff],  // bin 32 beyond the input
            [0xd7, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00],  // timestamp 64 with nanoseconds over 999999999
            [0xc7, 0x05, 0xff, 0, 0, 0, 0, 0],  // timestamp of 5 bytes
            Array(repeating: 0x91, count: 100) + [0xc0],  // nested 100 deep
        ] as [[UInt8]]
    )
    func malformed(_ bytes: [UInt8]) {
        #expect(throws: MessagePackError.self) { try MessagePack(decoding: bytes) }
    }

    @Test("a stream message round-trips, and reads the same as JSON")
    func roundTrip() throws {
        let message: MessagePack = .array([
            .object([
                "T": "q", "S": "AAPL", "bp": .float(187.41), "bs": .int(3), "c": .array(["R"]),
                "t": .timestamp(seconds: 1_736_175_600, nanoseconds: 123_456_789),
            ])
        ])
        #expect(try MessagePack(decoding: message.encoded) == message)
        #expect(
            message.json.serialized
                == #"[{"T":"q","S":"AAPL","bp":187.41,"bs":3,"c":["R"],"t":"2025-01-06T15:00:00.123456789Z"}]"#
        )
        let parsed = MessagePack(json: try JSON(parsing: #"{"action":"subscribe","quotes":["AAPL"],"n":-2,"x":1.25}"#))
        #expect(parsed == .object(["action": "subscribe", "quotes": .array(["AAPL"]), "n": .int(-2), "x": .float(1.25)]))
    }
}
