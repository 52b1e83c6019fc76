import AsyncHTTPClient
public import Foundation
public import GatewayCore
public import GatewayModel

/// One broker's folder of contract cases in this repository (`Contracts/<broker>`), found from the calling test
/// file, and the runs every adapter's tests make of it: each case on the consumer side, the whole folder through
/// the suite entry point, and a case against a running sandbox on the provider side.
///
/// ```swift
/// let alpacaContracts = ContractFolder("alpaca")
///
/// @Test(arguments: alpacaContracts.caseFiles)
/// func consumer(_ name: String) async throws {
///     #expect(try await alpacaContracts.consumerProblems(name, factory: AlpacaAdapterFactory()) == [])
/// }
/// ```
public struct ContractFolder: Sendable {
    /// The folder's absolute path.
    public let path: String

    /// `Contracts/<broker>` of the package holding `file` (the nearest folder above it with a `Package.swift`).
    public init(_ broker: String, file: String = #filePath) {
        self.init(path: Self.packageRoot(of: file).appendingPathComponent("Contracts").appendingPathComponent(broker).path)
    }

    /// The folder at `path`, for cases kept outside this repository's `Contracts/`.
    public init(path: String) {
        self.path = path
    }

    /// The nearest folder above `file` holding a `Package.swift`; the current directory when there is none.
    public static func packageRoot(of file: String) -> URL {
        var url = URL(fileURLWithPath: file).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
            url.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }

    /// Every case file in the folder, by file name, sorted: a test's argument list. Empty when the folder cannot be
    /// read (the tests that count the cases then fail).
    public var caseFiles: [String] {
        ((try? ContractSuite.files(paths: [path])) ?? []).map { ($0 as NSString).lastPathComponent }
    }

    /// One case, by file name.
    public func load(_ name: String) throws -> ContractCase {
        try ContractSuite.load(file: (path as NSString).appendingPathComponent(name))
    }

    /// Every case in the folder.
    public func loadAll() throws -> [ContractCase] {
        try ContractSuite.load(paths: [path])
    }

    /// The consumer side of one case: the adapter against the recorded exchanges.
    public func runConsumer(_ name: String, factory: any BrokerAdapterFactory) async throws -> ContractResult {
        await ContractRunner(factories: [factory]).run(try load(name))
    }

    /// What is wrong with one case on the consumer side: nothing when the adapter satisfies it, else the verdict.
    public func consumerProblems(_ name: String, factory: any BrokerAdapterFactory) async throws -> [String] {
        let result = try await runConsumer(name, factory: factory)
        return result.passed ? [] : ["\(result)"]
    }

    /// What is wrong with the folder as a whole, empty when nothing is: fewer than `minimumCases` cases, a case of
    /// another broker or with a provenance of `minimumProvenance` characters or fewer, and any failure of the
    /// consumer side run through the entry point `gateway contracts verify` uses.
    public func problems(
        broker: BrokerKind,
        factory: any BrokerAdapterFactory,
        minimumCases: Int,
        minimumProvenance: Int
    ) async -> [String] {
        var problems: [String] = []
        let names = caseFiles
        if names.count < minimumCases { problems.append("\(path): \(names.count) cases, fewer than \(minimumCases)") }
        for name in names {
            do {
                let contract = try load(name)
                if contract.broker != broker { problems.append("\(name): a case for \(contract.broker), not \(broker)") }
                if contract.provenance.count <= minimumProvenance { problems.append("\(name): provenance is too thin") }
            } catch {
                problems.append("\(name): \(error)")
            }
        }
        let results = await ContractSuite.verify(paths: [path], factories: [factory])
        if results.count != names.count { problems.append("the suite ran \(results.count) cases of \(names.count)") }
        problems += results.filter { !$0.passed }.map { "\($0)" }
        return problems
    }

    /// The provider side of one case against a running sandbox (or broker) at `baseURL`, over a real HTTP client.
    public static func runProvider(
        _ contract: ContractCase,
        broker: BrokerKind,
        baseURL: String,
        authHeaders: [(name: String, value: String)]
    ) async -> ContractResult {
        let target = ContractProviderTarget(baseURL: baseURL, authHeaders: authHeaders)
        return await ContractProvider(targets: [broker: target], transport: HTTPClientTransport.loopbackForTests)
            .run(contract)
    }
}
