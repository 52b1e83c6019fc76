import Foundation
import GatewayCore
import GatewayModel
import Testing

@testable import GatewaySQLiteStore
@testable import GatewayStore

/// A device's push token (seed 003, issue 26) in both stores: one device per token per user (registering it on
/// another device moves it), idempotent registration, an invalid token kept inactive with its reason, and every
/// query scoped by tenant and user.
@Suite("Store: devices' push tokens")
struct PushTokenStoreTests {
    static let tokenA = String(repeating: "ab", count: 32)
    static let tokenB = String(repeating: "cd", count: 32)

    static func device(_ store: AnyStore, tenantId: String, userId: String, _ name: String) async throws -> Device {
        try await store.registerDevice(
            tenantId: tenantId,
            userId: userId,
            NewDevice(name: name, type: "ios", fingerprint: "fp-\(name)"),
            limit: 10
        )
    }

    @Test(arguments: StoreBackend.all) func registerMoveDeactivateRemove(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let user = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            let phone = try await Self.device(store, tenantId: tenant.id, userId: user.id, "phone")
            let tablet = try await Self.device(store, tenantId: tenant.id, userId: user.id, "tablet")
            #expect(phone.pushToken == nil)

            let registered = try #require(
                try await store.setPushToken(
                    tenantId: tenant.id,
                    userId: user.id,
                    deviceId: phone.id,
                    token: Self.tokenA,
                    platform: .ios,
                    audit: nil
                )
            )
            let push = try #require(registered.pushToken)
            #expect(push.token == Self.tokenA && push.platform == .ios && push.active && push.deactivatedAt == nil)
            // The same token again changes nothing, not even when it was registered.
            let again = try await store.setPushToken(
                tenantId: tenant.id,
                userId: user.id,
                deviceId: phone.id,
                token: Self.tokenA,
                platform: .ios,
                audit: nil
            )
            #expect(again?.pushToken == push)

            // The token moves to the tablet: the phone has none left.
            let moved = try await store.setPushToken(
                tenantId: tenant.id,
                userId: user.id,
                deviceId: tablet.id,
                token: Self.tokenA,
                platform: .ios,
                audit: nil
            )
            #expect(moved?.pushToken?.token == Self.tokenA)
            #expect(try await store.device(tenantId: tenant.id, userId: user.id, id: phone.id)?.pushToken == nil)

            // APNs' verdict marks it inactive, kept, with when and why; only while it is still the device's token.
            let at = Date(timeIntervalSince1970: 1_800_000_000)
            #expect(
                try await !store.deactivatePushToken(
                    tenantId: tenant.id,
                    userId: user.id,
                    deviceId: tablet.id,
                    token: Self.tokenB,
                    reason: "Unregistered",
                    at: at
                )
            )
            #expect(
                try await store.deactivatePushToken(
                    tenantId: tenant.id,
                    userId: user.id,
                    deviceId: tablet.id,
                    token: Self.tokenA,
                    reason: "BadDeviceToken",
                    at: at
                )
            )
            #expect(
                try await !store.deactivatePushToken(
                    tenantId: tenant.id,
                    userId: user.id,
                    deviceId: tablet.id,
                    token: Self.tokenA,
                    reason: "Unregistered",
                    at: at
                )
            )
            let inactive = try #require(try await store.device(tenantId: tenant.id, userId: user.id, id: tablet.id)?.pushToken)
            #expect(!inactive.active && inactive.deactivatedAt == at && inactive.deactivatedReason == "BadDeviceToken")
            #expect(try await store.devices(tenantId: tenant.id, userId: user.id).compactMap(\.pushToken) == [inactive])

            // Registering it again makes it active.
            let revived = try await store.setPushToken(
                tenantId: tenant.id,
                userId: user.id,
                deviceId: tablet.id,
                token: Self.tokenA,
                platform: .ios,
                audit: nil
            )
            #expect(revived?.pushToken?.active == true && revived?.pushToken?.deactivatedReason == nil)

            #expect(try await store.removePushToken(tenantId: tenant.id, userId: user.id, deviceId: tablet.id, audit: nil))
            #expect(try await !store.removePushToken(tenantId: tenant.id, userId: user.id, deviceId: tablet.id, audit: nil))
            #expect(try await store.device(tenantId: tenant.id, userId: user.id, id: tablet.id)?.pushToken == nil)
        }
    }

    @Test(arguments: StoreBackend.all) func scopedByTenantAndUser(backend: StoreBackend) async throws {
        try await withStore(backend) { store in
            let tenant = try await store.createTenant(name: "Acme")
            let ann = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            let bob = try await store.createUser(tenantId: tenant.id, NewUser(), audit: nil)
            let other = try await store.createTenant(name: "Other")
            let annsPhone = try await Self.device(store, tenantId: tenant.id, userId: ann.id, "phone")
            let bobsPhone = try await Self.device(store, tenantId: tenant.id, userId: bob.id, "phone")

            // Another user's device, or the right user under another tenant, is no device.
            #expect(
                try await store.setPushToken(
                    tenantId: tenant.id,
                    userId: bob.id,
                    deviceId: annsPhone.id,
                    token: Self.tokenA,
                    platform: .ios,
                    audit: nil
                ) == nil
            )
            #expect(
                try await store.setPushToken(
                    tenantId: other.id,
                    userId: ann.id,
                    deviceId: annsPhone.id,
                    token: Self.tokenA,
                    platform: .ios,
                    audit: nil
                ) == nil
            )
            // Two users may hold one token (one device per token per *user*); neither registration moves the other's.
            _ = try await store.setPushToken(
                tenantId: tenant.id,
                userId: ann.id,
                deviceId: annsPhone.id,
                token: Self.tokenA,
                platform: .ios,
                audit: nil
            )
            _ = try await store.setPushToken(
                tenantId: tenant.id,
                userId: bob.id,
                deviceId: bobsPhone.id,
                token: Self.tokenA,
                platform: .ios,
                audit: nil
            )
            #expect(try await store.device(tenantId: tenant.id, userId: ann.id, id: annsPhone.id)?.pushToken?.token == Self.tokenA)
            #expect(
                try await !store.deactivatePushToken(
                    tenantId: tenant.id,
                    userId: bob.id,
                    deviceId: annsPhone.id,
                    token: Self.tokenA,
                    reason: "Unregistered",
                    at: Date()
                )
            )
            #expect(try await !store.removePushToken(tenantId: tenant.id, userId: bob.id, deviceId: annsPhone.id, audit: nil))
            #expect(try await store.device(tenantId: tenant.id, userId: ann.id, id: annsPhone.id)?.pushToken?.active == true)
            // One device per token per user holds in the schema too.
            let annsTablet = try await Self.device(store, tenantId: tenant.id, userId: ann.id, "tablet")
            await #expect(throws: (any Error).self) {
                try await store.rawExecute("UPDATE devices SET push_token = ? WHERE id = ?", [Self.tokenA, annsTablet.id])
            }
        }
    }
}
