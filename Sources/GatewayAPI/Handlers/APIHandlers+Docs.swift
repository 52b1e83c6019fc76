import Foundation
import GatewayCore
import OpenAPIRuntime

/// The interactive API docs: three static files that draw `GET /openapi.json` in the browser, so the docs are the
/// document the server is generated from and cannot drift from it. Public like the dashboard (the page asks for a
/// key and sends it only to this gateway); their Content-Security-Policy comes from `SecurityHeadersMiddleware`.
extension APIHandlers {
    func docsPage(_ input: Operations.DocsPage.Input) async throws -> Operations.DocsPage.Output {
        let file = try DocsAssets.bundled().page
        return .ok(.init(headers: .init(cacheControl: DocsAssets.cacheControl), body: .html(HTTPBody(file))))
    }

    func docsScript(_ input: Operations.DocsScript.Input) async throws -> Operations.DocsScript.Output {
        let file = try DocsAssets.bundled().script
        return .ok(.init(headers: .init(cacheControl: DocsAssets.cacheControl), body: .textJavascript(HTTPBody(file))))
    }

    func docsStyle(_ input: Operations.DocsStyle.Input) async throws -> Operations.DocsStyle.Output {
        let file = try DocsAssets.bundled().style
        return .ok(.init(headers: .init(cacheControl: DocsAssets.cacheControl), body: .textCss(HTTPBody(file))))
    }
}

/// The docs page's files (Sources/GatewayAPI/Docs, package resources), read once per process.
struct DocsAssets: Sendable {
    let page: [UInt8]
    let script: [UInt8]
    let style: [UInt8]

    /// The dashboard's policy, stated on its own so that loosening one page never loosens the other: its own script
    /// and style, `fetch` to this gateway only (the "Try it" forms), no inline script or style, no frames, no form
    /// that posts anywhere (the forms are sent by the script).
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    /// Fetched again on every load: the files are small, and a new gateway's page never runs an old script.
    static let cacheControl = "no-cache"

    static func isDocsPath(_ path: String) -> Bool {
        path == "/docs" || path.hasPrefix("/docs/")
    }

    static func bundled() throws -> DocsAssets { try loaded.get() }

    private static let loaded = Result<DocsAssets, any Error> {
        DocsAssets(
            page: try BundledFile.bytes("index", "html", in: "Docs"),
            script: try BundledFile.bytes("docs", "js", in: "Docs"),
            style: try BundledFile.bytes("docs", "css", in: "Docs"))
    }
}

/// A file of the package's resources (a folder copied as it is by `Package.swift`), for the static pages.
enum BundledFile {
    static func bytes(_ name: String, _ ext: String, in folder: String) throws -> [UInt8] {
        guard let url = Bundle.module.url(forResource: name, withExtension: ext, subdirectory: folder) else {
            throw GatewayError(.internalError, "\(folder)/\(name).\(ext) is missing from the build")
        }
        return Array(try Data(contentsOf: url))
    }
}
