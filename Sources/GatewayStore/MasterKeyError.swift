/// Why the gateway cannot use a master key. The message says what to do and never contains key material.
public struct MasterKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable machine-readable reason, so scripts and tests match on it rather than on the message.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's text, as the error's description prints it.
        public let rawValue: String
        /// A code from its text (`RawRepresentable`).
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A code from its text, the short form the constants below use.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// The code's text.
        public var description: String { rawValue }

        /// The key is not base64, or not 32 bytes.
        public static let invalidKey = Code("invalid_key")
        /// The key file can be read or written by group or others, or is not a regular file.
        public static let insecureKeyFile = Code("insecure_key_file")
        /// The key file or its folder cannot be read or created.
        public static let keyFileUnavailable = Code("key_file_unavailable")
        /// The database was sealed with a different master key.
        public static let keyMismatch = Code("key_mismatch")
        /// A master key rotation to another key is open: finish it first.
        public static let rotationInProgress = Code("rotation_in_progress")
        /// A rotation cannot finish: some stored value opens under neither of its keys.
        public static let rotationIncomplete = Code("rotation_incomplete")
        /// No master key rotation is open.
        public static let notRotating = Code("not_rotating")
    }

    /// Why the key cannot be used.
    public var code: Code
    /// What to do about it, for the operator; never key material.
    public var message: String

    /// An error with its code and the operator's message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`, as the start-up failure prints it.
    public var description: String { "\(code.rawValue): \(message)" }
}
