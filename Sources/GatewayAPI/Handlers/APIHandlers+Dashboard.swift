import Foundation
import GatewayCore
import OpenAPIRuntime

/// The ops dashboard: three static files, served as they are in the build (no build step, nothing generated).
/// They are public (the page asks for an API key and sends it only to `/v1/status`); their Content-Security-Policy
/// comes from `SecurityHeadersMiddleware`.
extension APIHandlers {
    func dashboardPage(_ input: Operations.DashboardPage.Input) async throws -> Operations.DashboardPage.Output {
        let file = try DashboardAssets.bundled().page
        return .ok(.init(headers: .init(cacheControl: DashboardAssets.cacheControl), body: .html(HTTPBody(file))))
    }

    func dashboardScript(_ input: Operations.DashboardScript.Input) async throws -> Operations.DashboardScript.Output {
        let file = try DashboardAssets.bundled().script
        return .ok(.init(headers: .init(cacheControl: DashboardAssets.cacheControl), body: .textJavascript(HTTPBody(file))))
    }

    func dashboardStyle(_ input: Operations.DashboardStyle.Input) async throws -> Operations.DashboardStyle.Output {
        let file = try DashboardAssets.bundled().style
        return .ok(.init(headers: .init(cacheControl: DashboardAssets.cacheControl), body: .textCss(HTTPBody(file))))
    }
}

/// The dashboard's files (Sources/GatewayAPI/Dashboard, package resources), read once per process.
struct DashboardAssets: Sendable {
    let page: [UInt8]
    let script: [UInt8]
    let style: [UInt8]

    /// Its own script and style, requests to this gateway only, inline SVG; no inline script or style, no frames,
    /// no forms that post anywhere.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    /// Fetched again on every load: the files are small, and a new gateway's page never runs an old script.
    static let cacheControl = "no-cache"

    static func isDashboardPath(_ path: String) -> Bool {
        path == "/dashboard" || path.hasPrefix("/dashboard/")
    }

    static func bundled() throws -> DashboardAssets { try loaded.get() }

    private static let loaded = Result<DashboardAssets, any Error> {
        DashboardAssets(
            page: try BundledFile.bytes("index", "html", in: "Dashboard"),
            script: try BundledFile.bytes("app", "js", in: "Dashboard"),
            style: try BundledFile.bytes("app", "css", in: "Dashboard"))
    }
}
