public import Foundation

/// What a client asks the gateway to place.
public struct OrderRequest: Codable, Sendable, Hashable {
    /// The longest `clientOrderId` accepted, in characters: ``problems()`` refuses a longer one.
    public static let maximumClientOrderIdLength = 48

    /// The gateway connection (`conn_…`) to place the order through.
    public var connectionId: String
    /// The account at that connection's broker (`Account.id`).
    public var accountId: String
    /// The instrument to trade; on the wire it travels flat, as `symbol` and `assetClass`.
    public var instrument: InstrumentReference
    /// Whether to buy or sell (or sell short, or buy to cover).
    public var side: OrderSide
    /// How the order is priced; it decides whether `limitPrice` and `stopPrice` are required or refused.
    public var type: OrderType
    /// How long the order works; `day` when the body leaves it out.
    public var timeInForce: TimeInForce
    /// Units to trade. Exactly one of `quantity` and `notional` is set.
    public var quantity: Decimal?
    /// Money to trade, in the instrument's quote currency (a dollar-amount order): the broker decides the units as it
    /// fills. Exactly one of `quantity` and `notional` is set; only brokers whose capabilities list `notionalOrders`
    /// take one (Alpaca: market orders, day for equities, fractionable assets).
    public var notional: Decimal?
    /// The limit price: required for `limit` and `stop_limit`, refused for the other types; greater than 0, within
    /// ``DecimalBounds/price`` (never rounded).
    public var limitPrice: Decimal?
    /// The stop (trigger) price: required for `stop` and `stop_limit`, refused for the other types; greater than 0,
    /// within ``DecimalBounds/price`` (never rounded).
    public var stopPrice: Decimal?
    /// The caller's id for the order; the gateway makes one when it is missing.
    public var clientOrderId: String?
    /// Required for `gtd`.
    public var expiresAt: Date?
    /// A preview made earlier by `POST /v1/orders/preview` that this placement confirms.
    public var previewId: String?

    /// A request as a client builds it: `quantity` or `notional`, exactly one; ``problems()`` says whether it is valid.
    public init(
        connectionId: String,
        accountId: String,
        instrument: InstrumentReference,
        side: OrderSide,
        type: OrderType,
        timeInForce: TimeInForce,
        quantity: Decimal?,
        limitPrice: Decimal? = nil,
        stopPrice: Decimal? = nil,
        clientOrderId: String? = nil,
        expiresAt: Date? = nil,
        previewId: String? = nil,
        notional: Decimal? = nil
    ) {
        self.connectionId = connectionId
        self.accountId = accountId
        self.instrument = instrument
        self.side = side
        self.type = type
        self.timeInForce = timeInForce
        self.quantity = quantity
        self.notional = notional
        self.limitPrice = limitPrice
        self.stopPrice = stopPrice
        self.clientOrderId = clientOrderId
        self.expiresAt = expiresAt
        self.previewId = previewId
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case connectionId, accountId, symbol, assetClass, side, type, timeInForce, quantity, notional, limitPrice
        case stopPrice, clientOrderId, expiresAt, previewId
    }

