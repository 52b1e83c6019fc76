import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

@Suite("Credentials at rest")
struct CredentialEncryptionTests {
    @Test("credentials never appear in the SQLite files as plain text, and decrypt back")
    func notPlainText() async throws {
        try await withStore { store, directory in
            let secret = "RECOGNISABLE-SECRET-\(UUID().uuidString)"
            let displayName = "RECOGNISABLE-NAME-\(UUID().uuidString)"
            let tenant = try await store.createTenant(name: "Acme")
            let connection = try await store.createConnection(
                tenantId: tenant.id,
                userId: nil,
                sampleConnection(displayName, credentials: ["apiSecretKey": secret])
            )

            // While the store is open the row sits in the -wal file; both are read.
            let openFiles = try databaseFileBytes(in: directory)
            #expect(occurs(displayName, in: openFiles), "the scan must see the row's plain columns")
            #expect(!occurs(secret, in: openFiles))

            let decrypted = try await store.credentials(tenantId: tenant.id, connectionId: connection.id)
            #expect(decrypted == BrokerCredentials(["apiSecretKey": secret]))

            let rotated = "ROTATED-SECRET-\(UUID().uuidString)"
            try await store.updateCredentials(
                tenantId: tenant.id,
                connectionId: connection.id,
                BrokerCredentials(["apiSecretKey": rotated])
            )
            #expect(try await store.credentials(tenantId: tenant.id, connectionId: connection.id)["apiSecretKey"] == rotated)

            // Closing checkpoints the WAL into the main file.
            try store.close()
            let closedFiles = try databaseFileBytes(in: directory)
            #expect(occurs(displayName, in: closedFiles))
            #expect(!occurs(secret, in: closedFiles))
            #expect(!occurs(rotated, in: closedFiles))
        }
    }

    @Test("a ciphertext moved to another row does not decrypt", arguments: StoreBackend.all)
    func movedCiphertextFails(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let alice = try await store.createTenant(name: "Alice")
            let bob = try await store.createTenant(name: "Bob")
            let source = try await store.createConnection(
                tenantId: alice.id,
                userId: nil,
                sampleConnection("A1", credentials: ["apiSecretKey": "alice-secret-1"])
            )
            let sameTenant = try await store.createConnection(
                tenantId: alice.id,
                userId: nil,
                sampleConnection("A2", credentials: ["apiSecretKey": "alice-secret-2"])
            )
            let otherTenant = try await store.createConnection(
                tenantId: bob.id,
                userId: nil,
                sampleConnection("B1", credentials: ["apiSecretKey": "bob-secret"])
            )

            for target in [sameTenant, otherTenant] {
                try await store.rawExecute(
                    """
                    UPDATE connections SET credentials_ciphertext =
                        (SELECT credentials_ciphertext FROM connections WHERE id = ?)
                    WHERE id = ?
                    """,
                    [source.id, target.id]
                )
                let error = await #expect(throws: GatewayError.self) {
                    try await store.credentials(tenantId: target.tenantId, connectionId: target.id)
                }
                #expect(error?.code == .internalError)
                #expect(error?.message.contains("alice-secret-1") == false)
            }
            // The original row still opens.
            #expect(try await store.credentials(tenantId: alice.id, connectionId: source.id)["apiSecretKey"] == "alice-secret-1")
        }
    }

    @Test("a tampered ciphertext or another key does not decrypt")
    func tamperedOrWrongKey() throws {
        let cipher = CredentialCipher.random()
        let credentials = BrokerCredentials(["token": "abc"])
        var sealed = try cipher.seal(credentials, tenantId: "ten_a", connectionId: "conn_a")
        #expect(try cipher.open(sealed, tenantId: "ten_a", connectionId: "conn_a") == credentials)
        #expect(throws: GatewayError.self) {
            try CredentialCipher.random().open(sealed, tenantId: "ten_a", connectionId: "conn_a")
        }
        #expect(throws: GatewayError.self) { try cipher.open(sealed, tenantId: "ten_b", connectionId: "conn_a") }
        sealed[sealed.count - 1] ^= 0x01
        #expect(throws: GatewayError.self) { try cipher.open(sealed, tenantId: "ten_a", connectionId: "conn_a") }
        #expect(throws: GatewayError.self) { try cipher.open(Data(), tenantId: "ten_a", connectionId: "conn_a") }
    }

    @Test("sealing the same credentials twice gives different ciphertexts (fresh nonces)")
    func freshNonces() throws {
        let cipher = CredentialCipher.random()
        let credentials = BrokerCredentials(["token": "abc"])
        let first = try cipher.seal(credentials, tenantId: "ten_a", connectionId: "conn_a")
        let second = try cipher.seal(credentials, tenantId: "ten_a", connectionId: "conn_a")
        #expect(first != second)
    }
}
