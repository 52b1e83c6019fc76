import Crypto
import CryptoExtras
import Dispatch
import Foundation
import GatewayCore

/// Passwords as scrypt (RFC 7914) hashes in a PHC-style string: `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (base64,
/// 16 random bytes of salt, 32 of hash). Hashing runs on a dispatch queue, never on the cooperative pool, in the
/// few slots of `gate` shared fairly between tenants (``HashingGate``), so logins cannot starve request handling or
/// memory, and one tenant's logins cannot starve another's.
struct PasswordHasher: Sendable {
    let cost: Int
    let gate: HashingGate

    /// The gate's name for work done for a tenant that does not exist: every unknown tenant shares one share, so
    /// made-up tenant ids cannot claim more slots.
    static let unknownTenant = "?"

    init(cost: Int, limits: LoginLimits = LoginLimits()) {
        self.cost = cost
        self.gate = HashingGate(limits: limits)
    }

    static let blockSize = 8
    static let parallelism = 1
    static let minimumLength = 10
    static let maximumLength = 256

    func hash(_ password: String, tenant: String) async throws -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        for index in salt.indices { salt[index] = UInt8.random(in: 0...255) }
        let cost = self.cost
        let derived = try await derive(password, salt: salt, cost: cost, tenant: tenant)
        return "$scrypt$ln=\(cost),r=\(Self.blockSize),p=\(Self.parallelism)$"
            + Data(salt).base64EncodedString() + "$" + Data(derived).base64EncodedString()
    }

    /// Whether the password is the one hashed. A malformed stored hash verifies nothing.
    func verify(_ password: String, against stored: String, tenant: String) async throws -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: true)
        guard parts.count == 4, parts[0] == "scrypt",
            let cost = parts[1].split(separator: ",").first.flatMap({ $0.hasPrefix("ln=") ? Int($0.dropFirst(3)) : nil }),
            (10...20).contains(cost),
            let salt = Data(base64Encoded: String(parts[2])), let expected = Data(base64Encoded: String(parts[3]))
        else { return false }
        let derived = try await derive(password, salt: Array(salt), cost: cost, tenant: tenant)
        return ConstantTime.equals(derived, Array(expected))
    }

    /// The same work as a verification, for a login whose user does not exist: both answer in similar time.
    func verifyNothing(_ password: String, tenant: String) async throws {
        _ = try await derive(password, salt: [UInt8](repeating: 0, count: 16), cost: cost, tenant: tenant)
    }

    private func derive(_ password: String, salt: [UInt8], cost: Int, tenant: String) async throws -> [UInt8] {
        try await gate.run(tenant: tenant) {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global(qos: .userInitiated).async {
                    continuation.resume(
                        with: Result {
                            let key = try KDF.Scrypt.deriveKey(
                                from: Array(password.utf8),
                                salt: salt,
                                outputByteCount: 32,
                                rounds: 1 << cost,
                                blockSize: Self.blockSize,
                                parallelism: Self.parallelism,
                                maxMemory: 256 << 20
                            )
                            return key.withUnsafeBytes { Array($0) }
                        }
                    )
                }
            }
        }
    }
}
