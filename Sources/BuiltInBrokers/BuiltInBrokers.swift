import AlpacaAdapter
import AlpacaSandbox
public import BrokerGatewayServer
import GatewayCore
import SaxoAdapter
import SaxoSandbox
import TradeItAdapter
import TradeItSandbox
import TradeOgreAdapter
import TradeOgreSandbox

/// The four brokers this repository carries, each registered as any other broker would be: `GatewayCLI(brokers:
/// .builtIn)` is this repository's `gateway`, and `.builtIn + [.myBroker]` an operator's own.
extension Array where Element == BrokerRegistration {
    /// Alpaca, Saxo, TradeIt and TradeOgre, each with its sandbox.
    public static var builtIn: [BrokerRegistration] { [.alpaca, .saxo, .tradeit, .tradeogre] }
}

extension BrokerRegistration {
    /// Alpaca's Trading API v2 with its Market Data API, and its sandbox (paper trading's accounts, orders and streams).
    public static var alpaca: BrokerRegistration {
        BrokerRegistration(
            adapter: AlpacaAdapterFactory(),
            sandbox: SandboxRegistration { environment in
                let configuration = AlpacaSandboxConfiguration(
                    requestsPerMinute: environment.options.rateLimits == .on ? 200 : SandboxOptions.unlimitedBudget,
                    marketHours: environment.options.marketHours == .alwaysOpen ? .alwaysOpen : .regular
                )
                let alpaca =
                    if let directory = environment.stateDirectory {
                        try AlpacaSandbox(configuration: configuration, market: environment.market, stateDirectory: directory)
                    } else {
                        AlpacaSandbox(configuration: configuration, market: environment.market)
                    }
                return BrokerSandbox(
                    simulator: alpaca,
                    faults: alpaca.faults,
                    displayName: "Alpaca sandbox (demo)",
                    demoCredentials: [
                        "keyId": AlpacaSandboxAccount.demoKeyID, "secretKey": AlpacaSandboxAccount.demoSecretKey,
                    ],
                    demoKey: "keyId",
                    restored: alpaca.restoredState,
                    provision: {
                        let account = try alpaca.provisionAccount()
                        return ["keyId": account.keyID, "secretKey": account.secretKey]
                    },
                    release: { credentials in if let key = credentials["keyId"] { alpaca.releaseAccount(keyID: key) } },
                    accepts: { credentials in
                        guard let key = credentials["keyId"], let secret = credentials["secretKey"] else { return false }
                        return alpaca.accepts(keyID: key, secretKey: secret)
                    }
                )
            }
        )
    }

    /// Saxo Bank's OpenAPI, and its sandbox (SIM's apps, OAuth tokens and orders). Orders take a second to execute, as
    /// on SIM outside the busiest hours, so that a market order changed to limit and back can be tried by hand.
    public static var saxo: BrokerRegistration {
        BrokerRegistration(
            adapter: SaxoAdapterFactory(),
            sandbox: SandboxRegistration { environment in
                let configuration =
                    environment.options.rateLimits == .on
                    ? SaxoSandboxConfiguration(executionLatency: 1)
                    : SaxoSandboxConfiguration(
                        sessionRequestsPerMinute: SandboxOptions.unlimitedBudget,
                        sessionOrdersPerSecond: nil,
                        appRequestsPerDay: SandboxOptions.unlimitedBudget,
                        executionLatency: 1
                    )
                let saxo =
                    if let directory = environment.stateDirectory {
                        try SaxoSandbox(configuration: configuration, market: environment.market, stateDirectory: directory)
                    } else {
                        SaxoSandbox(configuration: configuration, market: environment.market)
                    }
                return BrokerSandbox(
                    simulator: saxo,
                    faults: saxo.faults,
                    displayName: "Saxo sandbox (demo)",
                    demoCredentials: [
                        "appKey": SaxoSandboxConfiguration.demoAppKey, "appSecret": SaxoSandboxConfiguration.demoAppSecret,
                        "refreshToken": SaxoSandboxConfiguration.demoBootstrapRefreshToken,
                    ],
                    basePath: "/sim/openapi",
                    demoKey: "appKey",
                    restored: saxo.restoredState,
                    provision: {
                        let app = try saxo.provisionApp()
                        return ["appKey": app.appKey, "appSecret": app.appSecret, "refreshToken": app.refreshToken]
                    },
                    release: { credentials in if let key = credentials["appKey"] { saxo.releaseApp(appKey: key) } },
                    accepts: { credentials in
                        guard let key = credentials["appKey"] else { return false }
                        return saxo.accepts(
                            appKey: key,
                            refreshToken: credentials["refreshToken"],
                            accessToken: credentials["accessToken"]
                        )
                    }
                )
            }
        )
    }

