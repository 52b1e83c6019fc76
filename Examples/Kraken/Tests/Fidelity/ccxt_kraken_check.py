"""ccxt's real `kraken` class (ccxt 4.5.90, unmodified) against a running Kraken sandbox.

Usage: python ccxt_kraken_check.py BASE_URL API_KEY API_SECRET
BASE_URL is the sandbox's origin (ccxt adds /0/public and /0/private). Exits 0 when every check holds; prints the
first failure and exits 1 otherwise.
"""
import sys
from decimal import Decimal

import ccxt


def check(condition, message):
    if not condition:
        print("FAIL: " + message, flush=True)
        sys.exit(1)
    print("ok: " + message, flush=True)


def expect_error(kind, action, message):
    try:
        action()
    except kind as error:
        print(f"ok: {message} ({type(error).__name__}: {error})", flush=True)
        return
    except Exception as error:  # noqa: BLE001
        print(f"FAIL: {message}: raised {type(error).__name__}: {error}", flush=True)
        sys.exit(1)
    print(f"FAIL: {message}: nothing raised", flush=True)
    sys.exit(1)


def exchange(base, key, secret):
    ex = ccxt.kraken({"apiKey": key, "secret": secret, "enableRateLimit": False, "timeout": 20000})
    ex.urls["api"] = {"public": base, "private": base}
    return ex


def main():
    base, key, secret = sys.argv[1], sys.argv[2], sys.argv[3]
    print("ccxt " + ccxt.__version__, flush=True)
    ex = exchange(base, key, secret)

    markets = ex.load_markets()
    check({"BTC/USD", "ETH/USD", "BTC/USDT", "LTC/USDT"} <= set(markets), "load_markets lists the sandbox's pairs")
    btc = markets["BTC/USD"]
    check(btc["id"] == "XXBTZUSD" and btc["active"] and btc["altname"] == "XBTUSD", "BTC/USD is XXBTZUSD, active")
    check(ex.currencies["BTC"]["id"] == "XXBT", "currencies: XXBT is BTC")

    ticker = ex.fetch_ticker("BTC/USD")
    check(ticker["bid"] and ticker["ask"] and ticker["bid"] < ticker["ask"], "fetch_ticker: bid below ask")
    check(ticker["last"] is not None, "fetch_ticker: a last price")
    tickers = ex.fetch_tickers(["BTC/USD", "ETH/USD"])
    check(set(tickers) == {"BTC/USD", "ETH/USD"}, "fetch_tickers: both symbols")

    book = ex.fetch_order_book("ETH/USD", 5)
    check(len(book["bids"]) == 5 and len(book["asks"]) == 5 and book["bids"][0][0] < book["asks"][0][0], "fetch_order_book")

    balance = ex.fetch_balance()
    check(balance["USD"]["total"] == 100000 and balance["BTC"]["total"] == 1, "fetch_balance: the demo funds")
    check(balance["USD"]["free"] == 100000, "fetch_balance: nothing held")

    price = int(ticker["ask"] / 2)
    placed = ex.create_order("BTC/USD", "limit", "buy", 0.01, price, {"clientOrderId": "ccxt-rest-1"})
    order_id = placed["id"]
    check(order_id and placed["symbol"] == "BTC/USD" and placed["side"] == "buy", "create_order limit: id, symbol, side")
    check(placed["type"] == "limit" and placed["price"] == price and placed["amount"] == 0.01, "create_order limit: type, price, amount")

    open_orders = ex.fetch_open_orders("BTC/USD")
    check([o["id"] for o in open_orders] == [order_id], "fetch_open_orders: the resting order")
    fetched = ex.fetch_order(order_id)
    check(fetched["status"] == "open" and fetched["clientOrderId"] == "ccxt-rest-1", "fetch_order: open, with its clientOrderId")
    check(fetched["filled"] == 0 and fetched["remaining"] == 0.01 and fetched["price"] == price, "fetch_order: nothing filled")

    held = ex.fetch_balance()
    check(Decimal(str(held["USD"]["used"])) == Decimal("0.01") * price, "fetch_balance: the order holds its cost")

    edited = ex.edit_order(order_id, "BTC/USD", "limit", "buy", 0.02, price - 1)
    check(edited["id"], "edit_order (AmendOrder): an amend id")
    amended = ex.fetch_order(order_id)
    check(amended["amount"] == 0.02 and amended["price"] == price - 1 and amended["status"] == "open", "edit_order: amended in place")

    ex.cancel_order(order_id)
    check(ex.fetch_order(order_id)["status"] == "canceled", "cancel_order: the order is canceled")
    expect_error(ccxt.OrderNotFound, lambda: ex.cancel_order(order_id), "cancel_order again: OrderNotFound")
    expect_error(ccxt.OrderNotFound, lambda: ex.fetch_order("OAAAAA-BBBBB-CCCCCC"), "fetch_order of an unknown id: OrderNotFound")

    sold = ex.create_order("ETH/USD", "market", "sell", 1)
    filled = ex.fetch_order(sold["id"])
    check(filled["status"] == "closed" and filled["filled"] == 1, "create_order market: filled at once")
    check(filled["average"] and filled["average"] > 0, "create_order market: an average price")
    check(len(filled["trades"]) == 1, "fetch_order: the fill's trade id")

    closed = ex.fetch_closed_orders()
    check({order_id, sold["id"]} <= {o["id"] for o in closed}, "fetch_closed_orders: the canceled and the filled order")
    after = ex.fetch_balance()
    check(after["ETH"]["total"] == 9, "fetch_balance: one ETH sold")

    expect_error(ccxt.InsufficientFunds, lambda: ex.create_order("BTC/USD", "market", "buy", 1000), "too large: InsufficientFunds")
    expect_error(ccxt.InvalidOrder, lambda: ex.create_order("BTC/USD", "market", "buy", 0.00001), "too small: InvalidOrder")
    expect_error(ccxt.AuthenticationError, lambda: exchange(base, "NOT-A-KEY", secret).fetch_balance(), "unknown key: AuthenticationError")
    # ccxt 4.5.90 maps no exception to EAPI:Invalid signature: it raises the base ExchangeError.
    wrong = "B" * 86 + "=="
    expect_error(ccxt.ExchangeError, lambda: exchange(base, key, wrong).fetch_balance(), "wrong secret: ExchangeError (EAPI:Invalid signature)")
    print("all ccxt kraken checks passed", flush=True)


if __name__ == "__main__":
    main()
