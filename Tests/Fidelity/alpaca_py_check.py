#!/usr/bin/env python3
"""Drives the BrokerGateway Alpaca sandbox with the real, unmodified alpaca-py client.

Usage: alpaca_py_check.py [BASE_URL [KEY [SECRET]]]
  or set BROKERGATEWAY_SANDBOX_URL, BROKERGATEWAY_SANDBOX_KEY, BROKERGATEWAY_SANDBOX_SECRET.
Defaults: http://127.0.0.1:8081 and the public demo credentials.
Prints one line per step and exits non-zero on the first failure.
"""
import os
import sys
import traceback
import uuid
from datetime import datetime, timedelta, timezone

from alpaca.common.exceptions import APIError
from alpaca.data.historical import CryptoHistoricalDataClient, StockHistoricalDataClient
from alpaca.data.requests import (
    CryptoBarsRequest,
    CryptoSnapshotRequest,
    StockBarsRequest,
    StockLatestQuoteRequest,
    StockLatestTradeRequest,
    StockSnapshotRequest,
)
from alpaca.data.timeframe import TimeFrame, TimeFrameUnit
from alpaca.trading.client import TradingClient
from alpaca.trading.enums import AssetClass, OrderSide, OrderStatus, QueryOrderStatus, TimeInForce
from alpaca.trading.requests import (
    ClosePositionRequest,
    CreateWatchlistRequest,
    GetAssetsRequest,
    GetOrdersRequest,
    LimitOrderRequest,
    MarketOrderRequest,
    StopOrderRequest,
    TrailingStopOrderRequest,
    ReplaceOrderRequest,
    UpdateWatchlistRequest,
)


def settings():
    argv = sys.argv[1:]
    base = argv[0] if len(argv) > 0 else os.environ.get("BROKERGATEWAY_SANDBOX_URL", "http://127.0.0.1:8081")
    key = argv[1] if len(argv) > 1 else os.environ.get("BROKERGATEWAY_SANDBOX_KEY", "SANDBOX-ALPACA-KEY")
    secret = argv[2] if len(argv) > 2 else os.environ.get("BROKERGATEWAY_SANDBOX_SECRET", "SANDBOX-ALPACA-SECRET")
    return base.rstrip("/"), key, secret


class Check:
    def __init__(self):
        self.count = 0

    def step(self, name, fn):
        try:
            detail = fn()
        except Exception as error:  # noqa: BLE001 - report any failure with its traceback
            print(f"FAIL {name}: {type(error).__name__}: {error}", flush=True)
            traceback.print_exc()
            sys.exit(1)
        self.count += 1
        print(f"ok   {name}" + (f": {detail}" if detail else ""), flush=True)


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


def expect_api_error(fn, status, code=None):
    try:
        fn()
    except APIError as error:
        expect(error.status_code == status, f"expected HTTP {status}, got {error.status_code}: {error}")
        if code is not None:
            expect(error.code == code, f"expected code {code}, got {error.code}: {error}")
        return f"HTTP {error.status_code} code {error.code} {error.message!r}"
    raise AssertionError(f"expected APIError {status}, got success")


