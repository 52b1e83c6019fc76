import ArgumentParser

@main
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "BrokerGateway: one JSON API over many brokers.",
        subcommands: [
            ServeCommand.self, SettingsCommand.self, TenantsCommand.self, KeysCommand.self, SandboxCommand.self,
            ContractsCommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )
}
