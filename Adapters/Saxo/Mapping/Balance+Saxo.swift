import Foundation
import GatewayModel

extension Balance {
    /*
     {"CalculationReliability": "Ok", "CashBalance": 999956.74, "CostToClosePositions": -37.46, "Currency": "EUR",
      "MarginAvailableForTrading": 979022.6, "MarginUtilizationPct": 1.78, "NetEquityForMargin": 996715.04,
      "TotalValue": 996715.04, "UnrealizedPositionsValue": -3241.7, ...}
     */
    /// Cash in the account currency: `total` = `CashBalance`; `available` = `CashAvailableForTrading`, else
    /// `CashBalance` − `CashBlocked` (0 when absent); `held` = `total` − `available`, so `available + held == total`
    /// holds by construction. `TotalValue` is the account value, `MarginAvailableForTrading` the margin available;
    /// `buyingPower` is `CashAvailableForTrading` where Saxo sends it.
    init(saxo balance: SaxoBalance, connectionId: String, accountId: String, fallbackCurrency: String, asOf: Date?) throws {
        guard let total = balance.cashBalance else {
            throw SaxoErrors.malformed("a balance without CashBalance")
        }
        let available = balance.cashAvailableForTrading ?? (total - (balance.cashBlocked ?? 0))
        self.init(
            connectionId: connectionId,
            accountId: accountId,
            currency: balance.currency ?? fallbackCurrency,
            total: total,
            available: available,
            held: total - available,
            buyingPower: balance.cashAvailableForTrading,
            accountValue: balance.totalValue,
            marginAvailable: balance.marginAvailableForTrading,
            marginUtilizationPct: balance.marginUtilizationPct,
            asOf: asOf
        )
    }
}
