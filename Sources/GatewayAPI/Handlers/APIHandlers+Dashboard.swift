import Foundation
import OpenAPIRuntime

/// The ops dashboard: three static files, served as they are in the build (no build step, nothing generated).
/// They are public (the page asks for an API key and sends it only to `/v1/status`); their Content-Security-Policy
/// comes from `SecurityHeadersMiddleware` (see ``StaticPage``).
extension APIHandlers {
    func dashboardPage(_ input: Operations.DashboardPage.Input) async throws -> Operations.DashboardPage.Output {
        let file = try StaticPage.dashboard.bundled().page
        return .ok(.init(headers: .init(cacheControl: StaticPage.cacheControl), body: .html(HTTPBody(file))))
    }

    func dashboardScript(_ input: Operations.DashboardScript.Input) async throws -> Operations.DashboardScript.Output {
        let file = try StaticPage.dashboard.bundled().script
        return .ok(.init(headers: .init(cacheControl: StaticPage.cacheControl), body: .textJavascript(HTTPBody(file))))
    }

    func dashboardStyle(_ input: Operations.DashboardStyle.Input) async throws -> Operations.DashboardStyle.Output {
        let file = try StaticPage.dashboard.bundled().style
        return .ok(.init(headers: .init(cacheControl: StaticPage.cacheControl), body: .textCss(HTTPBody(file))))
    }
}
