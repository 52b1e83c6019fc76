/// Sets (or clears) ``BrokerRequest/sandboxOrigin`` on every call of one connection.
struct SandboxOriginTransport: BrokerTransport {
    let wrapped: any BrokerTransport
    let sandboxOrigin: EgressOrigin?

    init(wrapping wrapped: any BrokerTransport, sandboxOrigin: EgressOrigin?) {
        self.wrapped = wrapped
        self.sandboxOrigin = sandboxOrigin
    }

    func send(_ request: BrokerRequest) async throws -> BrokerResponse {
        var request = request
        request.sandboxOrigin = sandboxOrigin
        return try await wrapped.send(request)
    }
}
