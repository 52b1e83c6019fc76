#!/usr/bin/env python3
"""Drives the Alpaca sandbox's WebSocket streams with alpaca-py's real stream clients.

- StockDataStream and CryptoDataStream (msgpack, as alpaca-py always speaks it) subscribe to AAPL and BTC/USD
  quotes; the script pins the price through the sandbox's admin API and waits for a quote at that price.
- TradingStream listens to trade_updates; the script places a market order through TradingClient and waits for
  its `new` and `fill` updates.

Both clients are pointed at the sandbox with `url_override` and closed with `stop_ws()`; the script waits for their
run loops to end. Every wait is for an event, with a timeout as the failure path (no sleeps).

Usage: alpaca_py_stream_check.py [BASE_URL [KEY [SECRET]]]
  or set BROKERGATEWAY_SANDBOX_URL, BROKERGATEWAY_SANDBOX_KEY, BROKERGATEWAY_SANDBOX_SECRET.
Prints one line per step and exits non-zero on the first failure.
"""
import asyncio
import json
import os
import sys
import traceback
import urllib.request
from decimal import Decimal

from alpaca.data.live import CryptoDataStream, StockDataStream
from alpaca.trading.client import TradingClient
from alpaca.trading.enums import OrderSide, TimeInForce, TradeEvent
from alpaca.trading.requests import MarketOrderRequest
from alpaca.trading.stream import TradingStream

TIMEOUT = 20.0


def settings():
    argv = sys.argv[1:]
    base = argv[0] if len(argv) > 0 else os.environ.get("BROKERGATEWAY_SANDBOX_URL", "http://127.0.0.1:8081")
    key = argv[1] if len(argv) > 1 else os.environ.get("BROKERGATEWAY_SANDBOX_KEY", "SANDBOX-ALPACA-KEY")
    secret = argv[2] if len(argv) > 2 else os.environ.get("BROKERGATEWAY_SANDBOX_SECRET", "SANDBOX-ALPACA-SECRET")
    base = base.rstrip("/")
    return base, "ws" + base[len("http"):], key, secret


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


def admin(base, method, path, body=None):
    """The sandbox's admin API (no credentials): pins and reads prices."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read().decode()
        return json.loads(text) if text else None


def observed(stream_class):
    """alpaca-py's data stream class, unchanged, plus an event when the server acknowledges a quote subscription
    (alpaca-py only logs it): the script moves the price once the server has the subscription."""

    class Observed(stream_class):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.subscribed = asyncio.Event()

        async def _dispatch(self, msg):
            if msg.get("T") == "subscription" and msg.get("quotes"):
                self.subscribed.set()
            await super()._dispatch(msg)

    return Observed


class ObservedTradingStream(TradingStream):
    """alpaca-py's TradingStream, unchanged, plus an event when the server acknowledges `listen` (alpaca-py ignores
    that message): the script places its order once the server is streaming the account's updates."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.listening = asyncio.Event()

    async def _dispatch(self, msg):
        if msg.get("stream") == "listening" and "trade_updates" in (msg.get("data") or {}).get("streams", []):
            self.listening.set()
        await super()._dispatch(msg)


async def stop(stream, runner, name):
    """Closes a stream client the way an application does, and waits for its run loop to end."""
    await stream.stop_ws()
    await asyncio.wait_for(runner, TIMEOUT)
    expect(runner.done() and runner.exception() is None, f"{name} run loop ended with {runner.exception()!r}")
    expect(stream._ws is None, f"{name} still holds its websocket")


