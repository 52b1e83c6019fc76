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

    def order_book():
        book = exchange.fetch_order_book("BTC/USD")
        bids, asks = book["bids"], book["asks"]
        expect(bids and asks, f"book {book}")
        expect(all(bids[i][0] > bids[i + 1][0] for i in range(len(bids) - 1)), f"bids not descending {bids}")
        expect(all(asks[i][0] < asks[i + 1][0] for i in range(len(asks) - 1)), f"asks not ascending {asks}")
        expect(bids[0][0] < asks[0][0], f"crossed book {bids[0]} / {asks[0]}")
        expect(book["timestamp"] is not None, "book timestamp")
        return f"{len(bids)} bids from {bids[0][0]}, {len(asks)} asks from {asks[0][0]}"

    step("fetch_order_book", order_book)

    def ticker_crypto():
        t = exchange.fetch_ticker("BTC/USD")
        for field in ("bid", "ask", "last", "high", "low", "open", "close", "previousClose", "baseVolume", "vwap", "timestamp"):
            expect(t[field] is not None, f"ticker {field} missing: {t}")
        expect(t["bid"] < t["ask"], f"bid {t['bid']} ask {t['ask']}")
        expect(t["low"] <= t["last"] <= t["high"] and t["low"] <= t["open"] <= t["high"], f"range {t}")
        tickers = exchange.fetch_tickers(["BTC/USD", "ETH/USD"])
        expect(set(tickers) == {"BTC/USD", "ETH/USD"}, f"tickers {sorted(tickers)}")
        return f"BTC/USD bid {t['bid']} ask {t['ask']} last {t['last']} day {t['low']}-{t['high']}"

    step("fetch_ticker / fetch_tickers (crypto snapshots)", ticker_crypto)

    def ticker_stock():
        # ccxt's alpaca markets are crypto only, so stock snapshots go through its implicit market-data API.
        many = exchange.marketPrivateGetV2StocksSnapshots({"symbols": "AAPL,MSFT"})
        expect(set(many) == {"AAPL", "MSFT"}, f"stock snapshots keyed by symbol, got {sorted(many)}")
        one = exchange.marketPrivateGetV2StocksSymbolSnapshot({"symbol": "AAPL"})
        expect(one["symbol"] == "AAPL", f"single snapshot {one.get('symbol')}")
        for part in ("latestTrade", "latestQuote", "minuteBar", "dailyBar", "prevDailyBar"):
            expect(isinstance(one.get(part), dict), f"snapshot {part} missing")
        quote, day = one["latestQuote"], one["dailyBar"]
        expect(quote["bp"] < quote["ap"], f"quote {quote}")
        expect(day["l"] <= day["c"] <= day["h"], f"daily bar {day}")
        return f"AAPL bid {quote['bp']} ask {quote['ap']}, day {day['o']} -> {day['c']}"

    step("stock snapshots (implicit API)", ticker_stock)

    def ohlcv():
        now = exchange.milliseconds()
        since = now - 30 * 60 * 1000
        candles = exchange.fetch_ohlcv("BTC/USD", "1m", since, 10)
        expect(len(candles) == 10, f"{len(candles)} candles")
        times = [c[0] for c in candles]
        expect(times == sorted(times) and len(set(times)) == 10, f"times {times}")
        expect(times[0] >= since - 60 * 1000 and all(t % 60000 == 0 for t in times), f"minute grid {times}")
        expect(all(t2 - t1 == 60000 for t1, t2 in zip(times, times[1:])), f"consecutive minutes {times}")
        for t, o, h, l, c, v in candles:
            expect(l <= o <= h and l <= c <= h and v >= 0, f"candle {[t, o, h, l, c, v]}")
        hourly = exchange.fetch_ohlcv("BTC/USD", "1h", now - 6 * 3600 * 1000)
        expect(5 <= len(hourly) <= 7 and all(c[0] % 3600000 == 0 for c in hourly), f"hourly {[c[0] for c in hourly]}")
        daily = exchange.fetch_ohlcv("BTC/USD", "1d", now - 5 * 86400 * 1000)
        expect(4 <= len(daily) <= 6, f"daily {[c[0] for c in daily]}")
        paged = exchange.fetch_ohlcv("BTC/USD", "1m", since, None, {"paginate": True, "paginationCalls": 3})
        expect(len(paged) >= 29, f"paginated {len(paged)}")
        return f"10 x 1m from {exchange.iso8601(times[0])}, {len(hourly)} x 1h, {len(daily)} x 1d"

    step("fetch_ohlcv (crypto bars)", ohlcv)

    def bad_timeframe():
        # ccxt turns the 400 into ExchangeNotAvailable (its alpaca error map reads only bodies with a "code"); what
        # matters is that the call fails with Alpaca's message rather than answering no candles.
        try:
            exchange.fetch_ohlcv("BTC/USD", "7x")
        except ccxt.BaseError as error:
            expect("400" in str(error) and "invalid timeframe" in str(error), f"{type(error).__name__}: {error}")
            return f"{type(error).__name__}: {error}"
        raise AssertionError("expected an error for timeframe 7x")

    step("fetch_ohlcv with a bad timeframe is refused", bad_timeframe)

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
