import AlpacaAdapter
import GatewayCore
import SaxoAdapter
import TradeItAdapter

/// Every adapter kind this build carries.
enum BuiltInAdapters {
    static var factories: [any BrokerAdapterFactory] {
        [AlpacaAdapterFactory(), SaxoAdapterFactory(), TradeItAdapterFactory()]
    }
}