async def check_quotes(base, ws_base, key, secret, stream_class, path, symbol):
    name = stream_class.__name__
    quotes = asyncio.Queue()

    async def on_quote(quote):
        await quotes.put(quote)

    stream = observed(stream_class)(key, secret, url_override=ws_base + path)
    stream.subscribe_quotes(on_quote, symbol)
    runner = asyncio.create_task(stream._run_forever())
    admin_path = "/_sandbox/prices/" + symbol
    try:
        await asyncio.wait_for(stream.subscribed.wait(), TIMEOUT)
        print(f"ok   {name}: connected, authenticated and subscribed to {symbol} (msgpack)", flush=True)

        current = await asyncio.to_thread(admin, base, "GET", admin_path)
        wanted = (Decimal(str(current["last"])) * Decimal("1.3")).quantize(Decimal("0.01"))
        # The sandbox rounds a pin to the instrument's tick: the answer says the price it pinned.
        answer = await asyncio.to_thread(admin, base, "PUT", admin_path, {"price": str(wanted)})
        pinned = Decimal(str(answer["last"]))
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + TIMEOUT
            while True:
                quote = await asyncio.wait_for(quotes.get(), max(0.1, deadline - loop.time()))
                expect(quote.symbol == symbol, f"a quote of {quote.symbol}")
                expect(quote.timestamp.tzinfo is not None, f"timestamp {quote.timestamp!r} has no time zone")
                if quote.bid_price < float(pinned) < quote.ask_price:
                    break
            print(
                f"ok   {name}: quote after pinning {symbol} at {pinned}: bid {quote.bid_price} x {quote.bid_size}, "
                f"ask {quote.ask_price} x {quote.ask_size}, {quote.timestamp.isoformat()}",
                flush=True,
            )
        finally:
            await asyncio.to_thread(admin, base, "DELETE", admin_path)
    finally:
        await stop(stream, runner, name)
    print(f"ok   {name}: closed cleanly", flush=True)


async def check_trade_updates(base, ws_base, key, secret):
    updates = asyncio.Queue()

    async def on_update(update):
        await updates.put(update)

    stream = ObservedTradingStream(key, secret, url_override=ws_base + "/stream")
    stream.subscribe_trade_updates(on_update)
    runner = asyncio.create_task(stream._run_forever())
    try:
        await asyncio.wait_for(stream.listening.wait(), TIMEOUT)
        print("ok   TradingStream: authenticated and listening to trade_updates", flush=True)

        trading = TradingClient(key, secret, paper=True, url_override=base)
        order = await asyncio.to_thread(
            trading.submit_order,
            MarketOrderRequest(symbol="MSFT", qty=3, side=OrderSide.BUY, time_in_force=TimeInForce.DAY),
        )
        seen = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while True:
            update = await asyncio.wait_for(updates.get(), max(0.1, deadline - loop.time()))
            if update.order.id != order.id:
                continue
            seen.append(update.event)
            if update.event == TradeEvent.FILL:
                break
        expect(seen == [TradeEvent.NEW, TradeEvent.FILL], f"events {seen}")
        expect(update.qty == 3.0, f"fill qty {update.qty}")
        expect(update.price is not None and update.price > 0, f"fill price {update.price}")
        expect(update.position_qty is not None and update.position_qty >= 3.0, f"position_qty {update.position_qty}")
        expect(update.order.filled_qty == "3", f"order filled_qty {update.order.filled_qty!r}")
        expect(update.execution_id is not None, "no execution_id")
        # alpaca-py's TradeUpdate.event is Union[TradeEvent, str]: pydantic keeps the wire's string.
        events = [getattr(event, "value", event) for event in seen]
        print(f"ok   TradingStream: {events} for {order.id}, 3 MSFT at {update.price}", flush=True)
    finally:
        await stop(stream, runner, "TradingStream")
    print("ok   TradingStream: closed cleanly", flush=True)


async def main():
    base, ws_base, key, secret = settings()
    await check_quotes(base, ws_base, key, secret, StockDataStream, "/v2/iex", "AAPL")
    await check_quotes(base, ws_base, key, secret, CryptoDataStream, "/v1beta3/crypto/us", "BTC/USD")
    await check_trade_updates(base, ws_base, key, secret)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Exception as error:  # noqa: BLE001 - report any failure with its traceback
        print(f"FAIL {type(error).__name__}: {error}", flush=True)
        traceback.print_exc()
        sys.exit(1)
    print("all stream checks passed", flush=True)
