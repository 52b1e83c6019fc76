import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import Logging
import Sandbox

/// The sandbox brokers this build carries: each simulator, how to reach it as a connection, and its demo login.
///
/// `gateway serve` runs them in-process and links one demo connection to each; `gateway sandbox` serves them
/// on their own. A connection reaches an in-process sandbox through the base URL `sandbox://<name>`.
struct BuiltInSandbox: Sendable {
    var name: String
    var broker: BrokerKind
    var displayName: String
    var simulator: any SandboxSimulator
    /// What `POST /v1/connections` needs for the demo account (public, documented demo values).
    var demoCredentials: [String: String]
    var demoSettings: [String: String] = [:]
    /// The path the adapter takes as its base URL after the sandbox's origin (`/sim/openapi` for Saxo): given to the
    /// registry with the sandbox, so connections say only `sandbox://<name>`.
    var basePath: String = ""
    /// For brokers that link through a login page: the sandbox's query parameter that logs the demo user in at once.
    var autoLoginQuery: String? = nil
    /// The credential key whose demo value names the public demo login (the demo connections hold it).
    var demoKey: String
    /// A simulated account of its own for a tenant's connection, in the simulator's own terms, as the adapter's
    /// credentials; and how to forget one.
    var provision: @Sendable () throws -> [String: String]
    var release: @Sendable ([String: String]) -> Void
    /// Whether the simulator still accepts credentials a connection stored (the simulator's own verdict, asked
    /// without a call that could mark the connection).
    var accepts: @Sendable ([String: String]) -> Bool
    /// Whether the simulator continued from a state saved in its folder (its accounts, keys and tokens are the ones
    /// connections stored), rather than starting empty.
    var restored: Bool = false

    /// The sandboxes with their state in memory: every start is a fresh one (`gateway sandbox`, tests).
    static func all(_ options: SandboxOptions = SandboxOptions()) -> [BuiltInSandbox] {
        let market = MarketEngine()
        return make(
            options,
            alpaca: AlpacaSandbox(configuration: options.alpaca, market: market),
            saxo: SaxoSandbox(configuration: options.saxo, market: market),
            tradeIt: TradeItSandbox(market: market),
            tradeOgre: TradeOgreSandbox(market: market)
        )
    }

    /// The sandboxes keeping their state in `stateDirectory` (`alpaca.json`, `saxo.json`, `tradeit.json`,
    /// `tradeogre.json`), as `gateway serve` runs them: accounts, orders, positions and the logins connections stored
    /// are the same after a restart.
    /// - Throws: a sandbox's ``SandboxStateError`` when its file is there but cannot be read (it names the file).
    static func all(_ options: SandboxOptions = SandboxOptions(), stateDirectory: URL) throws -> [BuiltInSandbox] {
        let market = MarketEngine()
        return make(
            options,
            alpaca: try AlpacaSandbox(configuration: options.alpaca, market: market, stateDirectory: stateDirectory),
            saxo: try SaxoSandbox(configuration: options.saxo, market: market, stateDirectory: stateDirectory),
            tradeIt: try TradeItSandbox(market: market, stateDirectory: stateDirectory),
            tradeOgre: try TradeOgreSandbox(market: market, stateDirectory: stateDirectory)
        )
    }

