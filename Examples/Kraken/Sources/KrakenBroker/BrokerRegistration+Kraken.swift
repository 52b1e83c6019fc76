public import BrokerGatewayServer
import KrakenAdapter
import KrakenSandbox
import SandboxKit

extension BrokerRegistration {
    /// Kraken's Spot REST API, and its sandbox: `GatewayCLI(brokers: .builtIn + [.kraken])` serves it beside the
    /// built-in four, with a demo connection linked to `sandbox://kraken`.
    public static var kraken: BrokerRegistration {
        BrokerRegistration(
            adapter: KrakenAdapterFactory(),
            sandbox: SandboxRegistration { environment in
                let kraken = KrakenSandbox(market: environment.market)
                return BrokerSandbox(
                    simulator: kraken,
                    faults: kraken.faults,
                    displayName: "Kraken sandbox (demo)",
                    demoCredentials: ["apiKey": KrakenSandboxAccount.demoAPIKey, "apiSecret": KrakenSandboxAccount.demoAPISecret],
                    demoKey: "apiKey",
                    restored: false,
                    provision: {
                        let account = try kraken.provisionAccount()
                        return ["apiKey": account.apiKey, "apiSecret": account.apiSecret]
                    },
                    release: { credentials in if let key = credentials["apiKey"] { kraken.releaseAccount(apiKey: key) } },
                    accepts: { credentials in
                        guard let key = credentials["apiKey"], let secret = credentials["apiSecret"] else { return false }
                        return kraken.accepts(apiKey: key, apiSecret: secret)
                    }
                )
            }
        )
    }
}
