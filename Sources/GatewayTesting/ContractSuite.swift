import Foundation
public import GatewayCore
public import GatewayModel

/// The entry point for tests and `gateway contracts verify [PATH…]`: load case files, run them, get one verdict each.
///
/// ```swift
/// let results = await ContractSuite.verify(paths: ["Contracts"], factories: [AlpacaAdapterFactory()])
/// for result in results { print(result) }          // PASS/FAIL/SKIP consumer alpaca/positions: … (file)
/// exit(results.contains(where: \.failed) ? 1 : 0)
/// ```
public enum ContractSuite {
    /// A case file that cannot be used.
    public struct LoadError: Error, CustomStringConvertible, Sendable {
        /// The file (or folder) that could not be used.
        public var path: String
        /// Why: unreadable, not JSON, not a case, or a case that breaks a format rule.
        public var reason: String
        /// `path: reason`, for a test failure message.
        public var description: String { "\(path): \(reason)" }
    }

    /// The case files under `paths`: each path is a `.json` file or a folder searched recursively for `.json` files
    /// (`README` and dot files aside), in sorted order.
    public static func files(paths: [String]) throws -> [String] {
        var files: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw LoadError(path: path, reason: "no such file or folder")
            }
            if !isDirectory.boolValue {
                files.append(path)
                continue
            }
            guard let enumerator = manager.enumerator(atPath: path) else {
                throw LoadError(path: path, reason: "the folder cannot be read")
            }
            var found: [String] = []
            while let relative = enumerator.nextObject() as? String {
                let name = (relative as NSString).lastPathComponent
                if name.hasPrefix(".") || !name.hasSuffix(".json") { continue }
                found.append((path as NSString).appendingPathComponent(relative))
            }
            files += found.sorted()
        }
        return files
    }

    /// Decodes and checks one case file.
    public static func load(file: String) throws -> ContractCase {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw LoadError(path: file, reason: "cannot be read (\(error.localizedDescription))")
        }
        var contract: ContractCase
        do {
            contract = try JSONDecoder().decode(ContractCase.self, from: data)
        } catch {
            throw LoadError(path: file, reason: "is not a contract case: \(explain(error))")
        }
        let problems = contract.problems()
        guard problems.isEmpty else { throw LoadError(path: file, reason: problems.joined(separator: "; ")) }
        contract.source = file
        return contract
    }

    /// Every case under `paths`; the first unusable file fails the load.
    public static func load(paths: [String]) throws -> [ContractCase] {
        try files(paths: paths).map(load(file:))
    }

    /// Runs the consumer side of every case under `paths`. A file that cannot be loaded is one failed result, so a
    /// CLI prints it like any other and exits non-zero.
    public static func verify(paths: [String], factories: [any BrokerAdapterFactory]) async -> [ContractResult] {
        let files: [String]
        do {
            files = try self.files(paths: paths)
        } catch {
            return [failure(error, path: paths.joined(separator: " "))]
        }
        let runner = ContractRunner(factories: factories)
        var results: [ContractResult] = []
        for file in files {
            do {
                results.append(await runner.run(try load(file: file)))
            } catch {
                results.append(failure(error, path: file))
            }
        }
        return results
    }

    /// Runs the consumer side of loaded cases.
    public static func verify(_ cases: [ContractCase], factories: [any BrokerAdapterFactory]) async -> [ContractResult] {
        let runner = ContractRunner(factories: factories)
        var results: [ContractResult] = []
        for contract in cases { results.append(await runner.run(contract)) }
        return results
    }

    /// Runs the provider side of loaded cases against running targets (one per broker kind), one case at a time
    /// (cases may share state in the target).
    public static func verifyProvider(
        _ cases: [ContractCase],
        targets: [BrokerKind: ContractProviderTarget],
        transport: any BrokerTransport
    ) async -> [ContractResult] {
        let provider = ContractProvider(targets: targets, transport: transport)
        var results: [ContractResult] = []
        for contract in cases { results.append(await provider.run(contract)) }
        return results
    }

    static func failure(_ error: any Error, path: String) -> ContractResult {
        let reason = (error as? LoadError)?.reason ?? "\(error)"
        return ContractResult(label: "unloadable case", source: path, side: .consumer, outcome: .failed(reason))
    }

    static func explain(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch decoding {
        case .keyNotFound(let key, let context):
            return "missing '\(key.stringValue)'" + (context.codingPath.isEmpty ? "" : " in \(path(context))")
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context).isEmpty ? "the file" : path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
