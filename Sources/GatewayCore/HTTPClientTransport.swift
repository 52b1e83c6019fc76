import AsyncHTTPClient
import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1

/// `BrokerTransport` over AsyncHTTPClient, and the one place every broker call leaves the process: each call meets
/// the egress policy on the address it actually connects to, has a deadline and a response-size limit, and never
/// follows a redirect. Every body it reads counts against one ``ResponseBudget`` while the call lasts, so the answers
/// buffered at once stay under the budget whatever many brokers send.
///
/// For a host name the transport resolves the name itself (``HostResolver``, off the cooperative pool), checks every
/// address it resolves to, and sends the call to a checked one through a client pinned to it
/// (``PinnedClients``, AsyncHTTPClient's `dnsOverride`: TLS still checks the host name's certificate), so the
/// answer the policy judged is the address connected to, and a name that changes its answer in between (DNS
/// rebinding) gains nothing. An address literal is checked as it is. A call of a `sandbox://` connection
/// (``BrokerRequest/sandboxOrigin``) may reach exactly its sandbox's loopback origin, never `/_sandbox/`.
public struct HTTPClientTransport: BrokerTransport {
    /// The rules every call's URL and resolved addresses must pass; fixed for the transport's life.
    public let policy: EgressPolicy
    /// The bytes of answers this transport's calls may hold at once (the gateway's one transport: the process's).
    public let responseBudget: ResponseBudget
    let clients: PinnedClients
    let resolver: HostResolver

    /// A transport under `policy`: by default, public unicast addresses only, and a budget of
    /// ``ResponseBudget/defaultLimit`` bytes in flight.
    public init(policy: EgressPolicy = EgressPolicy(), responseBudget: ResponseBudget = ResponseBudget()) {
        self.init(policy: policy, clients: .shared, resolver: .shared, responseBudget: responseBudget)
    }

    init(
        policy: EgressPolicy,
        clients: PinnedClients,
        resolver: HostResolver,
        responseBudget: ResponseBudget = ResponseBudget()
    ) {
        self.policy = policy
        self.clients = clients
        self.resolver = resolver
        self.responseBudget = responseBudget
    }

    /// Sends one call under the egress policy, its deadline and `request.maxResponseBytes`. Any HTTP status is
    /// returned as is; failures are `GatewayError`s: `egress_refused`, `upstream_timeout`, `upstream_unavailable`
    /// (unreachable, or the response budget is spent), `malformed_response` (body over the limit), or
    /// `CancellationError` when the task is cancelled.
    ///
    /// The deadline is the earlier of `request.timeout` and ``DeadlineScope/current``, and AsyncHTTPClient enforces
    /// it up to the response's head (`execute(_:deadline:)`). When a watcher above cancels the call by then (the
    /// router, a `withDeadline`, the pipeline's backstop: ``DeadlineScope/isWatched(until:)``), that is all: the
    /// name's resolution and the body's reading end by its cancellation. A call with no watcher (a transport used
    /// on its own) gets one backstop here, so a stalled body still ends at the deadline.
    public func send(_ request: BrokerRequest) async throws -> BrokerResponse {
        let target = try checkedTarget(request)
        let host = BrokerText.sanitized(target.host, limit: 100)
        let limit = request.maxResponseBytes
        let deadline = DeadlineScope.deadline(within: request.timeout)
        let reservation = responseBudget.reservation()
        defer { reservation.end() }
        do {
            if DeadlineScope.isWatched(until: deadline) {
                return try await exchange(request, target: target, host: host, deadline: deadline, reservation: reservation)
            }
            return try await withDeadline(at: deadline, reporting: ContinuousClock.now.duration(to: deadline)) {
                try await exchange(request, target: target, host: host, deadline: deadline, reservation: reservation)
            }
        } catch let error as GatewayError {
            throw error
        } catch is NIOTooManyBytesError {
            throw GatewayError(.malformedResponse, "\(host) sent a response larger than \(limit) bytes")
        } catch let error as HTTPClientError {
            if [.deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout].contains(error) {
                throw GatewayError(.upstreamTimeout, "\(host) did not answer within \(request.timeout)")
            }
            if error == .cancelled { throw CancellationError() }
            if [.invalidURL, .emptyHost, .emptyScheme].contains(error) {
                throw GatewayError(.invalidRequest, "the broker URL \(host) is not usable", retryable: false)
            }
            throw GatewayError(.upstreamUnavailable, "\(host) could not be reached (\(error.shortDescription))")
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw GatewayError(.upstreamUnavailable, "\(host) could not be reached (\(type(of: error)))")
        }
    }

