import GatewayCore
import GatewayModel

extension AdapterRegistry {
    /// The refusal of a broker kind this gateway has no adapter for, in a link request or a read's `broker` filter:
    /// 422 naming `broker`. The kind set is open (another build of the gateway may have more adapters), so a
    /// well-formed kind the document allows is a rule broken here, not a malformed request; the problem lists the
    /// kinds this gateway has (`GET /v1/brokers`). A malformed one (from a bundle, whose kinds are not decoded as
    /// `BrokerKind`) is named as such.
    func unknownKind(_ kind: BrokerKind) -> GatewayError {
        let problem =
            BrokerKind.problem(with: kind.rawValue)
            ?? "names no broker this gateway has an adapter for ('\(kind)'); it has: \(kinds.map(\.rawValue).joined(separator: ", "))"
        return GatewayError.unprocessable([FieldProblem(field: "broker", problem: problem)])
    }
}
