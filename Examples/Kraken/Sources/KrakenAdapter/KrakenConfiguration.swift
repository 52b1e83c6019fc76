public import Foundation
public import GatewayCore
public import GatewayModel

/// Everything one Kraken connection needs, read from its descriptor and credentials.
///
/// The base URL is the API origin **without** `/0` (`https://api.kraken.com`, or the sandbox `sandbox://kraken`):
/// the adapter adds `/0/public/<Method>` and `/0/private/<Method>`, and signs the latter's path.
///
/// Credentials: `apiKey` (the `API-Key` header) and `apiSecret` (base64, as Kraken issues it: the HMAC key of
/// `API-Sign`). Both are required: without keys Kraken serves market data only, and a gateway connection is an account.
///
/// Connection settings (non-secret):
/// - `valuationCurrency`: the currency holdings are valued in as positions, and the account's currency (default `USD`).
public struct KrakenConfiguration: Sendable {
    /// An API key pair; `description` redacts it so a configuration can be logged.
    public struct Keys: Sendable, Hashable, CustomStringConvertible {
        /// The public key, sent as `API-Key`.
        public var apiKey: String
        /// The secret decoded from base64: the HMAC-SHA512 key of `API-Sign`.
        public var secret: Data
        /// Names the type only; the keys never appear.
        public var description: String { "Keys(redacted)" }
    }

    /// The API origin without a trailing slash and without `/0`.
    public var baseURL: String
    /// The key pair.
    public var keys: Keys
    /// The currency holdings are valued in, and the account's currency.
    public var valuationCurrency: String
    /// Reads: market data, balances and orders.
    public var readTimeout: Duration = .seconds(10)
    /// Placements and cancels: longer, because a lost answer costs a reconciliation.
    public var writeTimeout: Duration = .seconds(15)
    /// The most instruments `searchInstruments` returns.
    public var searchLimit = 50

    /// Makes a configuration from parts already checked; trailing slashes are dropped.
    public init(baseURL: String, keys: Keys, valuationCurrency: String = "USD") {
        var trimmed = baseURL
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.baseURL = trimmed
        self.keys = keys
        self.valuationCurrency = valuationCurrency
    }

    /// Reads a connection: `baseURL` is the resolved one (`sandbox://` already replaced).
    public init(baseURL: String, settings: [String: String], credentials: BrokerCredentials) throws {
        var problems: [FieldProblem] = []
        let apiKey = credentials["apiKey"] ?? ""
        let apiSecret = credentials["apiSecret"] ?? ""
        if apiKey.isEmpty { problems.append(FieldProblem(field: "credentials.apiKey", problem: "is required for kraken")) }
        var secret: Data?
        if apiSecret.isEmpty {
            problems.append(FieldProblem(field: "credentials.apiSecret", problem: "is required for kraken"))
        } else {
            secret = KrakenSigner.key(secret: apiSecret)
            if secret == nil {
                problems.append(
                    FieldProblem(field: "credentials.apiSecret", problem: "must be the base64 private key Kraken issued with the API key")
                )
            }
        }
        guard let url = URL(string: baseURL), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw GatewayError.invalid("baseURL", "must be an http or https URL (Kraken's API origin, e.g. https://api.kraken.com)")
        }
        var valuation = "USD"
        if let raw = settings["valuationCurrency"], !raw.isEmpty {
            let upper = raw.uppercased()
            if upper.count <= 12, upper.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                valuation = upper
            } else {
                problems.append(FieldProblem(field: "settings.valuationCurrency", problem: "must be a currency code such as USD or EUR"))
            }
        }
        guard problems.isEmpty, let secret else { throw GatewayError.unprocessable(problems) }
        self.init(baseURL: baseURL, keys: Keys(apiKey: apiKey, secret: secret), valuationCurrency: valuation)
    }
}
