import Foundation
import GatewayModel

/// Values of every model type whose decimals are written as strings, in a full and a sparse form, for the wire
/// pins. The JSON each encodes to was captured from the hand-written encoders before they were replaced.
enum WireSamples {
    static func d(_ text: String) -> Decimal { DecimalText.parse(text) ?? .nan }
    static let t0 = Date(timeIntervalSince1970: 1_767_225_600.125)
    static let t1 = Date(timeIntervalSince1970: 1_767_229_200)
    static let equity = Instrument(
        symbol: "AAPL",
        assetClass: .equity,
        exchange: "XNAS",
        name: "Apple Inc.",
        currency: "USD",
        brokerKey: ["uic": "211"]
    )
    static let pair = Instrument(symbol: "XMR/BTC", assetClass: .crypto)

    static let balanceFull = Balance(
        connectionId: "conn_1",
        accountId: "PA1",
        currency: "USD",
        total: d("1000.5"),
        available: d("900.25"),
        held: d("100.25"),
        buyingPower: d("2001"),
        accountValue: d("15000.75"),
        marginAvailable: d("0"),
        marginUtilizationPct: d("12.5"),
        asOf: t0
    )
    static let balanceSparse = Balance(
        connectionId: "c",
        accountId: "a",
        currency: "BTC",
        total: d("1.00000001"),
        available: d("-0.5"),
        held: d("1.50000001")
    )

    static let positionFull = Position(
        connectionId: "conn_1",
        accountId: "PA1",
        instrument: equity,
        quantity: d("-10"),
        averagePrice: d("150.125"),
        costBasis: d("-1501.25"),
        marketValue: d("-1600"),
        unrealizedPnl: d("-98.75"),
        lastPrice: d("160"),
        currency: "USD",
        asOf: t0,
        dayChange: d("0.00000001")
    )
    static let positionSparse = Position(
        connectionId: "c",
        accountId: "a",
        instrument: pair,
        quantity: d("12345678901234567890.123456789"),
        currency: "BTC"
    )

    static let quoteFull = Quote(
        instrument: equity,
        connectionId: "conn_1",
        bid: d("150.1"),
        ask: d("150.2"),
        last: d("150.15"),
        open: d("149"),
        high: d("151"),
        low: d("148.5"),
        previousClose: d("149.5"),
        netChange: d("0.65"),
        percentChange: d("0.4347"),
        volume: d("1200000"),
        time: t0
    )
    static let quoteSparse = Quote(instrument: pair, bid: d("0.0025"))

    static let orderFull = Order(
        id: "ord_1",
        brokerOrderId: "b1",
        clientOrderId: "cli-1",
        connectionId: "conn_1",
        broker: .alpaca,
        accountId: "PA1",
        instrument: equity,
        side: .sellShort,
        type: .stopLimit,
        timeInForce: .gtd,
        quantity: d("2.5"),
        limitPrice: d("150"),
        stopPrice: d("149.99"),
        status: .partiallyFilled,
        filledQuantity: d("1.25"),
        averageFillPrice: d("150.01"),
        createdAt: t0,
        updatedAt: t1,
        expiresAt: t1,
        brokerStatus: "partially_filled",
        notional: d("375"),
        replaces: "ord_0",
        replacedBy: "ord_2",
        submittedAt: t0,
        filledAt: t1,
        canceledAt: t1,
        expiredAt: t1,
        source: .journal
    )
    static let orderSparse = Order(
        id: "ord_2",
        brokerOrderId: nil,
        clientOrderId: "cli-2",
        connectionId: "c",
        broker: .saxo,
        accountId: "a",
        instrument: pair,
        side: .buy,
        type: .market,
        timeInForce: .day,
        quantity: d("1"),
        status: .open
    )

    static let bookFull = OrderBook(
        instrument: pair,
        connectionId: "conn_1",
        broker: .tradeogre,
        bids: [OrderBookLevel(price: d("0.0025"), size: d("10")), OrderBookLevel(price: d("0.0024"), size: d("3.5"))],
        asks: [OrderBookLevel(price: d("0.0026"), size: d("1"))],
        time: t0
    )
    static let bookSparse = OrderBook(instrument: pair, bids: [], asks: [])

