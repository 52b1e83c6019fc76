import AlpacaAdapter
import GatewayCore

/// Every adapter kind this build carries.
enum BuiltInAdapters {
    static var factories: [any BrokerAdapterFactory] {
        [AlpacaAdapterFactory()]
    }
}
