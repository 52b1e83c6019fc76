import Foundation
import GatewayAPI
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 26: "an interactive API docs page served from the same OpenAPI document".
@Suite("API: the interactive docs page")
struct DocsPageTests {
    static let policy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static var folder: URL { SpecFirstTests.packageRoot.appendingPathComponent("Sources/GatewayAPI/Docs") }

    @Test(arguments: [("/docs", "text/html"), ("/docs/docs.js", "text/javascript"), ("/docs/docs.css", "text/css")])
    func filesAreServedPubliclyWithAStrictPolicy(_ path: String, _ type: String) async throws {
        try await APIHarness.with { _, client in
            try await client.execute(uri: path, method: .get, headers: [:]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix(type) == true, "\(response.headers[.contentType] ?? "")")
                #expect(response.headers[.cacheControl] == "no-cache")
                #expect(response.headers[HTTPField.Name("Content-Security-Policy")!] == Self.policy)
                #expect(response.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
                #expect(response.body.readableBytes > 100)
            }
        }
    }

    /// What is served is the file in the source tree (nothing generated, nothing stale).
    @Test(arguments: [("/docs", "index.html"), ("/docs/docs.js", "docs.js"), ("/docs/docs.css", "docs.css")])
    func servedFilesAreTheSourceFiles(_ path: String, _ file: String) async throws {
        let source = try Data(contentsOf: Self.folder.appendingPathComponent(file))
        try await APIHarness.with { _, client in
            try await client.execute(uri: path, method: .get, headers: [:]) { response in
                #expect(Data(response.body.readableBytesView) == source)
            }
        }
    }

    @Test func neighbouringPathsKeepTheAPIsPolicy() async throws {
        try await APIHarness.with { harness, client in
            for path in ["/docsx", "/docs.js", "/v1/docs", "/openapi.json"] {
                try await client.execute(uri: path, method: .get, headers: harness.auth) { response in
                    #expect(response.headers[HTTPField.Name("Content-Security-Policy")!] == "default-src 'none'; frame-ancestors 'none'", "\(path)")
                }
            }
            // An error under /docs/ (a file that is not one) still carries the page's policy, as documented.
            try await client.execute(uri: "/docs/nothing.js", method: .get, headers: [:]) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[HTTPField.Name("Content-Security-Policy")!] == Self.policy)
            }
        }
    }

    /// Every `src` and `href` of the page is this gateway's own (its script and style, the document, the dashboard):
    /// nothing from elsewhere, no inline script or style, no inline handlers.
    @Test func thePageLoadsOnlyItsOwnFiles() throws {
        let page = try String(contentsOf: Self.folder.appendingPathComponent("index.html"), encoding: .utf8)
        let references = Self.attributes(#"(?:src|href)="([^"]*)""#, in: page)
        // (`data:,` is an empty icon, so the browser does not ask for /favicon.ico.)
        #expect(Set(references) == ["/docs/docs.css", "/docs/docs.js", "/openapi.json", "/dashboard", "data:,"], "\(references)")
        #expect(Self.attributes(#"<script([^>]*)>"#, in: page) == [#" src="/docs/docs.js" defer"#])
        #expect(Self.attributes(#"<link([^>]*)>"#, in: page) == [#" rel="icon" href="data:,""#, #" rel="stylesheet" href="/docs/docs.css""#])
        #expect(!page.contains("<style"))
        #expect(!page.contains(" style="))
        #expect(page.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil)
        #expect(page.range(of: #"(?i)https?:|//[a-z]"#, options: .regularExpression) == nil)
    }

    @Test func theScriptSetsNoHTMLAndCallsNowhereElse() throws {
        let script = try String(contentsOf: Self.folder.appendingPathComponent("docs.js"), encoding: .utf8)
        for forbidden in [
            "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setTimeout(\"",
            "localStorage", "console.", "XMLHttpRequest", "EventSource(", "import(", "importScripts",
        ] {
            #expect(!script.contains(forbidden), "\(forbidden)")
        }
        #expect(script.range(of: #"(?i)\b(?:https?|wss?):|["'`]//"#, options: .regularExpression) == nil, "an external URL")
        // It reads the document it is served with, and keeps the key where the dashboard does, as a header only.
        #expect(script.contains(#"fetch("/openapi.json""#))
        #expect(script.contains(#"const KEY_STORAGE = "brokergateway.apiKey";"#))
        #expect(script.contains("sessionStorage"))
        #expect(script.contains("`Bearer ${key}`"))
        #expect(!script.contains("api_key=") && !script.contains("apiKey="), "the key never goes in a URL")
        let style = try String(contentsOf: Self.folder.appendingPathComponent("docs.css"), encoding: .utf8)
        #expect(style.range(of: #"(?i)url\(|@import"#, options: .regularExpression) == nil, "the style loads nothing")
    }

    /// The docs page is itself an operation of the document it draws (public, with its headers documented).
    @Test func theDocsOperationsAreInTheServedDocument() async throws {
        try await APIHarness.with { _, client in
            let data = try await client.execute(uri: "/openapi.json", method: .get, headers: [:]) { response in
                Data(response.body.readableBytesView)
            }
            let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            for (path, id, type) in [
                ("/docs", "docsPage", "text/html"), ("/docs/docs.js", "docsScript", "text/javascript"),
                ("/docs/docs.css", "docsStyle", "text/css"),
            ] {
                let operation = try #require(paths[path]?["get"] as? [String: Any], "\(path)")
                #expect(operation["operationId"] as? String == id)
                #expect((operation["security"] as? [Any])?.isEmpty == true, "\(path) needs no key")
                let ok = try #require((operation["responses"] as? [String: Any])?["200"] as? [String: Any])
                #expect((ok["content"] as? [String: Any])?.keys.first == type)
                let headers = try #require(ok["headers"] as? [String: [String: Any]])
                #expect(Set(headers.keys) == ["Cache-Control", "Content-Security-Policy", "X-Content-Type-Options"])
                #expect((headers["Content-Security-Policy"]?["description"] as? String)?.contains(Self.policy) == true)
                #expect((operation["responses"] as? [String: Any])?["default"] != nil)
            }
        }
    }

    static func attributes(_ pattern: String, in text: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}
