import Foundation
import GatewayCore

/// A static page the gateway serves from its package resources (a folder copied as it is by `Package.swift`): its
/// HTML, one script and one style sheet, read once per process, public, fetched again on every load, and under a
/// Content-Security-Policy of its own (chosen by path in `SecurityHeadersMiddleware`). Each page states its policy on
/// its own, so that loosening one page never loosens another.
struct StaticPage: Sendable {
    /// The path the page is served at (`/dashboard`); its files are under it.
    let path: String
    let contentSecurityPolicy: String
    let files: Result<Files, any Error>

    struct Files: Sendable {
        let page: [UInt8]
        let script: [UInt8]
        let style: [UInt8]
    }

    /// Fetched again on every load: the files are small, and a new gateway's page never runs an old script.
    static let cacheControl = "no-cache"

    init(path: String, folder: String, script: String, style: String, contentSecurityPolicy: String) {
        self.path = path
        self.contentSecurityPolicy = contentSecurityPolicy
        files = Result {
            Files(
                page: try Self.bytes("index", "html", in: folder),
                script: try Self.bytes(script, "js", in: folder),
                style: try Self.bytes(style, "css", in: folder)
            )
        }
    }

    func bundled() throws -> Files { try files.get() }

    func serves(_ requestPath: String) -> Bool {
        requestPath == path || requestPath.hasPrefix(path + "/")
    }

    static func bytes(_ name: String, _ ext: String, in folder: String) throws -> [UInt8] {
        guard let url = Bundle.module.url(forResource: name, withExtension: ext, subdirectory: folder) else {
            throw GatewayError(.internalError, "\(folder)/\(name).\(ext) is missing from the build")
        }
        return Array(try Data(contentsOf: url))
    }

    /// The ops dashboard (Sources/GatewayAPI/Dashboard): its own script and style, requests to this gateway only
    /// (`/v1/status`), inline SVG; no inline script or style, no frames, no forms that post anywhere.
    static let dashboard = StaticPage(
        path: "/dashboard",
        folder: "Dashboard",
        script: "app",
        style: "app",
        contentSecurityPolicy: "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
            + "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )

    /// The interactive API docs (Sources/GatewayAPI/Docs): its own script and style, `fetch` to this gateway only
    /// (`/openapi.json` and the "Try it" forms), no inline script or style, no frames, no form that posts anywhere
    /// (the forms are sent by the script).
    static let docs = StaticPage(
        path: "/docs",
        folder: "Docs",
        script: "docs",
        style: "docs",
        contentSecurityPolicy: "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
            + "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )

    static let all = [dashboard, docs]
}
