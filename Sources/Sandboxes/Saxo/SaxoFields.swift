import Foundation
import SandboxKit

/// Reads a JSON object the way Saxo's ASP.NET model binding does: member names match case-insensitively,
/// numbers may arrive as numeric strings ("Amount":"10000" in Saxo's own samples), enums match case-insensitively,
/// and every problem is collected into `ModelState` instead of failing on the first.
struct SaxoFields {
    private let members: [JSON.Member]
    /// The path prefix for nested objects (`OrderDuration.`).
    private let prefix: String
    private(set) var problems: [(field: String, problems: [String])] = []

    init(_ json: JSON, prefix: String = "") throws(SaxoAPIError) {
        guard let members = json.objectMembers else {
            throw .invalidModelState(prefix.isEmpty ? "request" : String(prefix.dropLast()), "An object is expected, not \(json.typeName).")
        }
        self.members = members
        self.prefix = prefix
    }

    func value(_ key: String) -> JSON? {
        guard let member = members.last(where: { $0.key.caseInsensitiveCompare(key) == .orderedSame }) else { return nil }
        return member.value.isNull ? nil : member.value
    }

    func has(_ key: String) -> Bool { value(key) != nil }

    mutating func problem(_ key: String, _ text: String) {
        let field = prefix + key
        if let index = problems.firstIndex(where: { $0.field == field }) {
            problems[index].problems.append(text)
        } else {
            problems.append((field, [text]))
        }
    }

    mutating func merge(_ other: SaxoFields) {
        for entry in other.problems {
            for text in entry.problems {
                if let index = problems.firstIndex(where: { $0.field == entry.field }) {
                    problems[index].problems.append(text)
                } else {
                    problems.append((entry.field, [text]))
                }
            }
        }
    }

    mutating func required<T>(_ key: String, _ read: (inout SaxoFields, String) -> T?) -> T? {
        guard has(key) else {
            problem(key, Self.mustNotBeEmpty(key))
            return nil
        }
        return read(&self, key)
    }

    /// Saxo's wording for a missing member (FluentValidation's): `'Asset Type' must not be empty.`
    static func mustNotBeEmpty(_ key: String) -> String {
        var words = ""
        for character in key {
            if character.isUppercase, !words.isEmpty, words.last?.isUppercase == false { words.append(" ") }
            words.append(character)
        }
        return "'\(words)' must not be empty."
    }

    mutating func string(_ key: String) -> String? {
        guard let value = value(key) else { return nil }
        switch value {
        case .string(let text): return text
        case .number(let text): return text
        case .bool(let flag): return flag ? "True" : "False"
        default:
            problem(key, "Could not convert \(value.typeName) to string. Path '\(prefix + key)'.")
            return nil
        }
    }

    mutating func int(_ key: String) -> Int? {
        guard let value = value(key) else { return nil }
        let text: String
        switch value {
        case .number(let t), .string(let t): text = t
        default:
            problem(key, "Could not convert \(value.typeName) to integer. Path '\(prefix + key)'.")
            return nil
        }
        guard let number = Int(text.trimmingCharacters(in: .whitespaces)), number > -(1 << 53), number < 1 << 53 else {
            problem(key, "Could not convert string to integer: \(text). Path '\(prefix + key)'.")
            return nil
        }
        return number
    }

    mutating func decimal(_ key: String) -> Decimal? {
        guard let value = value(key) else { return nil }
        let text: String
        switch value {
        case .number(let t), .string(let t): text = t
        default:
            problem(key, "Could not convert \(value.typeName) to decimal. Path '\(prefix + key)'.")
            return nil
        }
        guard let number = DecimalText.parse(text.trimmingCharacters(in: .whitespaces)) else {
            problem(key, "Could not convert string to decimal: \(text). Path '\(prefix + key)'.")
            return nil
        }
        return number
    }

    mutating func bool(_ key: String) -> Bool? {
        guard let value = value(key) else { return nil }
        switch value {
        case .bool(let flag): return flag
        case .string(let text) where text.lowercased() == "true": return true
        case .string(let text) where text.lowercased() == "false": return false
        default:
            problem(key, "Could not convert \(value.typeName) to boolean. Path '\(prefix + key)'.")
            return nil
        }
    }

    /// An enum member by its case-insensitive name.
    mutating func enumeration<E: RawRepresentable & CaseIterable>(_ key: String, _ type: E.Type) -> E? where E.RawValue == String {
        guard let text = string(key) else { return nil }
        guard let match = E.allCases.first(where: { $0.rawValue.caseInsensitiveCompare(text) == .orderedSame }) else {
            problem(key, "Error converting value \"\(text)\" to type '\(E.self)'. Path '\(prefix + key)'.")
            return nil
        }
        return match
    }

    mutating func object(_ key: String) -> SaxoFields? {
        guard let value = value(key) else { return nil }
        do {
            return try SaxoFields(value, prefix: prefix + key + ".")
        } catch {
            problem(key, "An object is expected, not \(value.typeName).")
            return nil
        }
    }
}

/// Saxo's enum spellings used by several endpoints.
enum SaxoBuySell: String, CaseIterable {
    case Buy, Sell

    var side: TradeSide { self == .Buy ? .buy : .sell }
}

/// Asset types a request may name. Only FxSpot and Stock are listed by the sandbox; the rest are valid
/// spellings that find nothing.
enum SaxoAssetType: String, CaseIterable {
    case FxSpot, FxForwards, FxSwap, FxVanillaOption, FxKnockInOption, FxKnockOutOption, FxOneTouchOption, FxNoTouchOption
    case Stock, Etf, Etc, Etn, Fund, MutualFund, Bond, StockIndex, StockOption, StockIndexOption, ContractFutures
    case FuturesOption, FuturesStrategy, CfdOnStock, CfdOnIndex, CfdOnFutures, CfdOnEtf, CfdOnEtc, CfdOnEtn, CfdOnFund
    case CfdOnRights, CfdOnCompanyWarrant, Rights, CompanyWarrant, Cash, CertificateBonus, Warrant, MiniFuture

    /// The exact spelling for a case-insensitive match, or nil.
    static func canonical(_ text: String) -> String? {
        allCases.first { $0.rawValue.caseInsensitiveCompare(text.trimmingCharacters(in: .whitespaces)) == .orderedSame }?.rawValue
    }
}
