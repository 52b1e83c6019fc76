import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Testing

#if canImport(Glibc)
import Glibc
import TestWorlds

/// Two instances on one PostgreSQL database start from the same environment, each with a data folder of its own and
/// no file copied between them (issue 31): the master key, the transfer key and the session signing keys come from
/// `BROKERGATEWAY_MASTER_KEY`, `BROKERGATEWAY_TRANSFER_KEY` and `BROKERGATEWAY_SESSION_KEYS`.
@Suite("Many instances from one environment: no secret file copied", .heavyWorld)
struct FleetSecretsTests {
    @Test(
        .enabled(if: MultiInstanceProcessTests.postgresURL != nil, "BROKERGATEWAY_TEST_POSTGRES_URL is not set"),
        .timeLimit(.minutes(10))
    )
    func twoInstancesShareEverySecretThroughTheirEnvironment() async throws {
        let secrets = [
            "BROKERGATEWAY_MASTER_KEY": SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString(),
            "BROKERGATEWAY_TRANSFER_KEY": Curve25519.KeyAgreement.PrivateKey().rawRepresentation.base64EncodedString(),
            "BROKERGATEWAY_SESSION_KEYS": "fleet-1=\(P256.Signing.PrivateKey().rawRepresentation.base64EncodedString())",
        ]
        // The cluster links an Alpaca connection through the first instance and reads its accounts through the second:
        // credentials sealed by one are opened by the other.
        try await Cluster.with(instances: 2, secrets: secrets) { cluster in
            let (first, second) = (cluster.instances[0], cluster.instances[1])

            // One transfer key: a bundle sealed for either instance opens on both.
            var importKeys: [String] = []
            for instance in [first, second] {
                let (status, body) = try await cluster.send("GET", instance.url + "/v1/connections/import-key")
                #expect(status == 200, "\(body)")
                importKeys.append(try #require((body["data"] as? [String: Any])?["publicKey"] as? String, "\(body)"))
            }
            #expect(importKeys[0] == importKeys[1])

            // One session key ring: a session made through one instance is honoured by the other.
            let (mintStatus, minted) = try await cluster.send("POST", first.url + "/v1/users/\(cluster.userId)/login-codes", actingForUser: false)
            #expect(mintStatus == 201 || mintStatus == 200, "\(minted)")
            let code = try #require((minted["data"] as? [String: Any])?["code"] as? String, "\(minted)")
            var login = HTTPClientRequest(url: first.url + "/v1/auth/login")
            login.method = .POST
            login.headers.add(name: "Content-Type", value: "application/json")
            let loginBody = #"{"tenantId":"\#(cluster.tenantId)","code":"\#(code)","device":{"name":"fleet","type":"ios","fingerprint":"fleet"}}"#
            login.body = .bytes(ByteBuffer(string: loginBody))
            let loggedIn = try await HTTPClient.shared.execute(login, timeout: .seconds(60))
            let loginBytes = try await loggedIn.body.collect(upTo: 1 << 20)
            #expect(loggedIn.status == .ok, "\(String(buffer: loginBytes))")
            let tokens = try JSONSerialization.jsonObject(with: Data(loginBytes.readableBytesView)) as? [String: Any]
            let access = try #require((tokens?["data"] as? [String: Any])?["accessToken"] as? String)
            var session = HTTPClientRequest(url: second.url + "/v1/auth/session")
            session.headers.add(name: "Authorization", value: "Bearer \(access)")
            let answered = try await HTTPClient.shared.execute(session, timeout: .seconds(60))
            let sessionBytes = try await answered.body.collect(upTo: 1 << 20)
            #expect(answered.status == .ok, "the second instance: \(answered.status) \(String(buffer: sessionBytes))")

            // Nothing secret was written to any data folder.
            for folder in cluster.instanceData + [cluster.data] {
                for name in ["master.key", "transfer.key"] {
                    #expect(!FileManager.default.fileExists(atPath: folder + "/" + name), "\(folder)/\(name)")
                }
                let sessionKeys = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/session-keys")) ?? []
                #expect(sessionKeys.isEmpty, "\(folder)/session-keys: \(sessionKeys)")
            }
            #expect(Set(cluster.instanceData).count == 2)
        }
    }
}
#endif
