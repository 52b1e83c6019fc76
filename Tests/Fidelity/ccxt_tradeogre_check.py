#!/usr/bin/env python3
"""Drives the BrokerGateway TradeOgre sandbox with the real, unmodified ccxt `tradeogre` exchange.

ccxt dropped tradeogre after 4.5.5 (the exchange went offline in 2025), so this needs ccxt==4.5.5
(Tests/Fidelity/requirements-tradeogre.txt), in its own venv: the other checks pin a newer ccxt.

Usage: ccxt_tradeogre_check.py [BASE_URL [KEY [SECRET]]]
  BASE_URL includes /api/v1 (ccxt appends "/" + path to urls['api']['rest']).
  or set BROKERGATEWAY_SANDBOX_URL, BROKERGATEWAY_SANDBOX_KEY, BROKERGATEWAY_SANDBOX_SECRET.
Prints one line per step and exits non-zero on the first failure.
"""
import os
import sys
import traceback

import ccxt


def settings():
    argv = sys.argv[1:]
    base = argv[0] if len(argv) > 0 else os.environ.get("BROKERGATEWAY_SANDBOX_URL", "http://127.0.0.1:8084/api/v1")
    key = argv[1] if len(argv) > 1 else os.environ.get("BROKERGATEWAY_SANDBOX_KEY", "SANDBOX-TRADEOGRE-KEY")
    secret = argv[2] if len(argv) > 2 else os.environ.get("BROKERGATEWAY_SANDBOX_SECRET", "SANDBOX-TRADEOGRE-SECRET")
    return base.rstrip("/"), key, secret


def step(name, fn):
    try:
        detail = fn()
    except Exception as error:  # noqa: BLE001
        print(f"FAIL {name}: {type(error).__name__}: {error}", flush=True)
        traceback.print_exc()
        sys.exit(1)
    print(f"ok   {name}" + (f": {detail}" if detail else ""), flush=True)


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


def expect_error(fn, text):
    try:
        fn()
    except ccxt.ExchangeError as error:
        expect(text in str(error), f"expected '{text}' in {error}")
        return f"{type(error).__name__}: {text}"
    raise AssertionError(f"expected an error saying '{text}'")


def make(base, key, secret):
    exchange = ccxt.tradeogre({"apiKey": key, "secret": secret, "timeout": 15000})
    exchange.urls["api"] = {"rest": base}
    return exchange