    private static func make(
        _ options: SandboxOptions,
        alpaca: AlpacaSandbox,
        saxo: SaxoSandbox,
        tradeIt: TradeItSandbox,
        tradeOgre: TradeOgreSandbox
    ) -> [BuiltInSandbox] {
        if let rule = options.latencyRule {
            for faults in [alpaca.faults, saxo.faults, tradeIt.faults, tradeOgre.faults] { faults.add(rule) }
        }
        return [
            BuiltInSandbox(
                name: "alpaca",
                broker: .alpaca,
                displayName: "Alpaca sandbox (demo)",
                simulator: alpaca,
                demoCredentials: [
                    "keyId": AlpacaSandboxAccount.demoKeyID, "secretKey": AlpacaSandboxAccount.demoSecretKey,
                ],
                demoKey: "keyId",
                provision: {
                    let account = try alpaca.provisionAccount()
                    return ["keyId": account.keyID, "secretKey": account.secretKey]
                },
                release: { credentials in if let key = credentials["keyId"] { alpaca.releaseAccount(keyID: key) } },
                accepts: { credentials in
                    guard let key = credentials["keyId"], let secret = credentials["secretKey"] else { return false }
                    return alpaca.accepts(keyID: key, secretKey: secret)
                },
                restored: alpaca.restoredState
            ),
            BuiltInSandbox(
                name: "saxo",
                broker: .saxo,
                displayName: "Saxo sandbox (demo)",
                simulator: saxo,
                demoCredentials: [
                    "appKey": SaxoSandboxConfiguration.demoAppKey, "appSecret": SaxoSandboxConfiguration.demoAppSecret,
                    "refreshToken": SaxoSandboxConfiguration.demoBootstrapRefreshToken,
                ],
                basePath: "/sim/openapi",
                demoKey: "appKey",
                provision: {
                    let app = try saxo.provisionApp()
                    return ["appKey": app.appKey, "appSecret": app.appSecret, "refreshToken": app.refreshToken]
                },
                release: { credentials in if let key = credentials["appKey"] { saxo.releaseApp(appKey: key) } },
                accepts: { credentials in
                    guard let key = credentials["appKey"] else { return false }
                    return saxo.accepts(appKey: key, refreshToken: credentials["refreshToken"], accessToken: credentials["accessToken"])
                },
                restored: saxo.restoredState
            ),
            BuiltInSandbox(
                name: "tradeit",
                broker: .tradeit,
                displayName: "TradeIt sandbox: Dummy broker (demo)",
                simulator: tradeIt,
                demoCredentials: ["apiKey": TradeItSandboxConfiguration.demoAPIKey],
                demoSettings: ["brokerShortName": TradeItSandboxConfiguration.dummyBroker],
                autoLoginQuery: "autoLogin=\(TradeItPersona.dummy.rawValue)",
                demoKey: "apiKey",
                provision: { ["apiKey": try tradeIt.provisionAPIKey()] },
                release: { credentials in if let key = credentials["apiKey"] { tradeIt.releaseAPIKey(key) } },
                accepts: { credentials in
                    guard let key = credentials["apiKey"], let user = credentials["userId"], let token = credentials["userToken"]
                    else { return false }
                    return tradeIt.accepts(apiKey: key, userId: user, userToken: token)
                },
                restored: tradeIt.restoredState
            ),
            BuiltInSandbox(
                name: "tradeogre",
                broker: .tradeogre,
                displayName: "TradeOgre sandbox (demo)",
                simulator: tradeOgre,
                demoCredentials: ["apiKey": TradeOgreSandboxAccount.demoAPIKey, "apiSecret": TradeOgreSandboxAccount.demoAPISecret],
                basePath: "/api/v1",
                demoKey: "apiKey",
                provision: {
                    let account = try tradeOgre.provisionAccount()
                    return ["apiKey": account.apiKey, "apiSecret": account.apiSecret]
                },
                release: { credentials in if let key = credentials["apiKey"] { tradeOgre.releaseAccount(apiKey: key) } },
                accepts: { credentials in
                    guard let key = credentials["apiKey"], let secret = credentials["apiSecret"] else { return false }
                    return tradeOgre.accepts(apiKey: key, apiSecret: secret)
                },
                restored: tradeOgre.restoredState
            ),
        ]
    }

    /// The sandboxes as the application provisions accounts in them.
    static func accounts(_ sandboxes: [BuiltInSandbox]) -> SandboxAccounts {
        var byName: [String: SandboxAccounts.Sandbox] = [:]
        for sandbox in sandboxes {
            let (provision, release) = (sandbox.provision, sandbox.release)
            byName[sandbox.name] = SandboxAccounts.Sandbox(
                broker: sandbox.broker,
                demoKey: sandbox.demoKey,
                demoValue: sandbox.demoCredentials[sandbox.demoKey] ?? "",
                provision: { BrokerCredentials(try provision()) },
                release: { release($0.values) }
            )
        }
        return SandboxAccounts(byName)
    }
}
