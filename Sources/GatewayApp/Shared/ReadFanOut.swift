public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore

/// A read fanned out to the connections a principal selected, each under its deadline and call budget, in one of the
/// tenant's fan-out slots, shared with identical reads in flight. Every service that reads from brokers (reads,
/// portfolio, goals, streams) holds one and calls it as `fanOut(owner:_:operation:…)`.
public struct ReadFanOut: Sendable {
    let directory: ConnectionDirectory
    let router: BrokerRouter
    let coalescer: ReadCoalescer
    let metrics: ApplicationMetrics
    let fanOutGate: FanOutGate
    /// What one tenant may ask of the gateway: here, the broker calls one connection's part of a read may make.
    let limits: TenantLimits
    /// How old an answer a read accepts when neither the read (`maxAgeMs`) nor its tenant says.
    let defaultReadMaxAge: Duration
    /// `false` only to measure what sharing saves: every read then asks the broker.
    let coalesceReads: Bool

    /// Fans `read` out to the selected connections and reports each one.
    ///
    /// With a `sharing` key (the read's arguments), identical reads of one connection in flight at once share one
    /// broker call, and an answer as recent as the read's `maxAge` (else the tenant's, else the gateway's default) is
    /// reused. Without one (orders, which are never served stale), every read asks the broker.
    ///
    /// Each connection's part may make `limits.callsPerConnection` broker calls, plus `extraCalls` for a read whose
    /// legitimate cost grows with a bound the API already sets (a page of orders a broker reads one by one).
    public func callAsFunction<Item: Sendable>(
        owner: Owner,
        _ selection: Gateway.Selection,
        operation: BrokerOperation,
        sharing key: String? = nil,
        extraCalls: Int = 0,
        _ read: @escaping @Sendable (any BrokerAdapter, ConnectionDescriptor) async throws -> [Item]
    ) async throws -> FanOut<Item> {
        let tenant = owner.tenant
        let connections = try await directory.connections(owner: owner, selection, supporting: operation)
        let directory = self.directory
        let coalescer = self.coalescer
        let coalesceReads = self.coalesceReads
        let maxAge = selection.maxAge ?? tenant.readMaxAgeMs.map { .milliseconds($0) } ?? defaultReadMaxAge
        let callsPerConnection = limits.callsPerConnection + max(0, extraCalls)
        // One of the tenant's fan-out slots, waited for no longer than the read itself may take.
        return try await fanOutGate.run(tenantId: tenant.id, wait: router.overallTimeout) {
            await metrics.fanOut(operation: operation) {
                await router.fanOutAnswers(connections, describe: { ($0.id, $0.broker) }) { connection in
                    if connection.status != .active {
                        throw ConnectionDirectory.statusError(connection)
                    }
                    // The answer and what it lacks travel together, so a shared or cached answer keeps its gaps.
                    let call: @Sendable () async throws -> [GappedRead<Item>] = {
                        let adapter = try await directory.adapter(for: connection)
                        do {
                            let (items, gaps) = try await ReadGaps.collecting {
                                try await BrokerOperationScope.$current.withValue(operation.rawValue) {
                                    try await CallBudget.with(limit: callsPerConnection) { try await read(adapter, connection) }
                                }
                            }
                            return [GappedRead(items: items, gaps: gaps)]
                        } catch let error as GatewayError where ConnectionDirectory.refusesCredentials(error, of: connection) {
                            // The broker refused the link's credentials on a read: the connection says so from now on.
                            await directory.markRelinkRequired(connection, error, counted: true)
                            throw error
                        }
                    }
                    guard let key, coalesceReads else {
                        let read = try await call().first
                        return SourceAnswer(items: read?.items ?? [], asOf: Date(), served: .fresh, gaps: read?.gaps ?? [])
                    }
                    let answer = try await coalescer.read(
                        ReadCoalescer.Key(connection: connection.id, read: "\(operation.rawValue)|\(key)"),
                        maxAge: maxAge,
                        call
                    )
                    return SourceAnswer(
                        items: answer.items.first?.items ?? [],
                        asOf: answer.asOf,
                        served: answer.served,
                        gaps: answer.items.first?.gaps ?? []
                    )
                }
            }
        }
    }
}

/// One connection's answer to a read with what it lacks, as the read coalescer keeps it.
struct GappedRead<Item: Sendable>: Sendable {
    var items: [Item]
    var gaps: [SourceReport.Failure]
}
