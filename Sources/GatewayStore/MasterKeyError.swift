/// Why the gateway cannot use a master key. The message says what to do and never contains key material.
public struct MasterKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The key is not base64, or not 32 bytes.
        public static let invalidKey = Code("invalid_key")
        /// The key file can be read or written by group or others, or is not a regular file.
        public static let insecureKeyFile = Code("insecure_key_file")
        /// The key file or its folder cannot be read or created.
        public static let keyFileUnavailable = Code("key_file_unavailable")
        /// The database was sealed with a different master key.
        public static let keyMismatch = Code("key_mismatch")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
