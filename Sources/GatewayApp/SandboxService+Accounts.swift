public import Foundation
public import GatewayCore
public import GatewayModel
public import GatewayStore
import Logging

/// Tenancy in the in-process sandboxes: every connection to `sandbox://<name>` has a simulated account of its own,
/// provisioned in process when it links or relinks and forgotten when it goes. `gateway serve` keeps the simulators'
/// accounts in its data folder, so they outlive a restart; a simulator that starts empty loses them, and then only the
/// demo tenant's demo connections are renewed.
extension SandboxService {
    /// The in-process sandbox a new connection names, when this gateway runs it; a `sandbox://` URL of another
    /// broker's sandbox is refused.
    func builtInSandbox(for new: NewConnection) throws -> (name: String, sandbox: SandboxAccounts.Sandbox)? {
        guard let (name, sandbox) = linking.sandboxes.sandbox(forBaseURL: new.baseURL) else { return nil }
        guard sandbox.broker == new.broker else {
            throw GatewayError.unprocessable([
                FieldProblem(
                    field: "baseURL",
                    problem: "sandbox://\(name) is the built-in \(sandbox.broker) sandbox, not a \(new.broker) broker"
                )
            ])
        }
        return (name, sandbox)
    }

    /// Each connection to a sandbox holds a simulated account in memory, so a tenant may hold only so many.
    func requireSandboxRoom(tenant: Tenant, name: String) async throws {
        let held = try await store.connections(tenantId: tenant.id).filter {
            SandboxAccounts.name(ofBaseURL: $0.baseURL) == name
        }.count
        if held >= linking.sandboxes.maximumPerTenant {
            throw GatewayError(
                .conflict,
                "this tenant already has \(held) connections to the built-in \(name) sandbox (at most "
                    + "\(linking.sandboxes.maximumPerTenant)); delete one first",
                retryable: false,
                details: [FieldProblem(field: "baseURL", problem: "too many connections to sandbox://\(name)")]
            )
        }
    }

    /// A fresh simulated account at the sandbox.
    func provision(_ sandbox: SandboxAccounts.Sandbox, name: String) throws -> BrokerCredentials {
        do {
            return try sandbox.provision()
        } catch {
            logger.warning("a sandbox could not provision an account", metadata: ["sandbox": .string(name), "error": .string("\(error)")])
            throw GatewayError(
                .upstreamUnavailable,
                "the built-in \(name) sandbox cannot open another simulated account now",
                broker: sandbox.broker,
                retryable: false
            )
        }
    }

    /// The simulated account a stored sandbox connection holds, unless it is the public demo login (never released).
    func provisionedSandboxAccount(
        tenant: Tenant,
        _ connection: ConnectionDescriptor
    ) async throws
        -> (sandbox: SandboxAccounts.Sandbox, credentials: BrokerCredentials)?
    {
        guard let (_, sandbox) = linking.sandboxes.sandbox(forBaseURL: connection.baseURL), sandbox.broker == connection.broker
        else { return nil }
        let credentials = try await store.credentials(tenantId: tenant.id, connectionId: connection.id)
        return sandbox.isDemo(credentials) ? nil : (sandbox, credentials)
    }

    // MARK: After a restart

    /// The tenant the embedded default's first run made for the demo, if it is recorded.
    public func demoTenant() async throws -> Tenant? {
        guard let id = try await store.demoTenantId() else { return nil }
        return try await store.tenant(id: id)
    }

    /// Records the demo tenant: its sandbox connections holding the public demo logins are renewed on restart.
    public func markDemoTenant(_ tenant: Tenant) async throws {
        try await store.setDemoTenantId(tenant.id)
    }

    /// A sandbox that started empty (no saved state) lost the accounts it held: every connection to it is
    /// `relink_required` (a relink provisions a fresh account). A sandbox in `kept` continued from its saved state,
    /// so its accounts, keys and tokens are still there and its connections are left as they are. In both, the demo
    /// tenant's connections holding the public demo logins are returned with their stored credentials, for the demo
    /// bootstrap to renew (or, where the sandbox kept its state, to check first). One unreadable connection is
    /// logged and skipped, never stops the rest.
    public func sandboxConnectionsAfterRestart(
        demoTenant: Tenant?,
        kept: Set<String> = []
    )
        async throws -> [(tenant: Tenant, connection: ConnectionDescriptor, credentials: BrokerCredentials)]
    {
        guard !linking.sandboxes.sandboxes.isEmpty else { return [] }
        var demo: [(tenant: Tenant, connection: ConnectionDescriptor, credentials: BrokerCredentials)] = []
        for tenant in try await store.tenants() {
            for connection in try await store.connections(tenantId: tenant.id) {
                guard let (name, sandbox) = linking.sandboxes.sandbox(forBaseURL: connection.baseURL),
                    sandbox.broker == connection.broker
                else { continue }
                do {
                    let credentials = try await store.credentials(tenantId: tenant.id, connectionId: connection.id)
                    if tenant.id == demoTenant?.id, sandbox.isDemo(credentials) {
                        demo.append((tenant, connection, credentials))
                        continue
                    }
                    if kept.contains(name) { continue }
                    _ = try await store.updateConnectionStatus(
                        tenantId: tenant.id,
                        connectionId: connection.id,
                        status: .relinkRequired,
                        detail: [
                            "reason": "the built-in \(name) sandbox restarted and its simulated account is gone: relink "
                                + "(POST /v1/connections/\(connection.id)/relink) for a fresh one"
                        ]
                    )
                    registry.evict(connectionId: connection.id)
                } catch {
                    logger.warning(
                        "could not mark a sandbox connection after a restart",
                        metadata: ["connection": .string(connection.id), "error": .string("\(error)")]
                    )
                }
            }
        }
        return demo
    }
}