    /// The exchange itself: resolve and check the name, send through the pinned client with `deadline` as
    /// AsyncHTTPClient's own, and read the body within its limit and the response budget.
    func exchange(
        _ request: BrokerRequest,
        target: EgressTarget,
        host: String,
        deadline: ContinuousClock.Instant,
        reservation: ResponseBudget.Reservation
    ) async throws -> BrokerResponse {
        let limit = request.maxResponseBytes
        let key = try await destination(target, granted: request.sandboxOrigin == target.origin)
        var prepared = HTTPClientRequest(url: request.url)
        prepared.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headers { prepared.headers.add(name: field.name.rawName, value: field.value) }
        if let body = request.body { prepared.body = .bytes(ByteBuffer(bytes: body)) }
        let outbound = prepared
        return try await clients.withClient(key) { client in
            // AsyncHTTPClient's clock is not the continuous one: hand it what is left, measured now.
            let left = ContinuousClock.now.duration(to: deadline)
            let response = try await client.execute(outbound, deadline: .now() + .nanoseconds(left.nanoseconds))
            // A declared size over the limit fails before any byte is read (a lie is caught while reading).
            if let declared = BrokerNumber.size(response.headers.first(name: "Content-Length")), declared > limit {
                throw NIOTooManyBytesError(maxBytes: limit)
            }
            let buffer = try await Self.collect(response.body, upTo: limit, into: reservation, host: host)
            return BrokerResponse(
                status: Int(response.status.code),
                headers: HTTPFields(pairs: response.headers.map { (name: $0.name, value: $0.value) }),
                body: Data(buffer.readableBytesView)
            )
        }
    }

    /// The body, chunk by chunk as it arrives: each chunk is taken from the budget before it is kept, so a call
    /// fails on the first chunk past its own limit (`NIOTooManyBytesError`, a `malformed_response`) or past the
    /// budget (its refusal), and the connection is dropped with what was read.
    static func collect(
        _ body: HTTPClientResponse.Body,
        upTo limit: Int,
        into reservation: ResponseBudget.Reservation,
        host: String
    ) async throws -> ByteBuffer {
        var collected = ByteBuffer()
        for try await var chunk in body {
            guard chunk.readableBytes <= limit - collected.readableBytes else { throw NIOTooManyBytesError(maxBytes: limit) }
            try reservation.take(chunk.readableBytes, host: host)
            collected.writeBuffer(&chunk)
        }
        return collected
    }

    /// The checks that need no name resolution: scheme, user-info, an address literal, the path (no `.` or `..`
    /// segment; no sandbox admin path on a sandbox grant).
    func checkedTarget(_ request: BrokerRequest) throws -> EgressTarget {
        let target = try EgressTarget(url: request.url)
        if target.hasDotSegment {
            throw GatewayError(
                .invalidRequest,
                "a broker URL path may not hold a '.' or '..' segment (\(request.loggedPath))",
                retryable: false
            )
        }
        if request.sandboxOrigin == target.origin {
            if target.pathSegments.contains(where: { $0.lowercased() == "_sandbox" }) {
                throw GatewayError(
                    .egressRefused,
                    "the egress policy refuses the sandbox's administration paths",
                    retryable: false
                )
            }
            return target
        }
        if let address = target.literal, let kind = policy.refusal(for: address) {
            throw EgressPolicy.refused(host: target.host, kind)
        }
        return target
    }

    /// The client to send through: the literal client for an address literal; else the client pinned to a checked
    /// address of the name (one that already has a client first, to reuse its connections; else IPv4 first).
    func destination(_ target: EgressTarget, granted: Bool) async throws -> PinnedClients.Key {
        if target.literal != nil { return .literal }
        let addresses = try await resolver.resolve(target.host)
        if !granted {
            for address in addresses {
                if let kind = policy.refusal(for: address) { throw EgressPolicy.refused(host: target.host, kind) }
            }
        }
        let keys = addresses.map { PinnedClients.Key(host: target.host, address: $0.description) }
        if let reused = keys.first(where: clients.has) { return reused }
        guard let preferred = zip(addresses, keys).first(where: { $0.0.isIPv4 })?.1 ?? keys.first else {
            throw GatewayError(.upstreamUnavailable, "\(BrokerText.sanitized(target.host, limit: 100)) has no address")
        }
        return preferred
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Whole milliseconds, for reporting.
    public var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
