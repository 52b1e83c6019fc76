import Foundation
import Hummingbird
import SandboxKit

/// `/v2/account`, `/v2/account/configurations` and `/v2/assets`.
extension AlpacaRoutes {
    // MARK: Account

    func account(_ context: SandboxRequestContext) throws -> Response {
        let id = try accountID(context)
        return .json(try sandbox.withBook(id) { book, env in AlpacaWire.account(book, env: env) })
    }

    func configurations(_ context: SandboxRequestContext) throws -> Response {
        let id = try accountID(context)
        return .json(.object(try sandbox.withBook(id) { book, _ in book.configurations }))
    }

    func updateConfigurations(_ request: Request, _ context: SandboxRequestContext) async throws -> Response {
        let id = try accountID(context)
        let json = try await body(request, context)
        guard let updates = json.objectMembers else { throw AlpacaAPIError.malformedBody }
        return .json(
            .object(
                try sandbox.withBook(id) { book, _ in
                    for update in updates {
                        if let index = book.configurations.firstIndex(where: { $0.key == update.key }) {
                            // Keep the JSON type of a known setting.
                            guard book.configurations[index].value.typeName == update.value.typeName else {
                                throw AlpacaAPIError.invalid("invalid \(update.key)")
                            }
                            book.configurations[index].value = update.value
                        }
                    }
                    return book.configurations
                }
            )
        )
    }

    // MARK: Assets

    func assets(_ request: Request) throws -> Response {
        let query = request.queryParameters
        let status = query["status"]
        if let status, !["active", "inactive", ""].contains(status) { throw AlpacaAPIError.invalid("invalid status") }
        let assetClass = query["asset_class"]
        if let assetClass, !["us_equity", "us_option", "crypto", "crypto_perp", ""].contains(assetClass) {
            throw AlpacaAPIError.invalid("invalid asset_class")
        }
        let exchange = query["exchange"].flatMap { $0.isEmpty ? nil : $0 }
        let listed = sandbox.assets.instruments.filter { instrument in
            if status == "inactive" { return false }
            if let assetClass, !assetClass.isEmpty, AlpacaAssets.assetClass(instrument) != assetClass { return false }
            if let exchange, instrument.exchange != exchange { return false }
            return true
        }
        return .json(.array(listed.map(AlpacaWire.asset)))
    }

    func asset(_ context: SandboxRequestContext) throws -> Response {
        guard let instrument = sandbox.assets.resolve(symbolParameter(context)) else { throw AlpacaAPIError.notFound("asset not found") }
        return .json(AlpacaWire.asset(instrument))
    }
}
