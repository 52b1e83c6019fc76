import Foundation
import GatewayModel

/// The answer to `POST trade/v2/orders/precheck`. `"Ok"` can still carry an `ErrorInfo` (a warning).
struct SaxoPrecheck: Decodable, Sendable {
    var preCheckResult: String?
    var estimatedCashRequired: Decimal?
    var estimatedCashRequiredCurrency: String?
    var errorInfo: SaxoErrorInfo?
    /// The `Costs` field group. Its shape is not documented in the sources at hand; the adapter reads a top-level
    /// numeric `Commission` when there is one and ignores the rest.
    var commission: Decimal?

    enum CodingKeys: String, CodingKey {
        case preCheckResult = "PreCheckResult"
        case estimatedCashRequired = "EstimatedCashRequired"
        case estimatedCashRequiredCurrency = "EstimatedCashRequiredCurrency"
        case errorInfo = "ErrorInfo"
        case costs = "Costs"
    }

    enum CostKeys: String, CodingKey {
        case commission = "Commission"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        preCheckResult = try c.decodeIfPresent(String.self, forKey: .preCheckResult)
        estimatedCashRequired = try c.decodeDecimalIfPresent(forKey: .estimatedCashRequired)
        estimatedCashRequiredCurrency = try c.decodeIfPresent(String.self, forKey: .estimatedCashRequiredCurrency)
        errorInfo = try c.decodeIfPresent(SaxoErrorInfo.self, forKey: .errorInfo)
        if let costs = try? c.nestedContainer(keyedBy: CostKeys.self, forKey: .costs) {
            commission = try? costs.decodeDecimalIfPresent(forKey: .commission)
        }
    }
}