    /// Hand-written both ways: the instrument travels flat (`symbol`, `assetClass`), `timeInForce` defaults to `day`,
    /// and unknown fields are refused.
    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownKeysIn: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        connectionId = try c.decode(String.self, forKey: .connectionId)
        accountId = try c.decode(String.self, forKey: .accountId)
        instrument = InstrumentReference(
            symbol: try c.decode(String.self, forKey: .symbol),
            assetClass: try c.decodeIfPresent(AssetClass.self, forKey: .assetClass)
        )
        side = try c.decode(OrderSide.self, forKey: .side)
        type = try c.decode(OrderType.self, forKey: .type)
        timeInForce = try c.decodeIfPresent(TimeInForce.self, forKey: .timeInForce) ?? .day
        quantity = try c.decodeDecimalIfPresent(forKey: .quantity)
        notional = try c.decodeDecimalIfPresent(forKey: .notional)
        limitPrice = try c.decodeDecimalIfPresent(forKey: .limitPrice)
        stopPrice = try c.decodeDecimalIfPresent(forKey: .stopPrice)
        clientOrderId = try c.decodeIfPresent(String.self, forKey: .clientOrderId)
        expiresAt = try c.decodeIfPresent(Date.self, forKey: .expiresAt)
        previewId = try c.decodeIfPresent(String.self, forKey: .previewId)
    }

    /// The wire form ``init(from:)`` reads: the instrument flat (`symbol`, `assetClass`), decimals as strings, absent
    /// fields left out.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(connectionId, forKey: .connectionId)
        try c.encode(accountId, forKey: .accountId)
        try c.encode(instrument.symbol, forKey: .symbol)
        try c.encodeIfPresent(instrument.assetClass, forKey: .assetClass)
        try c.encode(side, forKey: .side)
        try c.encode(type, forKey: .type)
        try c.encode(timeInForce, forKey: .timeInForce)
        try c.encodeDecimalIfPresent(quantity, forKey: .quantity)
        try c.encodeDecimalIfPresent(notional, forKey: .notional)
        try c.encodeDecimalIfPresent(limitPrice, forKey: .limitPrice)
        try c.encodeDecimalIfPresent(stopPrice, forKey: .stopPrice)
        try c.encodeIfPresent(clientOrderId, forKey: .clientOrderId)
        try c.encodeIfPresent(expiresAt, forKey: .expiresAt)
        try c.encodeIfPresent(previewId, forKey: .previewId)
    }

    /// The rules that hold for every broker, each decimal's bounds included (``DecimalBounds``: beyond them a value is
    /// refused, never rounded). Broker- and instrument-specific rules (increments, supported time in force) are the
    /// adapter's.
    public func problems() -> [FieldProblem] {
        var problems: [FieldProblem] = []
        if connectionId.isEmpty { problems.append(.init(field: "connectionId", problem: "must not be empty")) }
        if accountId.isEmpty { problems.append(.init(field: "accountId", problem: "must not be empty")) }
        if instrument.symbol.isEmpty || instrument.symbol.count > 32 {
            problems.append(.init(field: "symbol", problem: "must be 1 to 32 characters"))
        }
        switch (quantity, notional) {
        case (nil, nil):
            problems.append(.init(field: "quantity", problem: "is required (or notional, for an order sized in money)"))
        case (.some, .some):
            problems.append(.init(field: "notional", problem: "is not allowed with quantity: send exactly one of them"))
        case (let quantity?, nil):
            if quantity <= 0 {
                problems.append(.init(field: "quantity", problem: "must be greater than 0"))
            } else if let problem = DecimalBounds.quantity.problem(quantity) {
                problems.append(.init(field: "quantity", problem: problem))
            }
        case (nil, let notional?):
            if notional <= 0 {
                problems.append(.init(field: "notional", problem: "must be greater than 0"))
            } else if let problem = DecimalBounds.notional.problem(notional) {
                problems.append(.init(field: "notional", problem: problem))
            }
        }
        if type.needsLimitPrice {
            if let limitPrice {
                if limitPrice <= 0 {
                    problems.append(.init(field: "limitPrice", problem: "must be greater than 0"))
                } else if let problem = DecimalBounds.price.problem(limitPrice) {
                    problems.append(.init(field: "limitPrice", problem: problem))
                }
            } else {
                problems.append(.init(field: "limitPrice", problem: "is required for \(type.rawValue) orders"))
            }
        } else if limitPrice != nil {
            problems.append(.init(field: "limitPrice", problem: "is not allowed for \(type.rawValue) orders"))
        }
        if type.needsStopPrice {
            if let stopPrice {
                if stopPrice <= 0 {
                    problems.append(.init(field: "stopPrice", problem: "must be greater than 0"))
                } else if let problem = DecimalBounds.price.problem(stopPrice) {
                    problems.append(.init(field: "stopPrice", problem: problem))
                }
            } else {
                problems.append(.init(field: "stopPrice", problem: "is required for \(type.rawValue) orders"))
            }
        } else if stopPrice != nil {
            problems.append(.init(field: "stopPrice", problem: "is not allowed for \(type.rawValue) orders"))
        }
        if timeInForce == .gtd, expiresAt == nil {
            problems.append(.init(field: "expiresAt", problem: "is required for gtd orders"))
        }
        if timeInForce != .gtd, expiresAt != nil {
            problems.append(.init(field: "expiresAt", problem: "is allowed only for gtd orders"))
        }
        if let clientOrderId {
            if clientOrderId.isEmpty || clientOrderId.count > Self.maximumClientOrderIdLength {
                problems.append(
                    .init(
                        field: "clientOrderId",
                        problem: "must be 1 to \(Self.maximumClientOrderIdLength) characters"
                    )
                )
            } else if !clientOrderId.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.:".contains($0)) }) {
                problems.append(
                    .init(
                        field: "clientOrderId",
                        problem: "may contain only letters, digits, '-', '_', '.' and ':'"
                    )
                )
            }
        }
        return problems
    }
}
