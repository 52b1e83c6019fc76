#!/usr/bin/env python3
"""Drives the BrokerGateway Saxo sandbox with the real, unmodified saxo_openapi client (PyPI 0.6.0).

Usage: saxo_openapi_check.py [BASE_URL [APP_KEY [APP_SECRET [REDIRECT_URI]]]]
  or set BROKERGATEWAY_SANDBOX_URL, SAXO_APP_KEY, SAXO_APP_SECRET, SAXO_REDIRECT_URI.
Defaults: http://127.0.0.1:8082 and the sandbox's public demo app.

The token comes from the sandbox's OAuth2 code flow (GET /authorize without following the redirect, then
POST /token), which this script checks too, including refresh-token rotation. Set SAXO_ACCESS_TOKEN to skip the
logon steps and use that bearer token instead.

saxo_openapi has no base-URL parameter: it builds "{api}/sim/{endpoint}" from the module-level
TRADING_ENVIRONMENTS dict, so the script overwrites TRADING_ENVIRONMENTS["simulation"]["api"]. The client also
raises ValueError when a response's status is not the endpoint's expected one (200, 201 or 202), so every step
checks exact status codes as a side effect.

Prints one line per step and exits non-zero on the first failure.
"""
import os
import sys
import time
import traceback
import uuid
from urllib.parse import parse_qs, urlparse

import requests
import saxo_openapi
import saxo_openapi.endpoints.chart as ch
import saxo_openapi.endpoints.portfolio as pf
import saxo_openapi.endpoints.referencedata as rd
import saxo_openapi.endpoints.trading as tr
import saxo_openapi.saxo_openapi as so
from saxo_openapi.contrib.orders import LimitOrderFxSpot, MarketOrderFxSpot, tie_account_to_order
from saxo_openapi.exceptions import OpenAPIError


def settings():
    argv = sys.argv[1:]
    base = argv[0] if len(argv) > 0 else os.environ.get("BROKERGATEWAY_SANDBOX_URL", "http://127.0.0.1:8082")
    key = argv[1] if len(argv) > 1 else os.environ.get("SAXO_APP_KEY", "SANDBOX-SAXO-APP")
    secret = argv[2] if len(argv) > 2 else os.environ.get("SAXO_APP_SECRET", "SANDBOX-SAXO-SECRET")
    redirect = argv[3] if len(argv) > 3 else os.environ.get("SAXO_REDIRECT_URI", "http://localhost/brokergateway/saxo/callback")
    return base.rstrip("/"), key, secret, redirect


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