    /// TradeIt's EMS API (the service is gone; its dialect remains), and its sandbox, whose Dummy broker the demo
    /// connection links through the login page.
    public static var tradeit: BrokerRegistration {
        BrokerRegistration(
            adapter: TradeItAdapterFactory(),
            sandbox: SandboxRegistration { environment in
                let tradeIt =
                    if let directory = environment.stateDirectory {
                        try TradeItSandbox(market: environment.market, stateDirectory: directory)
                    } else {
                        TradeItSandbox(market: environment.market)
                    }
                return BrokerSandbox(
                    simulator: tradeIt,
                    faults: tradeIt.faults,
                    displayName: "TradeIt sandbox: Dummy broker (demo)",
                    demoCredentials: ["apiKey": TradeItSandboxConfiguration.demoAPIKey],
                    demoSettings: ["brokerShortName": TradeItSandboxConfiguration.dummyBroker],
                    autoLoginQuery: "autoLogin=\(TradeItPersona.dummy.rawValue)",
                    demoKey: "apiKey",
                    restored: tradeIt.restoredState,
                    provision: { ["apiKey": try tradeIt.provisionAPIKey()] },
                    release: { credentials in if let key = credentials["apiKey"] { tradeIt.releaseAPIKey(key) } },
                    accepts: { credentials in
                        guard let key = credentials["apiKey"], let user = credentials["userId"], let token = credentials["userToken"]
                        else { return false }
                        return tradeIt.accepts(apiKey: key, userId: user, userToken: token)
                    }
                )
            }
        )
    }

    /// TradeOgre's API v1 (offline since 2025; its dialect remains), and its sandbox.
    public static var tradeogre: BrokerRegistration {
        BrokerRegistration(
            adapter: TradeOgreAdapterFactory(),
            sandbox: SandboxRegistration { environment in
                let tradeOgre =
                    if let directory = environment.stateDirectory {
                        try TradeOgreSandbox(market: environment.market, stateDirectory: directory)
                    } else {
                        TradeOgreSandbox(market: environment.market)
                    }
                return BrokerSandbox(
                    simulator: tradeOgre,
                    faults: tradeOgre.faults,
                    displayName: "TradeOgre sandbox (demo)",
                    demoCredentials: [
                        "apiKey": TradeOgreSandboxAccount.demoAPIKey, "apiSecret": TradeOgreSandboxAccount.demoAPISecret,
                    ],
                    basePath: "/api/v1",
                    demoKey: "apiKey",
                    restored: tradeOgre.restoredState,
                    provision: {
                        let account = try tradeOgre.provisionAccount()
                        return ["apiKey": account.apiKey, "apiSecret": account.apiSecret]
                    },
                    release: { credentials in if let key = credentials["apiKey"] { tradeOgre.releaseAccount(apiKey: key) } },
                    accepts: { credentials in
                        guard let key = credentials["apiKey"], let secret = credentials["apiSecret"] else { return false }
                        return tradeOgre.accepts(apiKey: key, apiSecret: secret)
                    }
                )
            }
        )
    }
}
