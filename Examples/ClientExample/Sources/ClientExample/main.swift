import BrokerGatewayClient
import Foundation
import GatewayModel

/// Lists the positions across every linked broker through the client library, then places one small limit order
/// (far from the market, so it rests) and cancels it.
///
///     swift run ClientExample http://127.0.0.1:8080 "$(cat data/demo-api-key)"
///
/// With a third argument, a connection id, the order goes to that connection; without it, to the first
/// connection whose broker quotes BTC/USD-style crypto pairs is not assumed: the example only lists.
let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 2, let url = URL(string: arguments[arguments.startIndex]) else {
    FileHandle.standardError.write(Data("usage: ClientExample <gateway URL> <API key> [<connection id> <account id> <symbol>]\n".utf8))
    exit(2)
}
let client = BrokerGatewayClient(serverURL: url, apiKey: arguments[arguments.startIndex + 1])

do {
    let positions = try await client.positions()
    for source in positions.sources {
        print("source \(source.broker) \(source.connection): \(source.ok ? "ok" : "failed: \(source.errorMessage ?? "")") in \(source.latencyMs) ms")
    }
    for position in positions.data {
        print("position \(position.instrument.symbol) \(position.quantity) at \(position.connectionId)")
    }
    if positions.partial { print("(partial: a broker did not answer)") }

    let rest = Array(arguments.dropFirst(2))
    if rest.count >= 3 {
        let request = OrderRequest(
            connectionId: rest[0],
            accountId: rest[1],
            instrument: InstrumentReference(symbol: rest[2]),
            side: .buy,
            type: .limit,
            timeInForce: .gtc,
            quantity: 1,
            limitPrice: Decimal(string: "0.00000100")
        )
        let placement = try await client.placeOrder(request, idempotencyKey: UUID().uuidString)
        print("placed \(placement.order.id): \(placement.order.status.rawValue)")
        let canceled = try await client.cancelOrder(id: placement.order.id)
        print("cancelled \(canceled.id): \(canceled.status.rawValue)")
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