    static let candleFull = Candle(time: t0, open: d("1"), high: d("2.5"), low: d("0.5"), close: d("2"), volume: d("1000"))
    static let candleSparse = Candle(time: t1, open: d("7.4"), high: d("7.5"), low: d("7.3"), close: d("7.45"))
    static let series = CandleSeries(instrument: pair, connectionId: "conn_1", interval: .oneHour, candles: [candleFull, candleSparse])

    static let rate = Portfolio.FXRate(
        from: "USD",
        to: "EUR",
        rate: d("0.92"),
        via: "DKK",
        quotes: [
            .init(symbol: "USD/DKK", price: d("6.85"), inverted: false, connectionId: "conn_2", broker: .saxo, time: t0),
            .init(symbol: "EUR/DKK", price: d("7.46"), inverted: true, connectionId: "conn_2", broker: .saxo, time: nil),
        ]
    )
    static let goalFull = Goal(
        id: "goal_1",
        name: "House",
        targetValue: d("500000"),
        currency: "EUR",
        allocations: [
            .init(connectionId: "conn_1", symbol: "AAPL", assetClass: .equity, quantity: d("10")),
            .init(connectionId: "conn_2", symbol: "XMR/BTC", percent: d("50")),
        ],
        createdAt: t0,
        updatedAt: t1,
        progress: .init(
            currentValue: d("1600.5"),
            progress: d("0.0032"),
            remaining: d("498399.5"),
            complete: false,
            allocations: [
                .init(
                    connectionId: "conn_1",
                    symbol: "AAPL",
                    heldQuantity: d("10"),
                    quantity: d("10"),
                    shortfall: d("0"),
                    marketValue: d("1600"),
                    positionCurrency: "USD",
                    value: d("1472"),
                    rate: rate,
                    problem: nil
                ),
                .init(connectionId: "conn_2", symbol: "XMR/BTC", problem: .notHeld),
            ]
        )
    )
    static let goalSparse = Goal(id: "goal_2", name: "Car", targetValue: d("20000.5"), currency: "USD", allocations: [])
    static let overallFull = Goal.Overall(
        currency: "EUR",
        targetValue: d("520000.5"),
        currentValue: d("1600.5"),
        progress: d("0.003"),
        remaining: d("518400"),
        fxRates: [rate],
        unconverted: ["conn_3"]
    )
    static let overallSparse = Goal.Overall(
        currency: "EUR",
        targetValue: d("1"),
        currentValue: d("0"),
        progress: nil,
        remaining: d("1"),
        fxRates: [],
        unconverted: []
    )
    static let goalInputFull = GoalInput(
        name: "House",
        targetValue: d("500000"),
        currency: "EUR",
        allocations: [.init(connectionId: "conn_1", symbol: "AAPL", quantity: d("10"))]
    )
    static let goalInputSparse = GoalInput(targetValue: d("0.5"))

    static let portfolioFull = Portfolio(
        currency: "EUR",
        totalValue: d("10472.5"),
        cash: d("9000.5"),
        positionsValue: d("1472"),
        accounts: [
            .init(connectionId: "conn_1", broker: .alpaca, accountId: "PA1", cash: d("9000.5"), positionsValue: d("1472"), totalValue: d("10472.5"))
        ],
        holdings: [
            .init(
                instrument: equity,
                quantity: d("10"),
                value: d("1472"),
                parts: [
                    .init(
                        connectionId: "conn_1",
                        broker: .alpaca,
                        accountId: "PA1",
                        quantity: d("10"),
                        marketValue: d("1600"),
                        currency: "USD",
                        value: d("1472")
                    ),
                    .init(connectionId: "conn_2", broker: .saxo, accountId: "S1", quantity: d("0"), marketValue: nil, currency: "USD", value: nil),
                ]
            )
        ],
        allocation: .init(
            assetClass: [.init(key: "equity", value: d("1472"), weight: d("0.14055"))],
            currency: [.init(key: "USD", value: d("1472"), weight: nil)],
            broker: []
        ),
        fxRates: [rate],
        unconverted: [
            .init(connectionId: "conn_3", broker: .tradeit, accountId: "T1", item: "cash", currency: "XAU", amount: d("2"), reason: .noRate),
            .init(connectionId: "conn_3", broker: .tradeit, accountId: "T1", item: "AAPL", currency: "USD", amount: nil, reason: .noValue),
        ],
        dayChange: d("-12.34"),
        dayChangeUnknown: 2
    )
    static let portfolioSparse = Portfolio(
        currency: "USD",
        totalValue: d("0"),
        cash: d("0"),
        positionsValue: d("0"),
        accounts: [],
        holdings: [],
        allocation: .init(assetClass: [], currency: [], broker: []),
        fxRates: [],
        unconverted: []
    )

