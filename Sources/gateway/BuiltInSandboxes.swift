import Foundation
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

    static func all() -> [BuiltInSandbox] {
        let market = MarketEngine()
        return [
            BuiltInSandbox(
                name: "alpaca", broker: .alpaca, displayName: "Alpaca sandbox (demo)",
                simulator: AlpacaSandbox(market: market),
                demoCredentials: [
                    "keyId": AlpacaSandboxAccount.demoKeyID, "secretKey": AlpacaSandboxAccount.demoSecretKey,
                ]),
            BuiltInSandbox(
                name: "saxo", broker: .saxo, displayName: "Saxo sandbox (demo)",
                // Orders take a second to execute, as on SIM outside the busiest hours, so the seed's flow (a market
                // order changed to limit and back) can be tried by hand.
                simulator: SaxoSandbox(configuration: SaxoSandboxConfiguration(executionLatency: 1), market: market),
                demoCredentials: [
                    "appKey": SaxoSandboxConfiguration.demoAppKey, "appSecret": SaxoSandboxConfiguration.demoAppSecret,
                    "refreshToken": SaxoSandboxConfiguration.demoBootstrapRefreshToken,
                ],
                basePath: "/sim/openapi"),
            BuiltInSandbox(
                name: "tradeit", broker: .tradeit, displayName: "TradeIt sandbox: Dummy broker (demo)",
                simulator: TradeItSandbox(market: market),
                demoCredentials: ["apiKey": TradeItSandboxConfiguration.demoAPIKey],
                demoSettings: ["brokerShortName": TradeItSandboxConfiguration.dummyBroker],
                autoLoginQuery: "autoLogin=\(TradeItPersona.dummy.rawValue)"),
            BuiltInSandbox(
                name: "tradeogre", broker: .tradeogre, displayName: "TradeOgre sandbox (demo)",
                simulator: TradeOgreSandbox(market: market),
                demoCredentials: ["apiKey": TradeOgreSandboxAccount.demoAPIKey, "apiSecret": TradeOgreSandboxAccount.demoAPISecret],
                basePath: "/api/v1"),
        ]
    }
}
