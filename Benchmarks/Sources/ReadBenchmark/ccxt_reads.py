#!/usr/bin/env python3
"""The client-side aggregator a gateway user would write instead: ccxt's async TradeOgre client, one exchange object
per linked account, each read done on every account at once with asyncio.gather.

Usage: ccxt_reads.py BASE_URL KEY SECRET SYMBOL CLIENTS SECONDS WARMUP_SECONDS ACCOUNTS
  BASE_URL includes /api/v1 (ccxt appends "/" + path to urls['api']['rest']).
Prints one JSON object: reads, errors, seconds, cpu_seconds (this process, user + system, measured span only),
latencies_ms (every read's), max_rss_kb.

Needs ccxt 4.5.5 (the last release with tradeogre): Tests/Fidelity/requirements-tradeogre.txt.
"""
import asyncio
import json
import resource
import sys
import time

import ccxt.async_support as ccxt


async def main():
    base, key, secret, symbol = sys.argv[1:5]
    clients, seconds, warmup, accounts = (int(value) for value in sys.argv[5:9])
    exchanges = []
    for _ in range(accounts):
        # ccxt's own throttle off: the sandbox's rate limit is off too, and the gateway does not throttle here either.
        exchange = ccxt.tradeogre({"apiKey": key, "secret": secret, "timeout": 30000, "enableRateLimit": False})
        exchange.urls["api"] = {"rest": base.rstrip("/")}
        exchanges.append(exchange)
    try:
        # Markets are loaded once, as any long-running ccxt user does; not part of a read.
        await asyncio.gather(*(exchange.load_markets() for exchange in exchanges))
        latencies = []
        errors = 0
        start = time.monotonic()
        measure_from = start + warmup
        end = measure_from + seconds
        usage_at_start = None

        async def client():
            nonlocal errors
            while True:
                began = time.monotonic()
                if began >= end:
                    return
                try:
                    await asyncio.gather(*(exchange.fetch_ticker(symbol) for exchange in exchanges))
                    ok = True
                except Exception:  # noqa: BLE001 - counted, the run goes on
                    ok = False
                if began >= measure_from:
                    if ok:
                        latencies.append((time.monotonic() - began) * 1000)
                    else:
                        errors += 1

        async def mark_start():
            nonlocal usage_at_start
            await asyncio.sleep(max(0, measure_from - time.monotonic()))
            usage_at_start = resource.getrusage(resource.RUSAGE_SELF)

        await asyncio.gather(mark_start(), *(client() for _ in range(clients)))
        usage = resource.getrusage(resource.RUSAGE_SELF)
        elapsed = time.monotonic() - measure_from
        cpu = (usage.ru_utime - usage_at_start.ru_utime) + (usage.ru_stime - usage_at_start.ru_stime)
        print(json.dumps({
            "reads": len(latencies), "errors": errors, "seconds": elapsed, "cpu_seconds": cpu,
            "latencies_ms": latencies, "max_rss_kb": usage.ru_maxrss,
        }), flush=True)
    finally:
        await asyncio.gather(*(exchange.close() for exchange in exchanges))


if __name__ == "__main__":
    asyncio.run(main())
