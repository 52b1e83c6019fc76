// The gateway with a fifth broker: the built-in four and Kraken, over the server library.
// `swift run --package-path Examples/Kraken kraken-gateway serve` (every `gateway` command works the same).
import BrokerGatewayServer
import BuiltInBrokers
import KrakenBroker

await GatewayCLI(brokers: .builtIn + [.kraken]).run()