def main():
    base, key, secret = settings()
    print(f"alpaca-py against {base}", flush=True)
    tc = TradingClient(key, secret, url_override=base)
    data = StockHistoricalDataClient(key, secret, url_override=base)
    check = Check()
    state = {}

    def account():
        a = tc.get_account()
        expect(str(a.status.value) == "ACTIVE", f"status {a.status}")
        expect(a.currency == "USD", f"currency {a.currency}")
        expect(float(a.cash) > 0 and float(a.buying_power) > 0, f"cash {a.cash} buying_power {a.buying_power}")
        expect(abs(float(a.equity) - float(a.portfolio_value)) < 1e-6, "equity == portfolio_value")
        state["cash0"] = float(a.cash)
        return f"cash {a.cash}, buying power {a.buying_power}, equity {a.equity}"

    check.step("get_account", account)

    def clock():
        c = tc.get_clock()
        expect(c.next_open > c.timestamp or c.is_open, "clock sane")
        return f"is_open={c.is_open} next_close={c.next_close.isoformat()}"

    check.step("get_clock", clock)

    def assets():
        equities = tc.get_all_assets(GetAssetsRequest(asset_class=AssetClass.US_EQUITY))
        symbols = {a.symbol for a in equities}
        expect({"AAPL", "MSFT", "TSLA", "SPY"} <= symbols, f"equities {sorted(symbols)}")
        crypto = tc.get_all_assets(GetAssetsRequest(asset_class=AssetClass.CRYPTO))
        expect("BTC/USD" in {a.symbol for a in crypto}, "BTC/USD listed")
        aapl = tc.get_asset("AAPL")
        expect(aapl.tradable and aapl.fractionable, "AAPL tradable")
        expect(tc.get_asset(aapl.id).symbol == "AAPL", "asset by id")
        btc = tc.get_asset("BTC/USD")
        expect(btc.asset_class == AssetClass.CRYPTO and btc.min_order_size is not None, "BTC/USD asset")
        return f"{len(equities)} equities, {len(crypto)} crypto"

    check.step("get_all_assets / get_asset", assets)

    def positions():
        ps = tc.get_all_positions()
        by_symbol = {p.symbol: p for p in ps}
        expect("AAPL" in by_symbol and "BTCUSD" in by_symbol, f"positions {sorted(by_symbol)}")
        aapl = tc.get_open_position("AAPL")
        expect(float(aapl.qty) > 0 and float(aapl.market_value) > 0, "AAPL position values")
        state["aapl_qty0"] = float(aapl.qty)
        expect_api_error(lambda: tc.get_open_position("TSLA"), 404, 40410000)
        return ", ".join(f"{p.symbol} {p.qty}@{p.avg_entry_price}" for p in ps)

    check.step("get_all_positions / get_open_position", positions)

    def market_order():
        cid = "fidelity-" + uuid.uuid4().hex
        order = tc.submit_order(
            MarketOrderRequest(symbol="AAPL", qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.DAY, client_order_id=cid)
        )
        expect(order.client_order_id == cid, "client order id echoed")
        fetched = tc.get_order_by_id(order.id)
        expect(fetched.status == OrderStatus.FILLED, f"market order status {fetched.status}")
        expect(float(fetched.filled_qty) == 1 and float(fetched.filled_avg_price) > 0, "filled qty/price")
        by_cid = tc.get_order_by_client_id(cid)
        expect(by_cid.id == order.id, "by client order id")
        state["market_cid"] = cid
        state["market_id"] = order.id
        position = tc.get_open_position("AAPL")
        expect(abs(float(position.qty) - state["aapl_qty0"] - 1) < 1e-9, f"AAPL qty {position.qty}")
        return f"{order.id} filled at {fetched.filled_avg_price}"

    check.step("submit market order / get_order_by_id / get_order_by_client_id", market_order)

    def notional_order():
        # A dollar-amount order: alpaca-py sends notional and reads back notional with qty null (issue 15, item 3).
        order = tc.submit_order(
            MarketOrderRequest(symbol="AAPL", notional=500, side=OrderSide.BUY, time_in_force=TimeInForce.DAY)
        )
        expect(order.qty is None and float(order.notional) == 500, f"notional {order.notional} qty {order.qty}")
        fetched = tc.get_order_by_id(order.id)
        expect(fetched.status == OrderStatus.FILLED, f"notional order status {fetched.status}")
        filled = float(fetched.filled_qty) * float(fetched.filled_avg_price)
        expect(499.99 < filled <= 500, f"filled {filled} of 500")
        expect(fetched.submitted_at is not None and fetched.filled_at is not None, "submitted_at and filled_at")
        state["aapl_qty0"] += float(fetched.filled_qty)
        return f"{order.id}: {fetched.filled_qty} at {fetched.filled_avg_price}"

    check.step("submit notional market order", notional_order)

    def limit_order():
        quote = data.get_stock_latest_quote(StockLatestQuoteRequest(symbol_or_symbols="MSFT"))["MSFT"]
        limit = round(quote.bid_price * 0.5, 2)
        order = tc.submit_order(
            LimitOrderRequest(symbol="MSFT", qty=2, side=OrderSide.BUY, time_in_force=TimeInForce.GTC, limit_price=limit)
        )
        expect(order.status in (OrderStatus.NEW, OrderStatus.ACCEPTED), f"limit status {order.status}")
        listed = tc.get_orders(GetOrdersRequest(status=QueryOrderStatus.OPEN, symbols=["MSFT"], nested=True))
        expect(order.id in {o.id for o in listed}, "open orders list the limit order")
        state["limit"] = order
        return f"{order.id} resting at {limit}"

    check.step("submit limit order / get_orders(open)", limit_order)

    def replace():
        old = state["limit"]
        new = tc.replace_order_by_id(old.id, ReplaceOrderRequest(qty=3, limit_price=float(old.limit_price) + 1))
        expect(new.id != old.id and new.replaces == old.id, "replacement is a new order that replaces the old")
        expect(float(new.qty) == 3, f"new qty {new.qty}")
        previous = tc.get_order_by_id(old.id)
        expect(previous.status == OrderStatus.REPLACED and previous.replaced_by == new.id, f"old status {previous.status}")
        state["replacement"] = new
        return f"{old.id} -> {new.id}"

    check.step("replace_order_by_id", replace)

    def cancel():
        new = state["replacement"]
        tc.cancel_order_by_id(new.id)
        expect(tc.get_order_by_id(new.id).status == OrderStatus.CANCELED, "canceled")
        closed = tc.get_orders(GetOrdersRequest(status=QueryOrderStatus.CLOSED, limit=100))
        expect(new.id in {o.id for o in closed}, "closed orders list the canceled order")
        return f"{new.id} canceled"

    check.step("cancel_order_by_id / get_orders(closed)", cancel)

    def duplicate():
        return expect_api_error(
            lambda: tc.submit_order(
                MarketOrderRequest(symbol="AAPL", qty=1, side=OrderSide.BUY, time_in_force=TimeInForce.DAY,
                                   client_order_id=state["market_cid"])
            ),
            422,
            40010001,
        )

    check.step("duplicate client_order_id rejected", duplicate)

    def cancel_filled():
        return expect_api_error(lambda: tc.cancel_order_by_id(state["market_id"]), 422, 42210000)

    check.step("cancel of a filled order rejected", cancel_filled)

    def insufficient():
        return expect_api_error(
            lambda: tc.submit_order(MarketOrderRequest(symbol="SPY", qty=100000, side=OrderSide.BUY, time_in_force=TimeInForce.DAY)),
            403,
            40310000,
        )

    check.step("insufficient buying power rejected", insufficient)

    def crypto():
        order = tc.submit_order(MarketOrderRequest(symbol="BTC/USD", qty=0.001, side=OrderSide.BUY, time_in_force=TimeInForce.GTC))
        fetched = tc.get_order_by_id(order.id)
        expect(fetched.status == OrderStatus.FILLED and fetched.symbol == "BTC/USD", f"crypto order {fetched.status}")
        position = tc.get_open_position("BTCUSD")
        expect(position.symbol == "BTCUSD", "crypto position symbol has no slash")
        return f"BTC position {position.qty}"

    check.step("crypto market order / BTCUSD position", crypto)

    def watchlists():
        name = "fidelity-" + uuid.uuid4().hex[:8]
        wl = tc.create_watchlist(CreateWatchlistRequest(name=name, symbols=["AAPL"]))
        expect(wl.name == name and [a.symbol for a in wl.assets] == ["AAPL"], "created")
        wl = tc.add_asset_to_watchlist_by_id(wl.id, "MSFT")
        expect([a.symbol for a in wl.assets] == ["AAPL", "MSFT"], f"added: {[a.symbol for a in wl.assets]}")
        wl = tc.remove_asset_from_watchlist_by_id(wl.id, "AAPL")
        expect([a.symbol for a in wl.assets] == ["MSFT"], "removed")
        wl = tc.update_watchlist_by_id(wl.id, UpdateWatchlistRequest(name=name + "-renamed", symbols=["TSLA", "SPY"]))
        expect(wl.name == name + "-renamed", "renamed")
        expect(wl.id in {w.id for w in tc.get_watchlists()}, "listed")
        expect([a.symbol for a in tc.get_watchlist_by_id(wl.id).assets] == ["TSLA", "SPY"], "fetched")
        tc.delete_watchlist_by_id(wl.id)
        expect_api_error(lambda: tc.get_watchlist_by_id(wl.id), 404)
        return f"{wl.id} created, edited, deleted"

    check.step("watchlists create/add/remove/update/delete", watchlists)

    def close_position():
        order = tc.close_position("AAPL", ClosePositionRequest(qty="1"))
        expect(order.side == OrderSide.SELL and float(order.qty) == 1, "close order")
        return f"sold 1 AAPL: {order.status.value}"

    check.step("close_position(qty)", close_position)

    def account_after():
        a = tc.get_account()
        expect(float(a.cash) != state["cash0"], "cash moved after fills")
        long_value = sum(float(p.market_value) for p in tc.get_all_positions())
        expect(abs(float(a.long_market_value) - long_value) < 0.05, f"long_market_value {a.long_market_value} vs {long_value}")
        expect(abs(float(a.equity) - float(a.cash) - long_value) < 0.05, "equity = cash + positions")
        return f"cash {a.cash}, equity {a.equity}"

    check.step("account reflects fills", account_after)

    def latest_data():
        quotes = data.get_stock_latest_quote(StockLatestQuoteRequest(symbol_or_symbols=["AAPL", "MSFT"]))
        expect(set(quotes) == {"AAPL", "MSFT"}, f"quotes {list(quotes)}")
        q = quotes["AAPL"]
        expect(0 < q.bid_price < q.ask_price, f"AAPL bid {q.bid_price} ask {q.ask_price}")
        trades = data.get_stock_latest_trade(StockLatestTradeRequest(symbol_or_symbols="SPY"))
        expect(trades["SPY"].price > 0, "SPY trade")
        return f"AAPL {q.bid_price}/{q.ask_price}, SPY last {trades['SPY'].price}"

    check.step("StockHistoricalDataClient latest quote/trade", latest_data)

    def check_bars(bars, label):
        expect(bars, f"{label}: no bars")
        times = [b.timestamp for b in bars]
        expect(times == sorted(times) and len(set(times)) == len(times), f"{label}: times {times}")
        for b in bars:
            expect(b.low <= b.open <= b.high and b.low <= b.close <= b.high, f"{label}: bar {b}")
            expect(b.volume >= 0 and b.trade_count is not None and b.vwap is not None, f"{label}: bar {b}")

    def stock_bars():
        now = datetime.now(timezone.utc)
        minute = data.get_stock_bars(
            StockBarsRequest(symbol_or_symbols="AAPL", timeframe=TimeFrame.Minute, start=now - timedelta(minutes=30), limit=10)
        )
        aapl = minute.data["AAPL"]
        expect(len(aapl) == 10, f"{len(aapl)} minute bars")
        check_bars(aapl, "AAPL 1Min")
        expect(all((b2.timestamp - b1.timestamp) == timedelta(minutes=1) for b1, b2 in zip(aapl, aapl[1:])), "consecutive minutes")
        # Without a limit alpaca-py asks for pages of 10,000: one page holds both symbols.
        many = data.get_stock_bars(
            StockBarsRequest(
                symbol_or_symbols=["MSFT", "AAPL"], timeframe=TimeFrame(15, TimeFrameUnit.Minute), start=now - timedelta(hours=3)
            )
        )
        expect(set(many.data) == {"AAPL", "MSFT"}, f"symbols {list(many.data)}")
        check_bars(many.data["MSFT"], "MSFT 15Min")
        daily = data.get_stock_bars(StockBarsRequest(symbol_or_symbols="SPY", timeframe=TimeFrame.Day, start=now - timedelta(days=10)))
        check_bars(daily.data["SPY"], "SPY 1Day")
        paged = data.get_stock_bars(
            StockBarsRequest(symbol_or_symbols=["AAPL", "MSFT"], timeframe=TimeFrame.Hour, start=now - timedelta(hours=5), limit=7)
        )
        total = sum(len(v) for v in paged.data.values())
        expect(total == 7, f"limit 7 across symbols gave {total}")
        expect(len(many.df) > 0, "DataFrame")
        return f"AAPL 10 x 1Min from {aapl[0].timestamp}, SPY {len(daily.data['SPY'])} days, 7 across two symbols"

    check.step("StockHistoricalDataClient get_stock_bars", stock_bars)

    def stock_snapshots():
        snaps = data.get_stock_snapshot(StockSnapshotRequest(symbol_or_symbols=["AAPL", "SPY"]))
        expect(set(snaps) == {"AAPL", "SPY"}, f"snapshots {list(snaps)}")
        s = snaps["AAPL"]
        expect(0 < s.latest_quote.bid_price < s.latest_quote.ask_price, f"quote {s.latest_quote}")
        expect(s.latest_trade.price > 0 and s.minute_bar is not None, "trade and minute bar")
        expect(s.daily_bar.low <= s.daily_bar.close <= s.daily_bar.high, f"daily bar {s.daily_bar}")
        expect(s.previous_daily_bar.timestamp < s.daily_bar.timestamp, "previous day before today")
        return f"AAPL last {s.latest_trade.price}, day {s.daily_bar.open} -> {s.daily_bar.close}, prev close {s.previous_daily_bar.close}"

    check.step("StockHistoricalDataClient get_stock_snapshot", stock_snapshots)

    crypto_data = CryptoHistoricalDataClient(key, secret, url_override=base)

    def crypto_bars():
        now = datetime.now(timezone.utc)
        bars = crypto_data.get_crypto_bars(
            CryptoBarsRequest(symbol_or_symbols=["BTC/USD", "ETH/USD"], timeframe=TimeFrame(5, TimeFrameUnit.Minute), start=now - timedelta(hours=1))
        )
        expect(set(bars.data) == {"BTC/USD", "ETH/USD"}, f"symbols {list(bars.data)}")
        btc = bars.data["BTC/USD"]
        expect(11 <= len(btc) <= 13, f"{len(btc)} five-minute bars in an hour")
        check_bars(btc, "BTC/USD 5Min")
        daily = crypto_data.get_crypto_bars(CryptoBarsRequest(symbol_or_symbols="BTC/USD", timeframe=TimeFrame.Day, start=now - timedelta(days=3)))
        check_bars(daily.data["BTC/USD"], "BTC/USD 1Day")
        return f"BTC/USD {len(btc)} x 5Min, {len(daily.data['BTC/USD'])} x 1Day"

    check.step("CryptoHistoricalDataClient get_crypto_bars", crypto_bars)

    def crypto_snapshots():
        snaps = crypto_data.get_crypto_snapshot(CryptoSnapshotRequest(symbol_or_symbols=["BTC/USD", "ETH/USD"]))
        expect(set(snaps) == {"BTC/USD", "ETH/USD"}, f"snapshots {list(snaps)}")
        s = snaps["BTC/USD"]
        expect(0 < s.latest_quote.bid_price < s.latest_quote.ask_price, f"quote {s.latest_quote}")
        expect(s.daily_bar.low <= s.latest_trade.price <= s.daily_bar.high, f"last {s.latest_trade.price} in {s.daily_bar}")
        return f"BTC/USD last {s.latest_trade.price}, day {s.daily_bar.low}-{s.daily_bar.high}"

    check.step("CryptoHistoricalDataClient get_crypto_snapshot", crypto_snapshots)

    def bad_bars_request():
        # Market-data errors carry only a message, so APIError.code (which reads a "code" key) is not consulted.
        try:
            data.get_stock_bars(
                StockBarsRequest(symbol_or_symbols="AAPL", timeframe=TimeFrame.Day, start=datetime(2024, 2, 1), end=datetime(2024, 1, 1))
            )
        except APIError as error:
            expect(error.status_code == 400, f"expected HTTP 400, got {error.status_code}: {error}")
            return f"HTTP 400 {error}"
        raise AssertionError("expected APIError 400")

    check.step("bars with end before start give 400", bad_bars_request)

    def stops_and_bulk_cancel():
        start = datetime.now(timezone.utc) - timedelta(minutes=1)
        stop = tc.submit_order(StopOrderRequest(symbol="AAPL", qty=1, side=OrderSide.SELL, time_in_force=TimeInForce.GTC, stop_price=1))
        trailing = tc.submit_order(
            TrailingStopOrderRequest(symbol="AAPL", qty=1, side=OrderSide.SELL, time_in_force=TimeInForce.GTC, trail_percent=50)
        )
        expect(stop.status == OrderStatus.NEW and trailing.status == OrderStatus.NEW, f"{stop.status} {trailing.status}")
        expect(trailing.hwm is not None and float(trailing.stop_price) > 0, "trailing stop tracks a high-water mark")
        window = tc.get_orders(GetOrdersRequest(status=QueryOrderStatus.OPEN, after=start,
                                                until=datetime.now(timezone.utc) + timedelta(minutes=1)))
        expect({stop.id, trailing.id} <= {o.id for o in window}, "after/until window lists both")
        canceled = tc.cancel_orders()
        expect({stop.id, trailing.id} <= {c.id for c in canceled} and all(c.status == 200 for c in canceled), "207 cancel-all")
        expect(tc.get_orders() == [], "no open orders left")
        return f"{len(canceled)} canceled"

    check.step("stop / trailing stop orders, get_orders(after, until), cancel_orders", stops_and_bulk_cancel)

    def configurations():
        config = tc.get_account_configurations()
        expect(config.fractional_trading is True, "fractional trading")
        return f"dtbp_check={config.dtbp_check.value} max_margin_multiplier={config.max_margin_multiplier}"

    check.step("get_account_configurations", configurations)

    def close_all():
        results = tc.close_all_positions(cancel_orders=True)
        expect(results and all(r.status == 200 for r in results), f"{[(r.symbol, r.status) for r in results]}")
        expect(tc.get_all_positions() == [], "no positions left")
        account = tc.get_account()
        expect(float(account.long_market_value) == 0 and account.equity == account.cash, "all cash")
        return ", ".join(f"{r.symbol}: {r.body.status.value}" for r in results)

    check.step("close_all_positions(cancel_orders=True)", close_all)

    def bad_credentials():
        bad = TradingClient(key, "wrong-secret", url_override=base)
        return expect_api_error(bad.get_account, 401, 40110000)

    check.step("wrong secret gives 401", bad_credentials)

    print(f"PASS alpaca-py: {check.count} steps", flush=True)


if __name__ == "__main__":
    main()
