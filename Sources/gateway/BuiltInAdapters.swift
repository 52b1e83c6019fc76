import AlpacaAdapter
import GatewayCore
import SaxoAdapter
import TradeItAdapter
import TradeOgreAdapter

/// Every adapter kind this build carries.
enum BuiltInAdapters {
    static var factories: [any BrokerAdapterFactory] {
        [AlpacaAdapterFactory(), SaxoAdapterFactory(), TradeItAdapterFactory(), TradeOgreAdapterFactory()]
    }
}
