public import Foundation

/// What a client asks the gateway to place.
public struct OrderRequest: Codable, Sendable, Hashable {
    public static let maximumClientOrderIdLength = 48

    public var connectionId: String
    public var accountId: String
    public var instrument: InstrumentReference
    public var side: OrderSide
    public var type: OrderType
    public var timeInForce: TimeInForce
    /// Units to trade. Exactly one of `quantity` and `notional` is set.
    public var quantity: Decimal?
    /// Money to trade, in the instrument's quote currency (a dollar-amount order): the broker decides the units as it
    /// fills. Exactly one of `quantity` and `notional` is set; only brokers whose capabilities list `notionalOrders`
    /// take one (Alpaca: market orders, day for equities, fractionable assets).
    public var notional: Decimal?
    public var limitPrice: Decimal?
    public var stopPrice: Decimal?
    /// The caller's id for the order; the gateway makes one when it is missing.
    public var clientOrderId: String?
    /// Required for `gtd`.
    public var expiresAt: Date?
    /// A preview made earlier by `POST /v1/orders/preview` that this placement confirms.
    public var previewId: String?

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

/// A change to a working order. Fields left `nil` keep their value.
public struct OrderModification: Codable, Sendable, Hashable {
    public var quantity: Decimal?
    public var limitPrice: Decimal?
    public var stopPrice: Decimal?
    public var timeInForce: TimeInForce?
    /// Saxo's seed flow turns a market order into a limit order and back.
    public var type: OrderType?

    public init(
        quantity: Decimal? = nil,
        limitPrice: Decimal? = nil,
        stopPrice: Decimal? = nil,
        timeInForce: TimeInForce? = nil,
        type: OrderType? = nil
    ) {
        self.quantity = quantity
        self.limitPrice = limitPrice
        self.stopPrice = stopPrice
        self.timeInForce = timeInForce
        self.type = type
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case quantity, limitPrice, stopPrice, timeInForce, type }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownKeysIn: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        quantity = try c.decodeDecimalIfPresent(forKey: .quantity)
        limitPrice = try c.decodeDecimalIfPresent(forKey: .limitPrice)
        stopPrice = try c.decodeDecimalIfPresent(forKey: .stopPrice)
        timeInForce = try c.decodeIfPresent(TimeInForce.self, forKey: .timeInForce)
        type = try c.decodeIfPresent(OrderType.self, forKey: .type)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeDecimalIfPresent(quantity, forKey: .quantity)
        try c.encodeDecimalIfPresent(limitPrice, forKey: .limitPrice)
        try c.encodeDecimalIfPresent(stopPrice, forKey: .stopPrice)
        try c.encodeIfPresent(timeInForce, forKey: .timeInForce)
        try c.encodeIfPresent(type, forKey: .type)
    }

    public var isEmpty: Bool {
        quantity == nil && limitPrice == nil && stopPrice == nil && timeInForce == nil && type == nil
    }

    public func problems() -> [FieldProblem] {
        var problems: [FieldProblem] = []
        if isEmpty {
            problems.append(.init(field: "body", problem: "must change at least one of quantity, limitPrice, stopPrice, timeInForce, type"))
        }
        for (field, value, bounds) in [
            ("quantity", quantity, DecimalBounds.quantity), ("limitPrice", limitPrice, .price), ("stopPrice", stopPrice, .price),
        ] {
            guard let value else { continue }
            if value <= 0 {
                problems.append(.init(field: field, problem: "must be greater than 0"))
            } else if let problem = bounds.problem(value) {
                problems.append(.init(field: field, problem: problem))
            }
        }
        return problems
    }
}

/// What an order would cost and do, before it is placed.
public struct OrderPreview: Codable, Sendable, Hashable {
    /// The gateway's preview id; `POST /v1/orders` may reference it until `expiresAt`.
    public var id: String
    public var expiresAt: Date
    public var request: OrderRequest
    public var currency: String
    public var estimatedPrice: Decimal?
    public var estimatedCost: Decimal?
    public var estimatedCommission: Decimal?
    public var buyingPowerAfter: Decimal?
    public var warnings: [String]
    /// The broker's own preview id where the broker previews natively (TradeIt `orderId`).
    public var brokerPreviewId: String?

    public init(
        id: String,
        expiresAt: Date,
        request: OrderRequest,
        currency: String,
        estimatedPrice: Decimal? = nil,
        estimatedCost: Decimal? = nil,
        estimatedCommission: Decimal? = nil,
        buyingPowerAfter: Decimal? = nil,
        warnings: [String] = [],
        brokerPreviewId: String? = nil
    ) {
        self.id = id
        self.expiresAt = expiresAt
        self.request = request
        self.currency = currency
        self.estimatedPrice = estimatedPrice
        self.estimatedCost = estimatedCost
        self.estimatedCommission = estimatedCommission
        self.buyingPowerAfter = buyingPowerAfter
        self.warnings = warnings
        self.brokerPreviewId = brokerPreviewId
    }

    enum CodingKeys: String, CodingKey {
        case id, expiresAt, request, currency, estimatedPrice, estimatedCost, estimatedCommission, buyingPowerAfter
        case warnings, brokerPreviewId
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        expiresAt = try c.decode(Date.self, forKey: .expiresAt)
        request = try c.decode(OrderRequest.self, forKey: .request)
        currency = try c.decode(String.self, forKey: .currency)
        estimatedPrice = try c.decodeDecimalIfPresent(forKey: .estimatedPrice)
        estimatedCost = try c.decodeDecimalIfPresent(forKey: .estimatedCost)
        estimatedCommission = try c.decodeDecimalIfPresent(forKey: .estimatedCommission)
        buyingPowerAfter = try c.decodeDecimalIfPresent(forKey: .buyingPowerAfter)
        warnings = try c.decodeIfPresent([String].self, forKey: .warnings) ?? []
        brokerPreviewId = try c.decodeIfPresent(String.self, forKey: .brokerPreviewId)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(expiresAt, forKey: .expiresAt)
        try c.encode(request, forKey: .request)
        try c.encode(currency, forKey: .currency)
        try c.encodeDecimalIfPresent(estimatedPrice, forKey: .estimatedPrice)
        try c.encodeDecimalIfPresent(estimatedCost, forKey: .estimatedCost)
        try c.encodeDecimalIfPresent(estimatedCommission, forKey: .estimatedCommission)
        try c.encodeDecimalIfPresent(buyingPowerAfter, forKey: .buyingPowerAfter)
        try c.encode(warnings, forKey: .warnings)
        try c.encodeIfPresent(brokerPreviewId, forKey: .brokerPreviewId)
    }
}

/// Which orders to list.
public struct OrderQuery: Sendable, Hashable {
    public enum State: String, WireEnum { case open, closed, all }

    public var state: State
    public var accountId: String?
    public var symbols: [String]
    public var limit: Int
    public var after: Date?
    public var until: Date?

    public init(
        state: State = .open,
        accountId: String? = nil,
        symbols: [String] = [],
        limit: Int = 100,
        after: Date? = nil,
        until: Date? = nil
    ) {
        self.state = state
        self.accountId = accountId
        self.symbols = symbols
        self.limit = limit
        self.after = after
        self.until = until
    }
}
