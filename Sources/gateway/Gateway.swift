import BrokerGatewayServer
import BuiltInBrokers

/// This repository's `gateway`: the server library's command line over the four built-in brokers, registered as any
/// operator's own would be (`GatewayCLI(brokers: .builtIn + [.myBroker])` in an executable of their own).
@main
struct Gateway {
    static func main() async {
        await GatewayCLI(brokers: .builtIn).run()
    }
}