def main():
    base, key, secret = settings()
    print(f"ccxt {ccxt.__version__} against {base}", flush=True)
    expect(ccxt.__version__ == "4.5.5", f"this check is written for ccxt 4.5.5, found {ccxt.__version__}")
    exchange = make(base, key, secret)
    state = {}

    def markets():
        loaded = exchange.load_markets()
        for symbol in ["XMR/BTC", "LTC/BTC", "BTC/USDT"]:
            expect(symbol in loaded, f"{symbol} missing from {sorted(loaded)}")
        market = loaded["XMR/BTC"]
        expect(market["id"] == "XMR-BTC" and market["base"] == "XMR" and market["quote"] == "BTC", f"XMR/BTC {market}")
        return f"{len(loaded)} markets"

    step("load_markets", markets)

    def ticker():
        t = exchange.fetch_ticker("XMR/BTC")
        for field in ["last", "open", "high", "low", "bid", "ask", "baseVolume"]:
            expect(t[field] is not None, f"ticker {field} missing: {t}")
        expect(t["bid"] < t["ask"], f"bid {t['bid']} not below ask {t['ask']}")
        expect(t["low"] <= t["last"] <= t["high"], f"last {t['last']} outside {t['low']}..{t['high']}")
        state["bid"], state["ask"] = t["bid"], t["ask"]
        return f"last {t['last']} bid {t['bid']} ask {t['ask']}"

    step("fetch_ticker XMR/BTC", ticker)

    def tickers():
        all_tickers = exchange.fetch_tickers(["XMR/BTC", "BTC/USDT"])
        expect(set(all_tickers) == {"XMR/BTC", "BTC/USDT"}, f"tickers {sorted(all_tickers)}")
        return f"BTC/USDT last {all_tickers['BTC/USDT']['last']}"

    step("fetch_tickers", tickers)

    def order_book():
        book = exchange.fetch_order_book("XMR/BTC")
        expect(book["bids"] and book["asks"], "empty book")
        expect(book["bids"][0][0] < book["asks"][0][0], f"crossed book {book['bids'][0]} {book['asks'][0]}")
        expect(all(a[0] >= b[0] for a, b in zip(book["bids"], book["bids"][1:])), "bids not best first")
        return f"{len(book['bids'])} bids, {len(book['asks'])} asks, best {book['bids'][0][0]} / {book['asks'][0][0]}"

    step("fetch_order_book XMR/BTC", order_book)

    def trades():
        recent = exchange.fetch_trades("XMR/BTC")
        expect(len(recent) > 0, "no trades")
        expect(all(t["side"] in ("buy", "sell") and t["timestamp"] and t["price"] > 0 for t in recent), f"trades {recent[:2]}")
        return f"{len(recent)} trades, last at {recent[-1]['datetime']}"

    step("fetch_trades XMR/BTC", trades)

    def ohlcv():
        rows = exchange.fetch_ohlcv("XMR/BTC", "1h")
        expect(len(rows) > 0 and all(len(row) == 6 for row in rows), f"ohlcv {rows[:2]}")
        expect(all(row[2] >= max(row[1], row[4]) and row[3] <= min(row[1], row[4]) for row in rows), "high/low inconsistent")
        return f"{len(rows)} candles"

    step("fetch_ohlcv XMR/BTC 1h", ohlcv)

    def balance():
        b = exchange.fetch_balance()
        expect(b["BTC"]["total"] == 1.5, f"BTC {b.get('BTC')}")
        expect(b["XMR"]["total"] == 25, f"XMR {b.get('XMR')}")
        return f"BTC {b['BTC']['total']} XMR {b['XMR']['total']} LTC {b['LTC']['total']} USDT {b['USDT']['total']}"

    step("fetch_balance", balance)

    def balance_one():
        b = exchange.fetch_balance({"currency": "BTC"})
        expect(b["BTC"]["total"] == 1.5 and b["BTC"]["free"] == 1.5, f"BTC {b.get('BTC')}")
        return f"BTC total {b['BTC']['total']} free {b['BTC']['free']}"

    step("fetch_balance currency=BTC", balance_one)

    def create():
        price = float(exchange.price_to_precision("XMR/BTC", state["bid"] * 0.5))
        order = exchange.create_order("XMR/BTC", "limit", "buy", 1.5, price)
        expect(order["id"], f"order {order}")
        state["order"], state["price"] = order["id"], price
        return f"{order['id']} buy 1.5 @ {price}"

    step("create_order limit buy (rests)", create)

    def held():
        b = exchange.fetch_balance({"currency": "BTC"})
        expect(b["BTC"]["total"] == 1.5, f"total {b['BTC']}")
        expect(abs(b["BTC"]["free"] - (1.5 - 1.5 * state["price"])) < 1e-8, f"free {b['BTC']} price {state['price']}")
        return f"BTC free {b['BTC']['free']} of {b['BTC']['total']}"

    step("fetch_balance shows the held amount", held)

    def open_orders():
        orders = exchange.fetch_open_orders("XMR/BTC")
        match = [o for o in orders if o["id"] == state["order"]]
        expect(len(match) == 1, f"order {state['order']} not in {[o['id'] for o in orders]}")
        o = match[0]
        expect(o["symbol"] == "XMR/BTC" and o["side"] == "buy" and o["remaining"] == 1.5 and o["price"] == state["price"], f"{o}")
        everywhere = exchange.fetch_open_orders()
        expect(any(x["id"] == state["order"] for x in everywhere), "missing from the all-markets list")
        return f"{len(orders)} open"

    step("fetch_open_orders", open_orders)

    def fetch_one():
        o = exchange.fetch_order(state["order"])
        expect(o["symbol"] == "XMR/BTC" and o["side"] == "buy", f"{o}")
        expect(o["remaining"] == 1.5 and o["filled"] == 0 and o["price"] == state["price"], f"{o}")
        expect(o["timestamp"] and o["timestamp"] > 0, f"timestamp {o['timestamp']}")
        return f"remaining {o['remaining']} filled {o['filled']} at {o['datetime']}"

    step("fetch_order", fetch_one)

    def cancel():
        exchange.cancel_order(state["order"])
        remaining = [o["id"] for o in exchange.fetch_open_orders("XMR/BTC")]
        expect(state["order"] not in remaining, f"still open: {remaining}")
        b = exchange.fetch_balance({"currency": "BTC"})
        expect(b["BTC"]["free"] == 1.5, f"not released: {b['BTC']}")
        return "canceled and released"

    step("cancel_order", cancel)

    step("fetch_order of a canceled order", lambda: expect_error(lambda: exchange.fetch_order(state["order"]), "Order not found"))
    step("cancel_order twice", lambda: expect_error(lambda: exchange.cancel_order(state["order"]), "Order not found"))

    def crossing():
        price = float(exchange.price_to_precision("XMR/BTC", state["ask"] * 1.01))
        order = exchange.create_order("XMR/BTC", "limit", "buy", 1, price)
        o = exchange.fetch_order(order["id"])
        expect(o["filled"] > 0, f"nothing filled: {o}")
        b = exchange.fetch_balance()
        expect(b["XMR"]["total"] > 25, f"XMR {b['XMR']}")
        return f"filled {o['filled']} remaining {o['remaining']}"

    step("create_order that crosses the book fills", crossing)

    def cancel_all():
        low = float(exchange.price_to_precision("XMR/BTC", state["bid"] * 0.5))
        exchange.create_order("XMR/BTC", "limit", "buy", 1, low)
        exchange.create_order("XMR/BTC", "limit", "sell", 1, float(exchange.price_to_precision("XMR/BTC", state["ask"] * 2)))
        expect(len(exchange.fetch_open_orders()) >= 2, "orders not open")
        exchange.cancel_all_orders()
        left = exchange.fetch_open_orders()
        expect(left == [], f"left open: {left}")
        return "all canceled"

    step("cancel_all_orders", cancel_all)

    step(
        "insufficient funds",
        lambda: expect_error(lambda: exchange.create_order("XMR/BTC", "limit", "buy", 100000, state["ask"]), "Insufficient funds"),
    )
    step(
        "unknown market",
        lambda: expect_error(lambda: exchange.publicGetTickerMarket({"market": "NOPE-BTC"}), "Market not found"),
    )

    def market_order():
        try:
            exchange.create_order("XMR/BTC", "market", "buy", 1)
        except ccxt.BadRequest:
            return "refused by ccxt (limit orders only)"
        raise AssertionError("a market order was accepted")

    step("market order refused", market_order)

    bad = make(base, key, secret + "-wrong")
    step("wrong secret", lambda: expect_error(lambda: bad.fetch_balance(), "Must be authorized"))

    print("all steps passed", flush=True)


if __name__ == "__main__":
    main()