def main():
    base, app_key, app_secret, redirect_uri = settings()
    check = Check()
    state = {}

    # ---- Logon host: authorization-code flow and refresh rotation, with plain requests ----

    def authorize():
        nonce = uuid.uuid4().hex
        response = requests.get(
            base + "/authorize",
            params={"response_type": "code", "client_id": app_key, "state": nonce, "redirect_uri": redirect_uri},
            allow_redirects=False,
            timeout=10,
        )
        expect(response.status_code == 302, f"expected 302, got {response.status_code}: {response.text}")
        location = urlparse(response.headers["Location"])
        expect(f"{location.scheme}://{location.netloc}{location.path}" == redirect_uri, f"redirected to {location}")
        query = parse_qs(location.query)
        expect(query.get("state") == [nonce], f"state not echoed: {query}")
        state["code"] = query["code"][0]
        return f"code {state['code'][:8]}…"

    def exchange_code():
        response = requests.post(
            base + "/token",
            data={"grant_type": "authorization_code", "code": state["code"], "redirect_uri": redirect_uri},
            auth=(app_key, app_secret),
            timeout=10,
        )
        # Saxo's logon host answers 201 Created (SaxoBank/openapi-samples-php treats anything else as a failure).
        expect(response.status_code == 201, f"expected 201, got {response.status_code}: {response.text}")
        body = response.json()
        for key in ("access_token", "token_type", "expires_in", "refresh_token", "refresh_token_expires_in", "base_uri"):
            expect(key in body, f"token response lacks {key}: {body}")
        expect(body["token_type"] == "Bearer" and body["base_uri"] is None, f"unexpected token response {body}")
        expect(body["access_token"].count(".") == 2, "access token is not a JWT")
        state["tokens"] = body
        return f"expires_in={body['expires_in']} refresh_token_expires_in={body['refresh_token_expires_in']}"

    def code_is_single_use():
        response = requests.post(
            base + "/token",
            data={"grant_type": "authorization_code", "code": state["code"], "redirect_uri": redirect_uri},
            auth=(app_key, app_secret),
            timeout=10,
        )
        expect(response.status_code == 400 and response.json().get("error") == "invalid_grant", f"reuse gave {response.status_code}")
        return "second exchange refused with invalid_grant"

    def refresh():
        old = state["tokens"]["refresh_token"]
        response = requests.post(
            base + "/token",
            data={"grant_type": "refresh_token", "refresh_token": old, "client_id": app_key, "client_secret": app_secret},
            timeout=10,
        )
        expect(response.status_code == 201, f"expected 201, got {response.status_code}: {response.text}")
        state["tokens"] = response.json()
        expect(state["tokens"]["refresh_token"] != old, "refresh token did not rotate")
        reuse = requests.post(
            base + "/token", data={"grant_type": "refresh_token", "refresh_token": old}, auth=(app_key, app_secret), timeout=10
        )
        expect(reuse.status_code == 400, f"spent refresh token gave {reuse.status_code}")
        return "new pair issued, spent token refused"

    token = os.environ.get("SAXO_ACCESS_TOKEN")
    if not token:
        check.step("GET /authorize redirects with code and state", authorize)
        check.step("POST /token exchanges the code (Basic client auth)", exchange_code)
        check.step("authorization codes are single-use", code_is_single_use)
        check.step("POST /token refresh_token grant rotates the refresh token", refresh)
        token = state["tokens"]["access_token"]

    # ---- The OpenAPI through saxo_openapi ----

    so.TRADING_ENVIRONMENTS["simulation"]["api"] = base
    api = saxo_openapi.API(access_token=token)

    def unauthorized():
        anonymous = saxo_openapi.API(access_token="not-a-token")
        try:
            anonymous.request(pf.users.UsersMe())
        except OpenAPIError as error:
            expect(error.code == 401, f"expected 401, got {error.code}")
            return "401 for an unknown token"
        raise AssertionError("an unknown token was accepted")

    def client_details():
        client = api.request(pf.clients.ClientDetailsMe())
        state["client_key"] = client["ClientKey"]
        state["account_key"] = client["DefaultAccountKey"]
        expect(any(c in client["ClientKey"] for c in "+/="), "ClientKey does not look like base64")
        return f"ClientId={client['ClientId']} DefaultCurrency={client['DefaultCurrency']}"

    def accounts():
        data = api.request(pf.accounts.AccountsMe())["Data"]
        expect(len(data) >= 1 and data[0]["AccountKey"] == state["account_key"], f"accounts {data}")
        return f"{len(data)} account(s), {data[0]['AccountId']} {data[0]['Currency']}"

    def users():
        user = api.request(pf.users.UsersMe())
        expect(user["ClientKey"] == state["client_key"], "user's ClientKey differs")
        return f"UserId={user['UserId']} Culture={user['Culture']}"

    def balances_me():
        balance = api.request(pf.balances.AccountBalancesMe())
        state["cash"] = balance["CashBalance"]
        expect(isinstance(balance["TotalValue"], (int, float)), "TotalValue is not a number")
        return f"CashBalance={balance['CashBalance']} TotalValue={balance['TotalValue']} {balance['Currency']}"

    def balances_query():
        balance = api.request(
            pf.balances.AccountBalances(params={"ClientKey": state["client_key"], "AccountKey": state["account_key"]})
        )
        expect("MarginAvailableForTrading" in balance and "MarginUtilizationPct" in balance, f"balance {balance}")
        return f"MarginAvailableForTrading={balance['MarginAvailableForTrading']}"

    def instruments():
        data = api.request(
            rd.instruments.Instruments(
                params={"AccountKey": state["account_key"], "AssetTypes": "FxSpot", "Keywords": "EURUSD"}
            )
        )["Data"]
        expect(len(data) == 1 and data[0]["Identifier"] == 21, f"instruments {data}")
        details = api.request(rd.instruments.InstrumentDetails(Uic=21, AssetType="FxSpot"))
        expect(details["Symbol"] == "EURUSD", f"details {details}")
        return f"EURUSD is Uic {data[0]['Identifier']}, TickSize {details['TickSize']}"

    def info_price():
        price = api.request(
            tr.infoprices.InfoPrice(
                params={"AccountKey": state["account_key"], "Uic": 21, "AssetType": "FxSpot", "FieldGroups": "Quote,PriceInfo,DisplayAndFormat"}
            )
        )
        quote = price["Quote"]
        expect(quote["Bid"] < quote["Ask"], f"quote {quote}")
        state["eurusd"] = quote
        return f"EURUSD {quote['Bid']}/{quote['Ask']} PercentChange {price['PriceInfo']['PercentChange']}"

    def info_prices():
        data = api.request(tr.infoprices.InfoPrices(params={"AccountKey": state["account_key"], "Uics": "16,21", "AssetType": "FxSpot"}))["Data"]
        expect([item["Uic"] for item in data] == [16, 21], f"list {data}")
        return f"{len(data)} quotes"

    def price_subscription():
        context = "ctx" + uuid.uuid4().hex[:12]
        created = api.request(
            tr.prices.CreatePriceSubscription(
                data={
                    "Arguments": {"Uic": 21, "AssetType": "FxSpot", "FieldGroups": ["Quote", "PriceInfo", "DisplayAndFormat"]},
                    "ContextId": context,
                    "ReferenceId": "EURUSD",
                    "RefreshRate": 1000,
                }
            )
        )
        expect(created["State"] == "Active" and created["Snapshot"]["Uic"] == 21, f"subscription {created}")
        api.request(tr.prices.PriceSubscriptionRemove(ContextId=context, ReferenceId="EURUSD"))
        return f"201 with snapshot (Mid {created['Snapshot']['Quote']['Mid']}), removed with 202"

    def chart():
        data = api.request(ch.charts.GetChartData(params={"AssetType": "FxSpot", "Uic": 21, "Horizon": 60, "Count": 24}))["Data"]
        expect(len(data) == 24 and "OpenBid" in data[0] and "CloseAsk" in data[-1], f"chart {data[:1]}")
        return f"{len(data)} hourly bars, last close {data[-1]['CloseBid']}"

    def precheck():
        body = tie_account_to_order(state["account_key"], MarketOrderFxSpot(Uic=21, Amount=10000))
        result = api.request(tr.orders.PrecheckOrder(data=body))
        expect(result["PreCheckResult"] == "Ok", f"precheck {result}")
        return f"Ok, EstimatedCashRequired {result['EstimatedCashRequired']} {result['EstimatedCashRequiredCurrency']}"

    def manual_order_required():
        body = tie_account_to_order(state["account_key"], MarketOrderFxSpot(Uic=21, Amount=10000))
        del body["ManualOrder"]
        try:
            api.request(tr.orders.Order(data=body))
        except OpenAPIError as error:
            expect(error.code == 400 and "ManualOrder" in error.content, f"{error.code} {error.content}")
            return "400 with ModelState.ManualOrder"
        raise AssertionError("an order without ManualOrder was accepted")

    def order_pause():
        # Saxo allows one order operation per second per session (X-RateLimit-SessionOrders-*).
        time.sleep(1.1)

    def market_order():
        order_pause()
        api.client.headers["X-Request-ID"] = uuid.uuid4().hex
        body = tie_account_to_order(state["account_key"], MarketOrderFxSpot(Uic=21, Amount=10000))
        result = api.request(tr.orders.Order(data=body))
        state["market_order"] = result["OrderId"]
        return f"OrderId {result['OrderId']}"

    def limit_order():
        order_pause()
        api.client.headers["X-Request-ID"] = uuid.uuid4().hex
        price = round(state["eurusd"]["Bid"] * 0.95, 5)
        body = tie_account_to_order(
            state["account_key"], LimitOrderFxSpot(Uic=21, Amount=20000, OrderPrice=price, OrderDurationType="GoodTillCancel")
        )
        body["ExternalReference"] = "fidelity-limit-1"
        result = api.request(tr.orders.Order(data=body))
        state["limit_order"] = result["OrderId"]
        state["limit_price"] = price
        return f"OrderId {result['OrderId']} at {price}"

    def open_orders():
        data = api.request(pf.orders.GetOpenOrdersMe(params={"FieldGroups": "DisplayAndFormat"}))["Data"]
        mine = [o for o in data if o["OrderId"] == state["limit_order"]]
        expect(len(mine) == 1, f"limit order missing from {data}")
        order = mine[0]
        expect(order["Status"] == "Working" and order["OpenOrderType"] == "Limit", f"order {order}")
        expect(order["ExternalReference"] == "fidelity-limit-1" and abs(order["Price"] - state["limit_price"]) < 1e-9, f"order {order}")
        single = api.request(pf.orders.GetOpenOrder(ClientKey=state["client_key"], OrderId=state["limit_order"]))["Data"]
        expect(len(single) == 1 and single[0]["OrderId"] == state["limit_order"], f"single {single}")
        return f"{len(data)} working order(s); {order['DisplayAndFormat']['Symbol']} limit {order['Price']}"

    def change_order():
        order_pause()
        api.client.headers["X-Request-ID"] = uuid.uuid4().hex
        new_price = round(state["limit_price"] * 0.99, 5)
        result = api.request(
            tr.orders.ChangeOrder(
                data={
                    "AccountKey": state["account_key"],
                    "OrderId": state["limit_order"],
                    "AssetType": "FxSpot",
                    "Amount": 30000,
                    "OrderType": "Limit",
                    "OrderPrice": new_price,
                    "OrderDuration": {"DurationType": "GoodTillCancel"},
                    "ManualOrder": False,
                }
            )
        )
        expect(result["OrderId"] == state["limit_order"], f"change {result}")
        order = api.request(pf.orders.GetOpenOrder(ClientKey=state["client_key"], OrderId=state["limit_order"]))["Data"][0]
        expect(order["Amount"] == 30000, f"amount not changed: {order}")
        return f"Amount 30000 at {new_price}"

    def cancel_orders():
        result = api.request(tr.orders.CancelOrders(OrderIds=state["limit_order"], params={"AccountKey": state["account_key"]}))
        expect(result["Orders"][0]["OrderId"] == state["limit_order"], f"cancel {result}")
        left = api.request(pf.orders.GetOpenOrder(ClientKey=state["client_key"], OrderId=state["limit_order"]))["Data"]
        expect(left == [], f"order still listed: {left}")
        try:
            api.request(tr.orders.CancelOrders(OrderIds=state["limit_order"], params={"AccountKey": state["account_key"]}))
        except OpenAPIError as error:
            expect(error.code == 404, f"second cancel gave {error.code}")
            return "cancelled; cancelling again is 404"
        raise AssertionError("a cancelled order could be cancelled again")

    def net_positions_me():
        data = api.request(pf.netpositions.NetPositionsMe(params={"FieldGroups": "NetPositionBase,NetPositionView,DisplayAndFormat"}))["Data"]
        mine = [p for p in data if p["NetPositionId"] == "EURUSD__FxSpot"]
        expect(len(mine) == 1 and mine[0]["NetPositionBase"]["Amount"] == 10000, f"net positions {data}")
        view = mine[0]["NetPositionView"]
        return f"EURUSD__FxSpot 10000 @ {view['AverageOpenPrice']}, P/L {view['ProfitLossOnTrade']} {mine[0]['DisplayAndFormat']['Currency']}"

    def net_positions_query():
        data = api.request(pf.netpositions.NetPositionsQuery(params={"ClientKey": state["client_key"]}))
        expect(data["__count"] >= 1 and "NetPositionView" in data["Data"][0], f"query {data}")
        return f"__count {data['__count']}"

    def positions_me():
        data = api.request(pf.positions.PositionsMe())["Data"]
        mine = [p for p in data if p["PositionBase"]["SourceOrderId"] == state["market_order"]]
        expect(len(mine) == 1 and mine[0]["NetPositionId"] == "EURUSD__FxSpot", f"positions {data}")
        return f"PositionId {mine[0]['PositionId']} OpenPrice {mine[0]['PositionBase']['OpenPrice']}"

    def balances_after():
        balance = api.request(pf.balances.AccountBalancesMe())
        expect(balance["MarginUsedByCurrentPositions"] < 0 and balance["NetPositionsCount"] >= 1, f"balance {balance}")
        return f"MarginUsedByCurrentPositions {balance['MarginUsedByCurrentPositions']}, MarginUtilizationPct {balance['MarginUtilizationPct']}"

    check.step("OpenAPI rejects an unknown bearer token", unauthorized)
    check.step("ClientDetailsMe", client_details)
    check.step("AccountsMe", accounts)
    check.step("UsersMe", users)
    check.step("AccountBalancesMe", balances_me)
    check.step("AccountBalances (percent-encoded keys)", balances_query)
    check.step("Instruments + InstrumentDetails", instruments)
    check.step("InfoPrice", info_price)
    check.step("InfoPrices", info_prices)
    check.step("CreatePriceSubscription + PriceSubscriptionRemove", price_subscription)
    check.step("GetChartData (chart/v1)", chart)
    check.step("PrecheckOrder", precheck)
    check.step("Order without ManualOrder is a 400", manual_order_required)
    check.step("Order (market, FxSpot)", market_order)
    check.step("Order (limit, GoodTillCancel)", limit_order)
    check.step("GetOpenOrdersMe + GetOpenOrder", open_orders)
    check.step("ChangeOrder", change_order)
    check.step("CancelOrders", cancel_orders)
    check.step("NetPositionsMe", net_positions_me)
    check.step("NetPositionsQuery", net_positions_query)
    check.step("PositionsMe", positions_me)
    check.step("AccountBalancesMe after trading", balances_after)
    print(f"all {check.count} steps passed", flush=True)


if __name__ == "__main__":
    main()
