import Foundation
import SandboxKit

/// Reads JSON members the way Alpaca's API does: decimals as strings or numbers, parsed strictly;
/// a member of the wrong JSON type is a malformed body (400), a well-typed but bad value is a 422.
struct AlpacaFields {
    let json: JSON

    init(_ json: JSON) throws(AlpacaAPIError) {
        guard case .object = json else { throw .malformedBody }
        self.json = json
    }

    func string(_ key: String) throws(AlpacaAPIError) -> String? {
        guard let value = json[key], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw .malformedBody }
        return text
    }

    func bool(_ key: String) throws(AlpacaAPIError) -> Bool? {
        guard let value = json[key], !value.isNull else { return nil }
        guard let flag = value.boolValue else { throw .malformedBody }
        return flag
    }

    func decimal(_ key: String) throws(AlpacaAPIError) -> Decimal? {
        guard let value = json[key], !value.isNull else { return nil }
        switch value {
        case .number(let text):
            guard let number = DecimalText.parse(text) else { throw .invalid("invalid \(key)") }
            return number
        case .string(let text):
            guard let number = DecimalText.parse(text) else { throw .invalid("invalid \(key)") }
            return number
        default:
            throw .malformedBody
        }
    }

    func strings(_ key: String) throws(AlpacaAPIError) -> [String]? {
        guard let value = json[key], !value.isNull else { return nil }
        guard let items = value.arrayValue else { throw .malformedBody }
        var result: [String] = []
        for item in items {
            guard let text = item.stringValue else { throw .malformedBody }
            result.append(text)
        }
        return result
    }

    func has(_ key: String) -> Bool {
        guard let value = json[key] else { return false }
        return !value.isNull
    }
}

/// A validated `POST /v2/orders` body.
struct AlpacaOrderRequest: Sendable {
    var instrument: MarketInstrument
    var qty: Decimal?
    var notional: Decimal?
    var side: TradeSide
    var type: AlpacaOrderType
    var timeInForce: AlpacaTimeInForce
    var limitPrice: Decimal?
    var stopPrice: Decimal?
    var trailPrice: Decimal?
    var trailPercent: Decimal?
    var extendedHours: Bool
    var clientOrderID: String?
    var positionIntent: AlpacaPositionIntent?

    static let maxClientOrderIDLength = 128

