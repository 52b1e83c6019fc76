import Foundation
import OpenAPIRuntime

/// The interactive API docs: three static files that draw `GET /openapi.json` in the browser, so the docs are the
/// document the server is generated from and cannot drift from it. Public like the dashboard (the page asks for a
/// key and sends it only to this gateway); their Content-Security-Policy comes from `SecurityHeadersMiddleware` (see
/// ``StaticPage``).
extension APIHandlers {
    func docsPage(_ input: Operations.DocsPage.Input) async throws -> Operations.DocsPage.Output {
        let file = try StaticPage.docs.bundled().page
        return .ok(.init(headers: .init(cacheControl: StaticPage.cacheControl), body: .html(HTTPBody(file))))
    }

    func docsScript(_ input: Operations.DocsScript.Input) async throws -> Operations.DocsScript.Output {
        let file = try StaticPage.docs.bundled().script
        return .ok(.init(headers: .init(cacheControl: StaticPage.cacheControl), body: .textJavascript(HTTPBody(file))))
    }

    func docsStyle(_ input: Operations.DocsStyle.Input) async throws -> Operations.DocsStyle.Output {
        let file = try StaticPage.docs.bundled().style
        return .ok(.init(headers: .init(cacheControl: StaticPage.cacheControl), body: .textCss(HTTPBody(file))))
    }
}
