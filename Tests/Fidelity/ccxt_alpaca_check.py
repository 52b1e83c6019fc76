#!/usr/bin/env python3
"""Drives the BrokerGateway Alpaca sandbox with the real, unmodified ccxt `alpaca` exchange.

Usage: ccxt_alpaca_check.py [BASE_URL [KEY [SECRET]]]
  or set BROKERGATEWAY_SANDBOX_URL, BROKERGATEWAY_SANDBOX_KEY, BROKERGATEWAY_SANDBOX_SECRET.
Prints one line per step and exits non-zero on the first failure.
"""
import os
import sys
import traceback

import ccxt


def settings():
    argv = sys.argv[1:]
    base = argv[0] if len(argv) > 0 else os.environ.get("BROKERGATEWAY_SANDBOX_URL", "http://127.0.0.1:8081")
    key = argv[1] if len(argv) > 1 else os.environ.get("BROKERGATEWAY_SANDBOX_KEY", "SANDBOX-ALPACA-KEY")
    secret = argv[2] if len(argv) > 2 else os.environ.get("BROKERGATEWAY_SANDBOX_SECRET", "SANDBOX-ALPACA-SECRET")
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


def main():
    base, key, secret = settings()
    print(f"ccxt {ccxt.__version__} against {base}", flush=True)
    exchange = ccxt.alpaca({"apiKey": key, "secret": secret, "timeout": 15000})
    # Host-only overrides; do not call set_sandbox_mode afterwards (it swaps in urls['test']).
    exchange.urls["api"] = {"trader": base, "market": base, "broker": base}
    state = {}

    def markets():
        loaded = exchange.load_markets()
        expect("BTC/USD" in loaded and "ETH/USD" in loaded, f"markets {sorted(loaded)[:10]}")
        market = loaded["BTC/USD"]
        expect(market["active"] and market["limits"]["amount"]["min"] is not None, "BTC/USD market details")
        return f"{len(loaded)} markets"

    step("load_markets", markets)

    def time():
        t = exchange.fetch_time()
        expect(isinstance(t, int) and t > 0, f"time {t}")
        return exchange.iso8601(t)

    step("fetch_time", time)

    def balance():
        b = exchange.fetch_balance()
        expect(b["USD"]["free"] is not None and b["USD"]["free"] > 0, f"USD {b.get('USD')}")
        state["btc0"] = (b.get("BTC") or {}).get("total") or 0
        return f"USD free {b['USD']['free']}, BTC total {state['btc0']}"

    step("fetch_balance", balance)

    def create_limit():
        book = exchange.fetch_order_book("BTC/USD")
        bid = book["bids"][0][0]
        price = int(bid * 0.5)
        order = exchange.create_order("BTC/USD", "limit", "buy", 0.001, price)
        expect(order["id"], "order id")
        state["limit_id"] = order["id"]
        expect(order["status"] == "open", f"limit status {order['status']}")
        return f"{order['id']} at {price} (bid {bid})"

    step("fetch_order_book / create_order(limit)", create_limit)

    def open_orders():
        orders = exchange.fetch_open_orders("BTC/USD")
        ids = {o["id"] for o in orders}
        expect(state["limit_id"] in ids, f"open orders {ids}")
        return f"{len(orders)} open"

    step("fetch_open_orders", open_orders)

    def edit():
        old_id = state["limit_id"]
        edited = exchange.edit_order(old_id, "BTC/USD", "limit", "buy", 0.002, 30000)
        expect(edited["id"] and edited["id"] != old_id, "a replacement order")
        expect(edited["amount"] == 0.002 and edited["price"] == 30000, f"edited {edited['amount']} @ {edited['price']}")
        ids = {o["id"] for o in exchange.fetch_open_orders("BTC/USD")}
        expect(edited["id"] in ids and old_id not in ids, f"open orders {ids}")
        state["limit_id"] = edited["id"]
        return f"{old_id} -> {edited['id']}"

    step("edit_order (PATCH replace)", edit)

    def cancel():
        exchange.cancel_order(state["limit_id"], "BTC/USD")
        order = exchange.fetch_order(state["limit_id"], "BTC/USD")
        expect(order["status"] == "canceled", f"status {order['status']}")
        return order["status"]

    step("cancel_order / fetch_order", cancel)

    def market():
        order = exchange.create_order("BTC/USD", "market", "buy", 0.002)
        fetched = exchange.fetch_order(order["id"], "BTC/USD")
        expect(fetched["status"] == "closed" and fetched["filled"] == 0.002, f"market order {fetched['status']} {fetched['filled']}")
        b = exchange.fetch_balance()
        btc = (b.get("BTC") or {}).get("total") or 0
        expect(abs(btc - state["btc0"] - 0.002) < 1e-9, f"BTC total {btc} after buying 0.002 from {state['btc0']}")
        return f"filled at {fetched['average']}, BTC total {btc}"

    step("create_order(market) / fetch_order / fetch_balance", market)

    def insufficient():
        try:
            exchange.create_order("BTC/USD", "market", "buy", 1000)
        except ccxt.InsufficientFunds as error:
            return f"InsufficientFunds: {error}"
        raise AssertionError("expected InsufficientFunds")

    step("insufficient balance maps to InsufficientFunds", insufficient)

    def bad_key():
        bad = ccxt.alpaca({"apiKey": key, "secret": "wrong", "timeout": 15000})
        bad.urls["api"] = {"trader": base, "market": base, "broker": base}
        try:
            bad.fetch_balance()
        except ccxt.AuthenticationError as error:
            return f"AuthenticationError: {error}"
        raise AssertionError("expected AuthenticationError")

    step("wrong secret maps to AuthenticationError", bad_key)

    print("PASS ccxt alpaca", flush=True)


if __name__ == "__main__":
    main()
