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

    static func all() -> [BuiltInSandbox] {
        let market = MarketEngine()
        return [
            BuiltInSandbox(
                name: "alpaca", broker: .alpaca, displayName: "Alpaca sandbox (demo)",
                simulator: AlpacaSandbox(market: market),
                demoCredentials: [
                    "keyId": AlpacaSandboxAccount.demoKeyID, "secretKey": AlpacaSandboxAccount.demoSecretKey,
                ]),
        ]
    }
}
