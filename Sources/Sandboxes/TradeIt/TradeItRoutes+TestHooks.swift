import Foundation
import Hummingbird
import SandboxKit

/// The test hooks under `/_sandbox/tradeit` (no authentication): `link`, `expireSessions`, `expireUserToken`.
extension TradeItRoutes {
    func registerTestHooks(on router: Router<SandboxRequestContext>) {
        let hooks = router.group("_sandbox/tradeit")
        hooks.post("link") { request, context in
            let body = try await TradeItFields.read(request, context)
            guard let name = body.string("username"), let persona = TradeItPersona(rawValue: name) else {
                throw AdminError.invalid("username must be one of \(TradeItPersona.allCases.map(\.rawValue))")
            }
            let apiKey = body.string("apiKey") ?? TradeItSandboxConfiguration.demoAPIKey
            let (userId, userToken) = self.sandbox.link(persona, apiKey: apiKey)
            let verifier = self.sandbox.issueVerifier(persona: persona, apiKey: apiKey, relinkUserId: nil)
            return Response.json([
                "userId": .string(userId), "userToken": .string(userToken), "oAuthVerifier": .string(verifier),
                "accountNumber": .string(self.sandbox.accountNumber(apiKey: apiKey, persona: persona)),
            ])
        }
        hooks.post("expireSessions") { _, _ in
            self.sandbox.expireSessions()
            return Response(status: .noContent)
        }
        hooks.post("expireUserToken") { request, context in
            let body = try await TradeItFields.read(request, context)
            guard let userId = body.string("userId") else { throw AdminError.invalid("userId is required") }
            self.sandbox.expireUserToken(userId: userId)
            return Response(status: .noContent)
        }
    }
}
