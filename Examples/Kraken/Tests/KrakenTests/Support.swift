import Foundation
import GatewayCore
import GatewayModel
import GatewayTesting
import KrakenAdapter
import KrakenSandbox
import Logging
import SandboxKit

/// A sandbox on a fixed clock (prices do not move unless a test moves them).
func makeSandbox(configuration: KrakenSandboxConfiguration = KrakenSandboxConfiguration()) -> KrakenSandbox {
    KrakenSandbox(configuration: configuration, market: MarketEngine(clock: ManualClock()))
}

/// The adapter over HTTP against a running Kraken sandbox (demo key unless told).
func withAdapter(
    apiKey: String = KrakenSandboxAccount.demoAPIKey,
    apiSecret: String = KrakenSandboxAccount.demoAPISecret,
    settings: [String: String] = [:],
    sandbox: KrakenSandbox = makeSandbox(),
    _ body: (any BrokerAdapter, KrakenSandbox, URL) async throws -> Void
) async throws {
    try await withSandbox(sandbox) { url in
        let base = url.absoluteString
        let connection = ConnectionDescriptor(
            id: "conn-kraken",
            tenantId: "t",
            broker: .kraken,
            displayName: "sandbox",
            baseURL: base,
            settings: settings,
            createdAt: Date(),
            updatedAt: Date()
        )
        let context = AdapterContext(
            connection: connection,
            baseURL: base,
            credentials: BrokerCredentials(["apiKey": apiKey, "apiSecret": apiSecret]),
            transport: HTTPClientTransport.loopbackForTests,
            logger: Logger(label: "kraken-test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        try await body(try KrakenAdapterFactory().makeAdapter(context), sandbox, url)
    }
}

func orderRequest(
    _ symbol: String,
    _ side: OrderSide,
    _ type: OrderType,
    quantity: Decimal,
    limit: Decimal? = nil,
    timeInForce: TimeInForce = .gtc,
    clientOrderId: String = "gw-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
) -> OrderRequest {
    OrderRequest(
        connectionId: "conn-kraken",
        accountId: "spot",
        instrument: InstrumentReference(symbol: symbol),
        side: side,
        type: type,
        timeInForce: timeInForce,
        quantity: quantity,
        limitPrice: limit,
        clientOrderId: clientOrderId
    )
}
