import GatewayCore
import GatewayModel
import Testing

@Suite("Gateway errors")
struct GatewayErrorTests {
    @Test(arguments: [
        (GatewayError.Code.unauthorized, 401), (.forbidden, 403), (.notFound, 404), (.invalidRequest, 400),
        (.unprocessable, 422), (.rejected, 422), (.insufficientFunds, 422), (.rateLimited, 429),
        (.upstreamTimeout, 504), (.upstreamUnavailable, 503), (.malformedResponse, 502), (.notSupported, 422),
        (.conflict, 409), (.payloadTooLarge, 413), (.requestTimeout, 408), (.headersTooLarge, 431), (.methodNotAllowed, 405),
    ])
    func codesMapToStatuses(_ code: GatewayError.Code, _ status: Int) {
        #expect(code.httpStatus == status)
    }

    @Test func transientFailuresAreRetryableByDefault() {
        #expect(GatewayError(.rateLimited, "slow down").retryable)
        #expect(GatewayError(.upstreamTimeout, "late").retryable)
        #expect(!GatewayError(.rejected, "no").retryable)
        #expect(!GatewayError(.upstreamTimeout, "late", retryable: false).retryable)
    }

    @Test func credentialsNeverPrintTheirValues() {
        let credentials = BrokerCredentials(["secretKey": "s3cr3t-value"])
        #expect(!"\(credentials)".contains("s3cr3t-value"))
        #expect(!String(reflecting: credentials).contains("s3cr3t-value"))
    }

    @Test func withDeadlineTimesOut() async {
        await #expect(throws: GatewayError.self) {
            try await withDeadline(.milliseconds(50)) {
                try await Task.sleep(for: .seconds(10))
                return 1
            }
        }
        let value = try? await withDeadline(.seconds(5)) { 42 }
        #expect(value == 42)
    }
}
