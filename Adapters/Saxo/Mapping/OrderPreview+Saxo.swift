import Foundation
import GatewayCore
import GatewayModel

extension OrderPreview {
    /*
     {"EstimatedCashRequired": 296.275, "EstimatedCashRequiredCurrency": "EUR",
      "InstrumentToAccountConversionRate": 0.88239, "PreCheckResult": "Ok"}
     */
    /// `PreCheckResult` `Ok`: the estimate, with any `ErrorInfo` as a warning. Anything else: the error table's
    /// verdict on the `ErrorInfo` (a rule the order breaks, or insufficient funds).
    init(
        saxo precheck: SaxoPrecheck,
        request: OrderRequest,
        id: String,
        expiresAt: Date,
        accountCurrency: String
    ) throws {
        guard precheck.preCheckResult == "Ok" else {
            let info =
                precheck.errorInfo
                ?? SaxoErrorInfo(errorCode: precheck.preCheckResult, message: "the precheck did not pass")
            throw SaxoErrors.error(for: info, status: 200)
        }
        var warnings: [String] = []
        if let info = precheck.errorInfo {
            warnings.append([info.errorCode, info.message].compactMap { $0 }.joined(separator: ": "))
        }
        let price: Decimal? =
            switch request.type {
            case .market: nil
            case .limit, .stopLimit: request.limitPrice
            case .stop: request.stopPrice
            }
        self.init(
            id: id,
            expiresAt: expiresAt,
            request: request,
            currency: precheck.estimatedCashRequiredCurrency ?? accountCurrency,
            estimatedPrice: price,
            estimatedCost: precheck.estimatedCashRequired,
            estimatedCommission: precheck.commission,
            warnings: warnings
        )
    }
}
