import Foundation
import SandboxKit

/// Previews, placement, status and cancellation of stock and crypto orders.
extension TradeItRoutes {
    func preview(_ body: TradeItFields, crypto: Bool) throws -> JSON {
        let token = body.string("token")
        let request = try TradeItOrderRequest(body, crypto: crypto, market: market)
        guard let quote = market.quote(symbol: request.symbol) else {
            throw TradeItAPIError.system("No quote for \(request.enteredSymbol).")
        }
        let now = market.now
        let commission = configuration.commission
        let expiresAt = now.addingTimeInterval(configuration.previewLifetime)
        // The id is drawn before the session is checked, as it always was: the counter is shared with order numbers.
        let orderId = String(5_000_000 + sandbox.nextNumber())
        let order = TradeItOrder(previewing: request, at: now)
        let value = DecimalText.round(order.quantity * TradeItAccountBook.estimatedPrice(order, quote: quote), scale: 2)
        let total = order.side == .buy ? value + commission : value - commission
        let details: JSON = try sandbox.withBook(token: token, accountNumber: body.string("accountNumber")) { book in
            try book.preview(order, orderId: orderId, estimatedTotal: total, expiresAt: expiresAt, token: token ?? "")
            return TradeItWire.previewDetails(
                order,
                quote: quote,
                availableCash: book.availableCash,
                held: book.holdings[order.symbol]?.quantity ?? 0,
                estimatedValue: value,
                commission: commission,
                estimatedTotal: total
            )
        }
        return TradeItWire.preview(orderId: orderId, details: details, token: token)
    }

    func place(_ body: TradeItFields, crypto: Bool) throws -> JSON {
        let token = body.string("token")
        guard let orderId = body.string("orderId"), !orderId.isEmpty else { throw TradeItAPIError.parameter("orderId is required.") }
        let (_, account) = try sandbox.session(token)
        let now = market.now
        let orderNumber = String(8_000_000 + sandbox.nextNumber())
        let market = self.market
        let commission = configuration.commission
        let placed = try sandbox.withBook(token: token, accountNumber: account) { book in
            try book.place(
                orderId: orderId,
                isCrypto: crypto,
                orderNumber: orderNumber,
                market: market,
                commission: commission,
                now: now
            )
        }
        return TradeItWire.placed(placed, now: now, token: token)
    }

    func allOrders(_ body: TradeItFields) throws -> JSON {
        let token = body.string("token")
        let orders = try sandbox.withBook(token: token, accountNumber: body.string("accountNumber")) { $0.orders }
        return TradeItWire.statuses(
            orders.reversed().map(TradeItWire.status),
            token: token,
            message: "Order statuses successfully fetched"
        )
    }

    func singleOrder(_ body: TradeItFields, cancel: Bool) throws -> JSON {
        let token = body.string("token")
        guard let number = body.string("orderNumber"), !number.isEmpty else { throw TradeItAPIError.parameter("orderNumber is required.") }
        let order = try sandbox.withBook(token: token, accountNumber: body.string("accountNumber")) { book in
            try book.order(number, cancel: cancel)
        }
        guard let order else {
            if cancel { throw TradeItAPIError.parameter("The order \(number) was not found.") }
            return TradeItWire.statuses(
                [TradeItWire.notFound(orderNumber: number)],
                token: token,
                message: "Order status successfully fetched"
            )
        }
        return TradeItWire.statuses(
            [TradeItWire.status(order)],
            token: token,
            message: cancel ? "Order cancellation requested" : "Order status successfully fetched"
        )
    }
}
