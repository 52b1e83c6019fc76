import Foundation
import GatewayApp
import GatewayCore
import GatewayModel
import OpenAPIRuntime

/// `GET /v1/stream`: the user's live events as server-sent events.
extension APIHandlers {
    func getStream(_ input: Operations.GetStream.Input) async throws -> Operations.GetStream.Output {
        let principal = try RequestIdentity.requirePrincipal()
        let q = input.query
        let selection = try QueryValue.selection(connection: q.connection, broker: q.broker, account: nil)
        let subscription = StreamSubscription(
            symbols: try QueryValue.symbols(q.symbols, "symbols", maxCount: StreamService.maxStreamSymbols) ?? [],
            assetClass: q.assetClass,
            watchlistId: try QueryValue.string(q.watchlist, "watchlist", maxLength: 256),
            orders: q.orders ?? true,
            positions: q.positions ?? false,
            balances: q.balances ?? false
        )
        let lastEventId = input.headers.lastEventID ?? q.lastEventId
        let events = try await streams.stream(principal: principal, subscription, selection, lastEventId: lastEventId)
        let body = HTTPBody(
            events.map { ArraySlice(ServerSentEventText.encode($0)) },
            length: .unknown,
            iterationBehavior: .single
        )
        return .ok(.init(body: .textEventStream(body)))
    }
}

/// A stream message as the bytes of one server-sent event (the WHATWG HTML standard's `text/event-stream`): an
/// `event:` line, an `id:` line where it has one, its JSON on one `data:` line, and a blank line.
enum ServerSentEventText {
    static func encode(_ event: StreamEvent) -> [UInt8] {
        guard let name = event.name else { return Array(": heartbeat\n\n".utf8) }
        let encoder = APIJSON.encoder()
        let data: Data
        do {
            switch event {
            case .ready(let ready): data = try encoder.encode(ready)
            case .quote(let quote): data = try encoder.encode(quote)
            case .order(_, let update): data = try encoder.encode(update)
            case .position(let change): data = try encoder.encode(change)
            case .balance(let change): data = try encoder.encode(change)
            case .source(let report): data = try encoder.encode(report)
            case .alert(let notification): data = try encoder.encode(notification)
            case .heartbeat: data = Data()
            case .error(let problem): data = try encoder.encode(problem)
            }
        } catch {
            // The model's types always encode; were one not to, the client is told, not left waiting.
            return Array("event: error\ndata: {\"code\":\"internal_error\",\"message\":\"an event could not be encoded\"}\n\n".utf8)
        }
        var text = "event: \(name)\n"
        if let id = event.id { text += "id: \(id)\n" }
        // JSON from the encoder has no raw line breaks (they are escaped inside strings), so one data line holds it.
        return Array(text.utf8) + Array("data: ".utf8) + Array(data) + Array("\n\n".utf8)
    }
}