    /// Validates in roughly the order Alpaca reports problems. Messages follow the ones Alpaca is known to send.
    init(json: JSON, assets: AlpacaAssets) throws(AlpacaAPIError) {
        let fields = try AlpacaFields(json)
        let symbol = try fields.string("symbol")
        let qty = try fields.decimal("qty")
        let notional = try fields.decimal("notional")
        let sideText = try fields.string("side")
        var typeText = try fields.string("type")
        if typeText == nil { typeText = try fields.string("order_type") }
        let tifText = try fields.string("time_in_force")
        let limitPrice = try fields.decimal("limit_price")
        let stopPrice = try fields.decimal("stop_price")
        let trailPrice = try fields.decimal("trail_price")
        let trailPercent = try fields.decimal("trail_percent")
        let extendedHours = try fields.bool("extended_hours") ?? false
        let clientOrderID = try fields.string("client_order_id")
        let orderClass = try fields.string("order_class")
        let intentText = try fields.string("position_intent")

        guard let symbol, !symbol.isEmpty else { throw .invalid("symbol is required") }
        guard let instrument = assets.resolve(symbol) else { throw .unprocessable("asset \"\(symbol)\" not found") }
        guard let sideText, !sideText.isEmpty else { throw .invalid("side is required") }
        guard let side = TradeSide(rawValue: sideText) else { throw .invalid("invalid side") }
        guard let typeText, !typeText.isEmpty else { throw .invalid("type is required") }
        guard let type = AlpacaOrderType(rawValue: typeText) else { throw .invalid("invalid order type") }
        guard let tifText, !tifText.isEmpty else { throw .invalid("time_in_force is required") }
        guard let timeInForce = AlpacaTimeInForce(rawValue: tifText) else { throw .invalid("invalid time_in_force") }

        switch orderClass {
        case nil, "", "simple": break
        case "bracket", "oco", "oto", "mleg":
            throw .unprocessable("order_class \"\(orderClass!)\" is not supported by the sandbox")
        default: throw .invalid("invalid order_class")
        }
        var positionIntent: AlpacaPositionIntent?
        if let intentText, !intentText.isEmpty {
            guard let intent = AlpacaPositionIntent(rawValue: intentText) else { throw .invalid("invalid position_intent") }
            positionIntent = intent
        }

        // Quantity.
        switch (qty, notional) {
        case (nil, nil): throw .invalid("qty or notional is required")
        case (.some, .some): throw .invalid("only one of qty or notional is allowed")
        case (let qty?, nil):
            guard qty > 0 else { throw .invalid("qty must be > 0") }
            guard DecimalText.fractionDigits(qty) <= 9 else { throw .invalid("qty must have at most 9 decimal places") }
        case (nil, let notional?):
            guard notional > 0 else { throw .invalid("notional must be > 0") }
            // "Both notional and qty fields can take up to 9 decimal point values" (Alpaca support, "How can I pass a
            // fractional order?").
            guard DecimalText.fractionDigits(notional) <= 9 else { throw .invalid("notional must have at most 9 decimal places") }
            guard type == .market else { throw .invalid("notional orders must be market orders") }
        }

        // Prices per type.
        switch type {
        case .market:
            guard limitPrice == nil, stopPrice == nil else { throw .invalid("market orders require no stop or limit price") }
        case .limit:
            guard let limitPrice else { throw .invalid("limit_price is required for limit orders") }
            guard limitPrice > 0 else { throw .invalid("limit price must be > 0") }
            guard stopPrice == nil else { throw .invalid("limit orders require no stop price") }
        case .stop:
            guard let stopPrice else { throw .invalid("stop_price is required for stop orders") }
            guard stopPrice > 0 else { throw .invalid("stop price must be > 0") }
            guard limitPrice == nil else { throw .invalid("stop orders require no limit price") }
        case .stop_limit:
            guard let limitPrice else { throw .invalid("limit_price is required for stop_limit orders") }
            guard let stopPrice else { throw .invalid("stop_price is required for stop_limit orders") }
            guard limitPrice > 0 else { throw .invalid("limit price must be > 0") }
            guard stopPrice > 0 else { throw .invalid("stop price must be > 0") }
        case .trailing_stop:
            guard limitPrice == nil, stopPrice == nil else { throw .invalid("trailing stop orders require no stop or limit price") }
            switch (trailPrice, trailPercent) {
            case (nil, nil): throw .invalid("trail_price or trail_percent is required for trailing stop orders")
            case (.some, .some): throw .invalid("only one of trail_price or trail_percent is allowed")
            case (let price?, nil): guard price > 0 else { throw .invalid("trail_price must be > 0") }
            case (nil, let percent?): guard percent > 0, percent < 100 else { throw .invalid("trail_percent must be > 0 and < 100") }
            }
        }
        if type != .trailing_stop, trailPrice != nil || trailPercent != nil {
            throw .invalid("trail_price and trail_percent are only for trailing stop orders")
        }

        // Asset-class rules.
        if instrument.assetClass == .crypto {
            guard timeInForce == .gtc || timeInForce == .ioc else { throw .unprocessable("invalid crypto time_in_force") }
            guard type == .market || type == .limit || type == .stop_limit else { throw .invalid("invalid order type for crypto order") }
            guard !extendedHours else { throw .invalid("extended hours is not supported for crypto orders") }
            if let qty, qty < instrument.minQuantity {
                throw .unprocessable("qty must be >= \(DecimalText.format(instrument.minQuantity))")
            }
        } else {
            if let qty, !DecimalText.isMultiple(qty, of: instrument.lotSize) {
                guard instrument.fractionable else { throw .unprocessable("fractional orders are not supported for \(instrument.symbol)") }
                guard timeInForce == .day else { throw .unprocessable("fractional orders must be DAY orders") }
                guard type == .market || type == .limit else { throw .unprocessable("fractional orders must be market or limit orders") }
            }
            // A notional order buys a fraction as often as not: it takes what a fractional order takes (a
            // fractionable asset, time in force day), market orders only (checked with the quantity above).
            if notional != nil {
                guard instrument.fractionable else { throw .unprocessable("fractional orders are not supported for \(instrument.symbol)") }
                guard timeInForce == .day else { throw .unprocessable("fractional orders must be DAY orders") }
            }
            for (name, price) in [("limit_price", limitPrice), ("stop_price", stopPrice)] {
                guard let price else { continue }
                // Sub-penny prices are allowed only below $1 (to 4 places), as under Reg NMS.
                let places = price >= 1 ? 2 : 4
                guard DecimalText.fractionDigits(price) <= places else {
                    throw .unprocessable(
                        "invalid \(name) \(DecimalText.format(price)). sub-penny increment does not fulfill minimum pricing criteria"
                    )
                }
            }
            if extendedHours {
                guard type == .limit else { throw .invalid("only type=\"limit\" is allowed for extended hours orders") }
                guard timeInForce == .day else { throw .invalid("only time_in_force=\"day\" is allowed for extended hours orders") }
            }
        }

        if let clientOrderID {
            guard !clientOrderID.isEmpty else { throw .invalid("client_order_id must not be empty") }
            guard clientOrderID.count <= Self.maxClientOrderIDLength else {
                throw .invalid("client_order_id must be no more than \(Self.maxClientOrderIDLength) characters")
            }
        }

        self.instrument = instrument
        self.qty = qty
        self.notional = notional
        self.side = side
        self.type = type
        self.timeInForce = timeInForce
        self.limitPrice = limitPrice
        self.stopPrice = stopPrice
        self.trailPrice = trailPrice
        self.trailPercent = trailPercent
        self.extendedHours = extendedHours
        self.clientOrderID = clientOrderID
        self.positionIntent = positionIntent
    }