    static let priceRule = AlertRule.price(
        .init(
            instrument: InstrumentReference(symbol: "AAPL", assetClass: .equity),
            connectionId: "conn_1",
            condition: .percentMove,
            threshold: d("2.5"),
            windowSeconds: 3600
        )
    )
    static let orderRule = AlertRule.order(.init(on: .unknown, connectionId: nil, unknownForSeconds: 60))
    static let ruleInputFull = AlertRuleInput(
        type: .price,
        instrument: InstrumentReference(symbol: "AAPL"),
        connectionId: "conn_1",
        condition: .above,
        threshold: d("150.5"),
        windowSeconds: 60,
        on: .filled,
        unknownForSeconds: 30
    )
    static let ruleInputSparse = AlertRuleInput(type: .order, on: .rejected)
    static let alertFull = Alert(
        id: "alrt_1",
        name: "AAPL moves",
        rule: priceRule,
        channels: AlertChannels(webhook: .init(url: "https://example.com/hook"), apns: .init(devices: .all)),
        enabled: false,
        rearm: .once,
        armed: false,
        createdAt: t0,
        updatedAt: t1,
        lastFiredAt: t1
    )
    static let updateFull = OrderUpdate(
        kind: .filled,
        orderId: "ord_1",
        connectionId: "conn_1",
        broker: .alpaca,
        status: .filled,
        order: orderSparse,
        detail: "done",
        at: t1
    )
    static let notificationFull = AlertNotification(
        eventId: "evt_1",
        alertId: "alrt_1",
        alertName: "AAPL moves",
        kind: .price,
        rule: priceRule,
        message: "AAPL moved 2.5 %",
        price: d("153.75"),
        quote: quoteSparse,
        orderUpdate: updateFull,
        firedAt: t1
    )
    static let notificationSparse = AlertNotification(
        eventId: "evt_2",
        alertId: "alrt_2",
        kind: .order,
        rule: orderRule,
        message: "unknown",
        firedAt: t0
    )

    static let requestFull = OrderRequest(
        connectionId: "conn_1",
        accountId: "PA1",
        instrument: InstrumentReference(symbol: "AAPL", assetClass: .equity),
        side: .buy,
        type: .stopLimit,
        timeInForce: .gtd,
        quantity: d("2"),
        limitPrice: d("150.00"),
        stopPrice: d("149.5"),
        clientOrderId: "cli-1",
        expiresAt: t1,
        previewId: "prv_1",
        notional: d("300")
    )
    static let requestSparse = OrderRequest(
        connectionId: "c",
        accountId: "a",
        instrument: InstrumentReference(symbol: "XMR/BTC"),
        side: .sell,
        type: .market,
        timeInForce: .day,
        quantity: nil,
        notional: d("0.001")
    )
    static let modificationFull = OrderModification(quantity: d("3"), limitPrice: d("151"), stopPrice: d("150.5"), timeInForce: .gtc, type: .limit)
    static let modificationSparse = OrderModification(limitPrice: d("151"))
    static let previewFull = OrderPreview(
        id: "prv_1",
        expiresAt: t1,
        request: requestFull,
        currency: "USD",
        estimatedPrice: d("150"),
        estimatedCost: d("300"),
        estimatedCommission: d("0.01"),
        buyingPowerAfter: d("1700"),
        warnings: ["market closed"],
        brokerPreviewId: "bp1"
    )
    static let previewSparse = OrderPreview(id: "prv_2", expiresAt: t0, request: requestSparse, currency: "BTC")
}
