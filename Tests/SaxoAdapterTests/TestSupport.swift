import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import LogCapture
import Synchronization

@testable import SaxoAdapter

extension ScriptedTransport {
    /// The requests to Saxo's token endpoint (code and refresh exchanges).
    var tokenRequests: [BrokerRequest] { requests.filter { $0.url.hasSuffix("/token") } }
}

/// A clock a test moves by hand.
final class TestClock: Sendable {
    private let current: Mutex<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_736_175_600)) { current = Mutex(start) }
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// What the adapter asked the store to do.
final class SavedState: Sendable {
    private let credentials = Mutex<[BrokerCredentials]>([])
    private let statuses = Mutex<[(ConnectionStatus, [String: String]?)]>([])
    var savedCredentials: [BrokerCredentials] { credentials.withLock { $0 } }
    var savedStatuses: [(ConnectionStatus, [String: String]?)] { statuses.withLock { $0 } }
    func save(_ value: BrokerCredentials) { credentials.withLock { $0.append(value) } }
    func save(_ status: ConnectionStatus, _ detail: [String: String]?) { statuses.withLock { $0.append((status, detail)) } }
}

enum Fixture {
    static let baseURL = "https://gateway.saxobank.com/sim/openapi"
    static let authURL = "https://sim.logonvalidation.net"
    static let clientKey = "Cf4xZWiYL6W1nMKpygBLLA=="

    /// hootnot/saxo_openapi portfolio/responses/users.py _v3_UsersMe (trimmed to the fields the adapter reads).
    static let usersMe =
        #"{"ClientKey": "Cf4xZWiYL6W1nMKpygBLLA==", "Name": "F. Brekeveld", "UserId": "9226397", "UserKey": "Cf4xZWiYL6W1nMKpygBLLA=="}"#

    static func token(_ access: String, refresh: String?, expiresIn: Int = 1200) -> String {
        let refreshPart = refresh.map { #", "refresh_token": "\#($0)", "refresh_token_expires_in": 3600"# } ?? ""
        return #"{"access_token": "\#(access)", "token_type": "Bearer", "expires_in": \#(expiresIn)\#(refreshPart), "base_uri": null}"#
    }

    static func json(_ text: String, status: Int = 200, headers: [(name: String, value: String)] = []) -> BrokerResponse {
        BrokerResponse(status: status, headers: headers, body: Data(text.utf8))
    }

    static func bearer(of request: BrokerRequest) -> String? {
        request.header("Authorization").flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
    }

    /// A Saxo adapter over `transport`, its clock, store callbacks and logs (every line, so tests can check secrets
    /// never appear).
    static func adapter(
        transport: any BrokerTransport,
        credentials: [String: String],
        clock: TestClock = TestClock(),
        saved: SavedState = SavedState(),
        logs: LogCapture = LogCapture(),
        baseURL: String = baseURL,
        settings: [String: String] = [:],
        now: (@Sendable () -> Date)? = nil,
        refreshMargin: TimeInterval? = nil
    ) throws -> SaxoAdapter {
        let connection = ConnectionDescriptor(
            id: "conn-1",
            tenantId: "t",
            broker: .saxo,
            displayName: "saxo",
            baseURL: baseURL,
            settings: settings,
            createdAt: clock.now,
            updatedAt: clock.now
        )
        let context = AdapterContext(
            connection: connection,
            baseURL: baseURL,
            credentials: BrokerCredentials(credentials),
            transport: transport,
            logger: logs.logger(label: "saxo-test"),
            saveCredentials: { saved.save($0) },
            saveStatus: { saved.save($0, $1) }
        )
        var configuration = try SaxoConfiguration(baseURL: baseURL, settings: settings, credentials: context.credentials)
        configuration.now = now ?? { clock.now }
        if let refreshMargin { configuration.refreshMargin = refreshMargin }
        return SaxoAdapter(context: context, configuration: configuration)
    }

    static let appCredentials = ["appKey": "app-key", "appSecret": "app-secret", "refreshToken": "refresh-token-1"]
}