    /// A market order closing (part of) a position.
    init(closing instrument: MarketInstrument, qty: Decimal) {
        self.instrument = instrument
        self.qty = qty
        self.notional = nil
        self.side = .sell
        self.type = .market
        self.timeInForce = instrument.assetClass == .crypto ? .gtc : .day
        self.extendedHours = false
        self.positionIntent = .sell_to_close
    }
}

/// A validated `PATCH /v2/orders/{id}` body.
struct AlpacaReplaceRequest: Sendable {
    var qty: Decimal?
    var timeInForce: AlpacaTimeInForce?
    var limitPrice: Decimal?
    var stopPrice: Decimal?
    var trail: Decimal?
    var clientOrderID: String?

    init(json: JSON) throws(AlpacaAPIError) {
        let fields = try AlpacaFields(json)
        qty = try fields.decimal("qty")
        limitPrice = try fields.decimal("limit_price")
        stopPrice = try fields.decimal("stop_price")
        trail = try fields.decimal("trail")
        clientOrderID = try fields.string("client_order_id")
        if let text = try fields.string("time_in_force") {
            guard let tif = AlpacaTimeInForce(rawValue: text) else { throw .invalid("invalid time_in_force") }
            timeInForce = tif
        }
        if let qty {
            guard qty > 0 else { throw .invalid("qty must be > 0") }
            guard DecimalText.fractionDigits(qty) <= 9 else { throw .invalid("qty must have at most 9 decimal places") }
        }
        if let limitPrice, limitPrice <= 0 { throw .invalid("limit price must be > 0") }
        if let stopPrice, stopPrice <= 0 { throw .invalid("stop price must be > 0") }
        if let trail, trail <= 0 { throw .invalid("trail must be > 0") }
        if let clientOrderID {
            guard !clientOrderID.isEmpty else { throw .invalid("client_order_id must not be empty") }
            guard clientOrderID.count <= AlpacaOrderRequest.maxClientOrderIDLength else {
                throw .invalid("client_order_id must be no more than \(AlpacaOrderRequest.maxClientOrderIDLength) characters")
            }
        }
    }
}
