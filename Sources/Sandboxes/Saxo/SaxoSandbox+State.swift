import Foundation
import SandboxKit

/// What the Saxo sandbox saves in its state folder (`saxo.json`) when it keeps one: the logon host's codes, tokens
/// and sessions (so a refresh token a gateway stored keeps working after a restart), every client with its account
/// (cash, working orders, positions, the order-activity log, the order and position number counters, so ids never
/// repeat) and watchlists, and the apps opened at run time.
///
/// Not saved, because a restart of the real service would not keep them either or they are derived: rate-limit
/// windows, the duplicate-order window, price subscriptions (a client subscribes again), and prices themselves
/// (the shared ``MarketEngine`` derives them from the clock; an admin price pin is a test tool and lapses with the
/// process).
struct SaxoSandboxState: Codable, Sendable {
    var tokens: SaxoTokenStore
    var clients: [String: SaxoSandbox.ClientState]
    var apps: [String: SaxoSandbox.App]
    var provisionedApps: Set<String>
    var provisionedCount: Int
}

extension CodingUserInfoKey {
    /// The sandbox's instruments, which saved orders and positions name by Uic and AssetType.
    static let saxoInstruments = CodingUserInfoKey(rawValue: "saxoInstruments")!
}

/// Saved as its Saxo identity (`{"uic": 211, "assetType": "Stock"}`) and looked up again when read, so a saved
/// order follows the instrument as this build lists it.
extension SaxoInstrument: Codable {
    private enum CodingKeys: String, CodingKey {
        case uic, assetType
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let uic = try container.decode(Int.self, forKey: .uic)
        let assetType = try container.decode(String.self, forKey: .assetType)
        guard let instruments = decoder.userInfo[.saxoInstruments] as? SaxoInstruments else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no instrument list to read against"))
        }
        guard let instrument = instruments.find(uic: uic, assetType: assetType) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "the instrument Uic \(uic) (\(assetType)) is not listed by this sandbox"
                )
            )
        }
        self = instrument
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uic, forKey: .uic)
        try container.encode(assetType, forKey: .assetType)
    }
}
