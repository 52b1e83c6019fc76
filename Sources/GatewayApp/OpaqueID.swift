import Foundation

/// Ids the gateway derives for things that live at a broker (orders, broker watchlists): opaque to clients, and
/// decodable back to (connection, broker id) without a lookup.
enum OpaqueID {
    static func make(prefix: String, connectionId: String, brokerId: String) -> String {
        let raw = Data("\(connectionId)\n\(brokerId)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return prefix + raw
    }

    static func parse(_ id: String, prefix: String) -> (connectionId: String, brokerId: String)? {
        guard id.hasPrefix(prefix), id.utf8.count <= 512 else { return nil }
        var text = String(id.dropFirst(prefix.count))
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.utf8.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text), let decoded = String(data: data, encoding: .utf8) else { return nil }
        let parts = decoded.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        return (String(parts[0]), String(parts[1]))
    }
}
