import ArgumentParser

@main
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "BrokerGateway: one JSON API over many brokers.",
        subcommands: [ServeCommand.self, SettingsCommand.self, SandboxCommand.self, ContractsCommand.self],
        defaultSubcommand: ServeCommand.self)
}
