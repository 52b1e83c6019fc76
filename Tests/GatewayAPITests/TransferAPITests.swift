import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import GatewaySQLiteStore
import GatewayStore
import HTTPTypes
import HummingbirdTesting
import Testing

/// Export and import between gateways: off unless enabled, sealed to the receiving gateway's key, and every
/// imported connection checked and proven exactly as linking does.
@Suite("API: exporting and importing connections")
struct TransferAPITests {
    /// A gateway of its own (data folder, transfer key from it, fake brokers) for `body`.
    func gateway<T: Sendable>(
        exportEnabled: Bool = false,
        brokers: FakeBrokerState = FakeBrokerState(),
        _ body: @escaping @Sendable (APIHarness, any TestClientProtocol, TransferKey) async throws -> T
    ) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-transfer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try TransferKey.load(dataDirectory: directory)
        return try await APIHarness.with(
            directory: directory,
            brokerState: brokers,
            linking: LinkSettings(exportEnabled: exportEnabled, transferKey: key)
        ) { harness, client in try await body(harness, client, key) }
    }

    func importKey(_ harness: APIHarness, _ client: any TestClientProtocol) async throws -> String {
        let answer = try await client.call(.get, "/v1/connections/import-key", headers: harness.auth)
        try #require(answer.status == 200, "\(answer.body)")
        return try #require(answer.body.dataObject["publicKey"] as? String)
    }

    /// A bundle anyone can make: connections sealed to a public key.
    func seal(_ connections: String, to key: [UInt8]) throws -> String {
        try TransferKey.seal(Data(#"{"version":2,"connections":[\#(connections)]}"#.utf8), to: key).base64EncodedString()
    }

    @Test func exportIsRefusedUnlessTheOperatorEnablesIt() async throws {
        try await gateway { harness, client, key in
            try await harness.link(.alpaca, baseURL: "https://one.fake")
            let refused = try await client.call(
                .post,
                "/v1/connections/export",
                headers: harness.auth,
                json: #"{"recipientKey":"\#(key.publicKeyBase64)"}"#
            )
            #expect(refused.status == 403)
            #expect(refused.body.errorCode == "forbidden")
            #expect(refused.body.detailFields == ["export"])
            #expect(refused.body["data"] == nil)
        }
    }

    @Test func theImportKeyIsTheDataFolders() async throws {
        try await gateway { harness, client, key in
            #expect(try await importKey(harness, client) == key.publicKeyBase64)
            let answer = try await client.call(.get, "/v1/connections/import-key", headers: harness.auth)
            #expect(answer.body.dataObject["suite"] as? String == TransferKey.suiteName)
            #expect(try await client.call(.get, "/v1/connections/import-key", headers: [:]).status == 401)
        }
    }

    @Test func aRoundTripLinksTheConnectionsOnTheReceiverAfterItsOwnProof() async throws {
        // The receiver's broker refuses the second connection's credentials: the proof is the receiver's.
        let receiverBrokers = FakeBrokerState()
        receiverBrokers.set("https://two.fake", FakeBrokerBehaviour(validCredentials: BrokerCredentials(["token": "rotated"])))
        try await gateway(brokers: receiverBrokers) { receiver, receiverClient, receiverKey in
            let recipient = try await importKey(receiver, receiverClient)
            let bundle: String = try await gateway(exportEnabled: true) { sender, senderClient, _ in
                for (name, url) in [("One", "https://one.fake"), ("Two", "https://two.fake")] {
                    let linked = try await senderClient.call(
                        .post,
                        "/v1/connections",
                        headers: sender.auth,
                        json: #"{"broker":"alpaca","displayName":"\#(name)","baseURL":"\#(url)","credentials":{"token":"good"}}"#
                    )
                    try #require(linked.status == 201)
                }
                let exported = try await senderClient.call(
                    .post,
                    "/v1/connections/export",
                    headers: sender.auth,
                    json: #"{"recipientKey":"\#(recipient)"}"#
                )
                try #require(exported.status == 200, "\(exported.body)")
                let data = exported.body.dataObject
                #expect(data["key"] == nil, "nothing that opens the bundle comes with it")
                #expect(data["count"] as? Int == 2)
                #expect(data["recipientKey"] as? String == recipient)
                let bundle = try #require(data["bundle"] as? String)
                let sealed = try #require(Data(base64Encoded: bundle))
                #expect(sealed.range(of: Data("good".utf8)) == nil)
                // The sender itself cannot open what it sealed to the receiver.
                let own = try await senderClient.call(
                    .post,
                    "/v1/connections/import",
                    headers: sender.auth,
                    json: #"{"bundle":"\#(bundle)"}"#
                )
                #expect(own.status == 422)
                #expect(own.body.detailFields == ["bundle"])
                return bundle
            }
            let imported = try await receiverClient.call(
                .post,
                "/v1/connections/import",
                headers: receiver.auth,
                json: #"{"bundle":"\#(bundle)"}"#
            )
            try #require(imported.status == 200, "\(imported.body)")
            let reports = imported.body.dataList
            #expect(reports.map { $0["outcome"] as? String } == ["linked", "refused"])
            #expect((reports[0]["connection"] as? [String: Any])?["status"] as? String == "active")
            #expect((reports[0]["connection"] as? [String: Any])?["displayName"] as? String == "One")
            let refusal = try #require(reports[1]["error"] as? [String: Any])
            #expect(refusal["code"] as? String == "unprocessable")
            #expect((refusal["details"] as? [[String: Any]])?.first?["field"] as? String == "credentials")
            let stored = try await receiver.store.connections(tenantId: receiver.tenant.id)
            #expect(stored.map(\.displayName) == ["One"])
            #expect(stored.allSatisfy { $0.status == .active })
            _ = receiverKey
        }
    }

    @Test func aBundleNotSealedToThisGatewayIsRefused() async throws {
        try await gateway { harness, client, _ in
            let stranger = TransferKey.random()
            let selfSealed = try seal(#"{"broker":"alpaca","credentials":{"token":"good"}}"#, to: stranger.publicKey)
            let refused = try await client.call(.post, "/v1/connections/import", headers: harness.auth, json: #"{"bundle":"\#(selfSealed)"}"#)
            #expect(refused.status == 422)
            #expect(refused.body.detailFields == ["bundle"])
            let garbage = try await client.call(.post, "/v1/connections/import", headers: harness.auth, json: #"{"bundle":"not base64!"}"#)
            #expect(garbage.status == 422)
            // The format of before (a bundle and its key side by side) is not accepted.
            let old = try await client.call(
                .post,
                "/v1/connections/import",
                headers: harness.auth,
                json: #"{"bundle":"AAAA","key":"AAAA"}"#
            )
            #expect(old.status == 400)
            #expect(try await harness.store.connections(tenantId: harness.tenant.id).isEmpty)
        }
    }

    @Test func everyImportedConnectionGetsTheChecksAndTheProofOfLinking() async throws {
        try await gateway { harness, client, key in
            // What linking answers to each of these, asked of the same gateway.
            let hostile = [
                #"{"broker":"alpaca","baseURL":"gopher://127.0.0.1:70/","credentials":{"token":"good"}}"#,
                #"{"broker":"alpaca","displayName":"","credentials":{"token":"good"}}"#,
                #"{"broker":"alpaca","displayName":"\#(String(repeating: "x", count: 101))","credentials":{"token":"good"}}"#,
                #"{"broker":"alpaca","credentials":{"token":"bad"}}"#,
                #"{"broker":"alpaca"}"#,
                #"{"broker":"robinhood","credentials":{"token":"good"}}"#,
            ]
            var expected: [(code: String?, details: [[String: String]])] = []
            for body in hostile {
                let linked = try await client.call(.post, "/v1/connections", headers: harness.auth, json: body)
                #expect(linked.status == 422, "\(body)")
                let details = (linked.body.error?["details"] as? [[String: Any]] ?? []).map {
                    ["field": $0["field"] as? String ?? "", "problem": $0["problem"] as? String ?? ""]
                }
                expected.append((linked.body.errorCode, details))
            }
            #expect(try await harness.store.connections(tenantId: harness.tenant.id).isEmpty)

            // The same connections in a bundle (sealed to this gateway's public key, which anyone may read), and a
            // good one that names a link state of its choosing.
            let chosen = #"{"broker":"alpaca","displayName":"Fine","credentials":{"token":"good","linkState":"chosen-by-the-bundle"}}"#
            let bundle = try seal((hostile + [chosen]).joined(separator: ","), to: key.publicKey)
            let imported = try await client.call(.post, "/v1/connections/import", headers: harness.auth, json: #"{"bundle":"\#(bundle)"}"#)
            try #require(imported.status == 200, "\(imported.body)")
            let reports = imported.body.dataList
            try #require(reports.count == hostile.count + 1)
            for (index, want) in expected.enumerated() {
                let report = reports[index]
                #expect(report["index"] as? Int == index)
                #expect(report["outcome"] as? String == "refused", "\(hostile[index])")
                #expect(report["connection"] == nil)
                let error = report["error"] as? [String: Any]
                #expect(error?["code"] as? String == want.code, "\(hostile[index])")
                let details = (error?["details"] as? [[String: Any]] ?? []).map {
                    ["field": $0["field"] as? String ?? "", "problem": $0["problem"] as? String ?? ""]
                }
                #expect(details == want.details, "\(hostile[index])")
            }
            #expect(reports.last?["outcome"] as? String == "linked")

            let stored = try await harness.store.connections(tenantId: harness.tenant.id)
            #expect(stored.map(\.displayName) == ["Fine"])
            let credentials = try await harness.store.credentials(tenantId: harness.tenant.id, connectionId: stored[0].id)
            #expect(credentials["linkState"] == nil)
            #expect(credentials.values == ["token": "good"])
        }
    }
}
