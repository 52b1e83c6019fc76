import json
dec = {"type": "string", "pattern": r"^-?[0-9]+(\.[0-9]+)?$", "description": "A decimal number as a string (money and quantities are never binary floats).", "examples": ["123.45"]}
decin = {"oneOf": [{"type": "string", "pattern": r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]{1,3})?$"}, {"type": "number"}], "description": "A decimal as a string (preferred) or a number."}
ts = {"type": "string", "format": "date-time"}
def ref(n): return {"$ref": f"#/components/schemas/{n}"}
def opt(s): return s
enum = lambda *v: {"type": "string", "enum": list(v)}
schemas = {
 "Decimal": dec,
 "DecimalInput": decin,
 "BrokerKind": {"type": "string", "description": "The broker dialect: alpaca, saxo, tradeit, tradeogre (as registered in this gateway).", "examples": ["alpaca"]},
 "AssetClass": enum("equity","etf","fund","bond","option","future","fx","crypto","cfd","index","other"),
 "OrderSide": enum("buy","sell","sell_short","buy_to_cover"),
 "OrderType": enum("market","limit","stop","stop_limit"),
 "TimeInForce": enum("day","gtc","ioc","fok","gtd"),
 "OrderStatus": {**enum("pending_new","open","partially_filled","filled","canceled","rejected","expired","pending_cancel","replaced","unknown"), "description": "unknown: the gateway sent the order but could not learn whether the broker took it; reconciliation replaces it with the broker's state. Read the order again; do not place it again."},
 "JournalState": enum("submitting","accepted","rejected","unknown"),
 "OrderEvent": {"type":"object","required":["kind","state","at","sequence"],"properties":{"kind":{"type":"string"},"state":ref("JournalState"),"status":ref("OrderStatus"),"brokerOrderId":{"type":"string"},"detail":{"type":"string"},"at":ts,"sequence":{"type":"integer"}}},
 "ConnectionStatus": enum("active","pending_link","challenge_required","relink_required"),
 "Support": enum("supported","emulated","unsupported"),
 "FieldProblem": {"type":"object","required":["field","problem"],"properties":{"field":{"type":"string"},"problem":{"type":"string"}}},
 "Error": {"type":"object","required":["error"],"properties":{"error":{"type":"object","required":["code","message","retryable","requestId"],"properties":{
    "code":{"type":"string","description":"Opaque code: unauthorized, forbidden, not_found, invalid_request, unprocessable, payload_too_large, rejected, insufficient_funds, rate_limited, upstream_timeout, upstream_unavailable, malformed_response, not_supported, conflict, internal."},
    "message":{"type":"string"},"details":{"type":"array","items":ref("FieldProblem")},"broker":{"type":"string"},
    "retryable":{"type":"boolean"},"retryAfter":{"type":"number"},"requestId":{"type":"string"}}}}},
 "SourceReport": {"type":"object","required":["connection","broker","status","latencyMs","asOf"],"properties":{
    "connection":{"type":"string"},"broker":ref("BrokerKind"),"status":enum("ok","error"),"latencyMs":{"type":"integer"},"asOf":ts,
    "error":{"type":"object","required":["code","message","retryable"],"properties":{"code":{"type":"string"},"message":{"type":"string"},"retryable":{"type":"boolean"},"retryAfter":{"type":"number"}}}}},
 "Instrument": {"type":"object","required":["symbol","assetClass"],"properties":{"symbol":{"type":"string","examples":["AAPL","EUR/USD","BTC/USD"]},"assetClass":ref("AssetClass"),"exchange":{"type":"string"},"name":{"type":"string"},"currency":{"type":"string"},"brokerKey":{"type":"object","additionalProperties":{"type":"string"}}}},
 "InstrumentReference": {"type":"object","required":["symbol"],"properties":{"symbol":{"type":"string","maxLength":32},"assetClass":ref("AssetClass")}},
 "Capabilities": {"type":"object","required":["operations","assetClasses","orderTypes","timeInForce","notes"],"properties":{
    "operations":{"type":"object","additionalProperties":ref("Support")},"assetClasses":{"type":"array","items":ref("AssetClass")},
    "orderTypes":{"type":"array","items":ref("OrderType")},"timeInForce":{"type":"array","items":ref("TimeInForce")},"notes":{"type":"array","items":{"type":"string"}}}},
 "Broker": {"type":"object","required":["kind","displayName","capabilities","credentialKeys","knownBaseURLs"],"properties":{"kind":ref("BrokerKind"),"displayName":{"type":"string"},"capabilities":ref("Capabilities"),"credentialKeys":{"type":"array","items":{"type":"string"}},"knownBaseURLs":{"type":"object","additionalProperties":{"type":"string"}}}},
 "Connection": {"type":"object","required":["id","tenantId","broker","displayName","baseURL","settings","status","createdAt","updatedAt"],"properties":{
    "id":{"type":"string"},"tenantId":{"type":"string"},"broker":ref("BrokerKind"),"displayName":{"type":"string"},"baseURL":{"type":"string"},
    "settings":{"type":"object","additionalProperties":{"type":"string"}},"status":ref("ConnectionStatus"),"statusDetail":{"type":"object","additionalProperties":{"type":"string"}},"createdAt":ts,"updatedAt":ts}},
 "LinkConnection": {"type":"object","required":["broker"],"properties":{"broker":ref("BrokerKind"),"displayName":{"type":"string","maxLength":100},"baseURL":{"type":"string","maxLength":2048,"description":"http(s) URL of the broker, or sandbox://<broker> for the built-in sandbox."},"settings":{"type":"object","additionalProperties":{"type":"string"}},"credentials":{"type":"object","additionalProperties":{"type":"string"},"description":"Secrets; stored encrypted, never returned."}}},
 "PendingLink": {"type":"object","required":["connection","popupURL"],"properties":{"connection":ref("Connection"),"popupURL":{"type":"string","description":"Open it in the user's browser; the broker's login page sends the browser back to /v1/connections/{id}/oauth/callback."}}},
 "Challenge": {"type":"object","required":["question","options"],"properties":{"question":{"type":"string"},"options":{"type":"array","items":{"type":"string"}}}},
 "AuthenticationReport": {"type":"object","required":["connection","broker","status"],"properties":{"connection":{"type":"string"},"broker":ref("BrokerKind"),"status":enum("active","challenge_required","relink_required","error"),"challenge":ref("Challenge"),"error":{"type":"object","properties":{"code":{"type":"string"},"message":{"type":"string"},"retryable":{"type":"boolean"}}}}},
 "ConnectionExport": {"type":"object","required":["bundle","key","count"],"properties":{"bundle":{"type":"string","description":"base64 of the AES-GCM sealed connections, credentials included."},"key":{"type":"string","description":"base64 of the one-time key that opens the bundle; not stored anywhere."},"count":{"type":"integer"}}},
 "Client": {"type":"object","required":["id","connectionId","broker"],"properties":{"id":{"type":"string"},"connectionId":{"type":"string"},"broker":ref("BrokerKind"),"name":{"type":"string"},"defaultAccountId":{"type":"string"},"defaultCurrency":{"type":"string"}}},
 "Account": {"type":"object","required":["id","connectionId","broker","currency","tradable"],"properties":{"id":{"type":"string"},"connectionId":{"type":"string"},"broker":ref("BrokerKind"),"name":{"type":"string"},"currency":{"type":"string"},"tradable":{"type":"boolean"},"status":{"type":"string"},"brokerKey":{"type":"string"}}},
 "Balance": {"type":"object","required":["connectionId","accountId","currency","total","available","held"],"properties":{"connectionId":{"type":"string"},"accountId":{"type":"string"},"currency":{"type":"string"},"total":ref("Decimal"),"available":ref("Decimal"),"held":ref("Decimal"),"buyingPower":ref("Decimal"),"accountValue":ref("Decimal"),"marginAvailable":ref("Decimal"),"marginUtilizationPct":ref("Decimal"),"asOf":ts}},
 "Position": {"type":"object","required":["connectionId","accountId","instrument","quantity","currency"],"properties":{"connectionId":{"type":"string"},"accountId":{"type":"string"},"instrument":ref("Instrument"),"quantity":ref("Decimal"),"averagePrice":ref("Decimal"),"costBasis":ref("Decimal"),"marketValue":ref("Decimal"),"unrealizedPnl":ref("Decimal"),"lastPrice":ref("Decimal"),"currency":{"type":"string"},"asOf":ts}},
 "Watchlist": {"type":"object","required":["id","name","instruments"],"properties":{"id":{"type":"string"},"name":{"type":"string"},"instruments":{"type":"array","items":ref("Instrument")},"connectionId":{"type":"string","description":"Absent for the gateway's own watchlists."},"createdAt":ts,"updatedAt":ts}},
 "Verifier": {"type":"object","required":["oAuthVerifier"],"properties":{"oAuthVerifier":{"type":"string","maxLength":2048}}},
 "ChallengeAnswer": {"type":"object","required":["answer"],"properties":{"answer":{"type":"string","maxLength":256}}},
 "ImportConnections": {"type":"object","required":["bundle","key"],"properties":{"bundle":{"type":"string"},"key":{"type":"string"}}},
 "WatchlistInput": {"type":"object","properties":{"name":{"type":"string","maxLength":100},"instruments":{"type":"array","maxItems":200,"items":ref("InstrumentReference")},"connectionId":{"type":"string","description":"Create the list at this connection's broker instead of in the gateway (POST only)."}}},
 "CandleInterval": enum("1m","5m","15m","30m","1h","4h","1d","1w"),
 "Candle": {"type":"object","required":["time","open","high","low","close"],"properties":{"time":ts,"open":ref("Decimal"),"high":ref("Decimal"),"low":ref("Decimal"),"close":ref("Decimal"),"volume":ref("Decimal")}},
 "CandleSeries": {"type":"object","required":["instrument","interval","candles"],"properties":{"instrument":ref("Instrument"),"connectionId":{"type":"string"},"interval":ref("CandleInterval"),"candles":{"type":"array","items":ref("Candle")}}},
 "Quote": {"type":"object","required":["instrument"],"properties":{"instrument":ref("Instrument"),"connectionId":{"type":"string"},"bid":ref("Decimal"),"ask":ref("Decimal"),"last":ref("Decimal"),"open":ref("Decimal"),"high":ref("Decimal"),"low":ref("Decimal"),"previousClose":ref("Decimal"),"netChange":ref("Decimal"),"percentChange":ref("Decimal"),"volume":ref("Decimal"),"time":ts}},
 "Order": {"type":"object","required":["id","clientOrderId","connectionId","broker","accountId","instrument","side","type","timeInForce","quantity","status","filledQuantity"],"properties":{
    "id":{"type":"string"},"brokerOrderId":{"type":"string"},"clientOrderId":{"type":"string"},"connectionId":{"type":"string"},"broker":ref("BrokerKind"),"accountId":{"type":"string"},
    "instrument":ref("Instrument"),"side":ref("OrderSide"),"type":ref("OrderType"),"timeInForce":ref("TimeInForce"),"quantity":ref("Decimal"),"limitPrice":ref("Decimal"),"stopPrice":ref("Decimal"),
    "status":ref("OrderStatus"),"filledQuantity":ref("Decimal"),"averageFillPrice":ref("Decimal"),"createdAt":ts,"updatedAt":ts,"expiresAt":ts,"brokerStatus":{"type":"string"}}},
 "OrderRequest": {"type":"object","required":["connectionId","accountId","symbol","side","type","quantity"],"properties":{
    "connectionId":{"type":"string"},"accountId":{"type":"string"},"symbol":{"type":"string","maxLength":32},"assetClass":ref("AssetClass"),"side":ref("OrderSide"),"type":ref("OrderType"),
    "timeInForce":ref("TimeInForce"),"quantity":ref("DecimalInput"),"limitPrice":ref("DecimalInput"),"stopPrice":ref("DecimalInput"),"clientOrderId":{"type":"string","maxLength":48},"expiresAt":ts,"previewId":{"type":"string"}}},
 "OrderModification": {"type":"object","properties":{"quantity":ref("DecimalInput"),"limitPrice":ref("DecimalInput"),"stopPrice":ref("DecimalInput"),"timeInForce":ref("TimeInForce"),"type":ref("OrderType")}},
 "OrderPreview": {"type":"object","required":["id","expiresAt","request","currency","warnings"],"properties":{"id":{"type":"string"},"expiresAt":ts,"request":ref("OrderRequest"),"currency":{"type":"string"},"estimatedPrice":ref("Decimal"),"estimatedCost":ref("Decimal"),"estimatedCommission":ref("Decimal"),"buyingPowerAfter":ref("Decimal"),"warnings":{"type":"array","items":{"type":"string"}},"brokerPreviewId":{"type":"string"}}},
}
def fan(item): return {"type":"object","required":["data","sources","partial"],"properties":{"data":{"type":"array","items":ref(item)},"sources":{"type":"array","items":ref("SourceReport")},"partial":{"type":"boolean"}}}
def data(s): return {"type":"object","required":["data"],"properties":{"data":s}}
def resp(desc, schema): return {"description": desc, "content": {"application/json": {"schema": schema}}}
err = lambda d: resp(d, ref("Error"))
P = lambda name, desc, required=False, schema=None: {"name": name, "in": "query", "required": required, "description": desc, "schema": schema or {"type":"string"}}
sel = [P("connection","Only this connection."), P("broker","Only connections of this broker kind."), P("account","Only this account id.")]
idp = {"name":"id","in":"path","required":True,"schema":{"type":"string"}}
common = {"401": err("No or invalid API key."), "400": err("Malformed request.")}
def op(summary, responses, params=None, body=None, opid=None):
    o = {"summary": summary, "operationId": opid, "responses": {**responses, **common}}
    if params: o["parameters"] = params
    if body: o["requestBody"] = {"required": True, "content": {"application/json": {"schema": ref(body)}}}
    return o
fanresp = lambda item: {"200": resp("Everything that arrived in time, with a status line per source; `partial` is true when any source failed.", fan(item))}
paths = {
 "/healthz": {"get": {"summary":"Liveness","operationId":"health","security":[],"responses":{"200":resp("The gateway is up.",{"type":"object","properties":{"status":{"type":"string"}}})}}},
 "/openapi.json": {"get": {"summary":"This document","operationId":"openapi","security":[],"responses":{"200":{"description":"The OpenAPI document.","content":{"application/json":{"schema":{"type":"object"}}}}}}},
 "/v1/brokers": {"get": op("Broker kinds and their capabilities", {"200": resp("The adapter kinds.", data({"type":"array","items":ref("Broker")}))}, opid="listBrokers")},
 "/v1/connections": {
    "get": op("The tenant's connections", {"200": resp("Connections, oldest first; secrets are never returned.", data({"type":"array","items":ref("Connection")}))}, opid="listConnections"),
    "post": op("Link a connection (credentials are checked against the broker first; brokers that link by a login popup answer 202 with the popup URL)", {"201": resp("Linked.", data(ref("Connection"))), "202": resp("An interactive link has started: send the user to popupURL.", data(ref("PendingLink"))), "422": err("Unknown broker, missing or refused credentials, bad base URL."), "413": err("Body too large.")}, body="LinkConnection", opid="linkConnection")},
 "/v1/connections/authenticate": {"post": op("Authenticate every interactively linked connection at once (TradeIt's 'authenticate all')", {"200": resp("One outcome per connection.", data({"type":"array","items":ref("AuthenticationReport")}))}, opid="authenticateAll")},
 "/v1/connections/export": {"post": op("Export the tenant's connections for another gateway (sealed; the key is returned once)", {"200": resp("The sealed bundle and its key.", data(ref("ConnectionExport")))}, opid="exportConnections")},
 "/v1/connections/import": {"post": op("Import connections exported by another gateway, so users need not link again", {"201": resp("The new connections.", data({"type":"array","items":ref("Connection")})), "422": err("The key does not open the bundle.")}, body="ImportConnections", opid="importConnections")},
 "/v1/connections/{id}/link": {"parameters":[idp], "post": op("Complete an interactive link with the broker's verifier", {"200": resp("The linked connection.", data(ref("Connection"))), "404": err("No such connection.")}, body="Verifier", opid="completeLink")},
 "/v1/connections/{id}/relink": {"parameters":[idp], "post": op("Start a token update (relink) of an interactive link", {"200": resp("Send the user to popupURL.", data(ref("PendingLink"))), "404": err("No such connection."), "501": err("The broker links with credentials.")}, opid="relink")},
 "/v1/connections/{id}/authenticate": {"parameters":[idp], "post": op("Open a broker session now", {"200": resp("The outcome.", data(ref("AuthenticationReport"))), "404": err("No such connection.")}, opid="authenticateConnection")},
 "/v1/connections/{id}/challenge": {"parameters":[idp], "post": op("Answer the broker's security question", {"200": resp("The outcome (possibly another question).", data(ref("AuthenticationReport"))), "409": err("No question is waiting."), "404": err("No such connection.")}, body="ChallengeAnswer", opid="answerChallenge")},
 "/v1/connections/{id}/oauth/callback": {"parameters":[idp], "get": {"summary":"Where the broker's login page returns the user's browser (no API key: the link's state nonce)","operationId":"linkCallback","security":[],"parameters":[P("oAuthVerifier","The broker's verifier.",True), P("state","The nonce issued with the popup URL.",True)],"responses":{"200":{"description":"An HTML page saying the link is complete.","content":{"text/html":{"schema":{"type":"string"}}}},"400":err("Missing verifier or state."),"403":err("The state belongs to no link in progress.")}}},
 "/v1/connections/{id}": {"parameters":[idp],
    "get": op("One connection", {"200": resp("The connection.", data(ref("Connection"))), "404": err("No such connection.")}, opid="getConnection"),
    "delete": op("Unlink a connection", {"204": {"description":"Unlinked."}, "404": err("No such connection.")}, opid="deleteConnection")},
 "/v1/clients": {"get": op("Account holders across connections", fanresp("Client"), sel, opid="listClients")},
 "/v1/accounts": {"get": op("Accounts across connections", fanresp("Account"), sel, opid="listAccounts")},
 "/v1/balances": {"get": op("Balances per account and currency", fanresp("Balance"), sel, opid="listBalances")},
 "/v1/positions": {"get": op("Net positions across connections", fanresp("Position"), sel, opid="listPositions")},
 "/v1/quotes": {"get": op("Quotes for symbols from every connection that has them", {**fanresp("Quote"), "400": err("Missing or bad symbols.")}, sel + [P("symbols","Comma-separated canonical symbols (AAPL,EUR/USD).", True), P("assetClass","The asset class of every symbol, when ambiguous.", schema=ref("AssetClass"))], opid="listQuotes")},
 "/v1/candles": {"get": op("Price chart candles for one symbol from every connection that has them (oldest first; FX prices are mids)", {**fanresp("CandleSeries"), "400": err("Missing or bad symbol, interval or count.")}, sel + [P("symbol","One canonical symbol (EUR/USD).", True), P("interval","Candle width (default 1h).", schema=ref("CandleInterval")), P("count","1 to 1200 (default 100).", schema={"type":"integer","minimum":1,"maximum":1200}), P("assetClass","The symbol's asset class, when ambiguous.", schema=ref("AssetClass"))], opid="listCandles")},
 "/v1/instruments": {"get": op("Search instruments", fanresp("Instrument"), sel + [P("q","A symbol or part of a name.", True), P("assetClass","Only this asset class.", schema=ref("AssetClass"))], opid="searchInstruments")},
 "/v1/orders": {
    "get": op("Orders across connections", fanresp("Order"), sel + [P("status","open (default), closed or all.", schema=enum("open","closed","all")), P("symbols","Comma-separated symbols."), P("limit","1 to 500 (default 100).", schema={"type":"integer","minimum":1,"maximum":500}), P("after","Submitted after (RFC 3339).", schema=ts), P("until","Submitted until (RFC 3339).", schema=ts)], opid="listOrders"),
    "post": {**op("Place an order, at most once per idempotency key", {"201": resp("The broker accepted the order (also for a repeat of the same key and body; then the header Idempotent-Replayed is true).", data(ref("Order"))), "202": resp("The outcome is unknown (timeout, dropped connection, broker 5xx): the order has status unknown and is being reconciled. Read it with GET /v1/orders/{id}; never place it again.", data(ref("Order"))), "422": err("The order breaks a rule (field and reason in details), the broker rejected it, or no idempotency key was given."), "409": err("The idempotency key was used with a different order."), "413": err("Body too large.")}, body="OrderRequest", opid="placeOrder"),
       "parameters": [{"name":"Idempotency-Key","in":"header","required":False,"description":"Makes the placement idempotent for 24 hours (per tenant). Required unless the body has clientOrderId, which then serves as the key.","schema":{"type":"string","maxLength":128}}]}},
 "/v1/orders/preview": {"post": op("Preview an order: estimated cost, commission, buying power after, warnings", {"200": resp("The preview; place it by sending previewId with the order.", data(ref("OrderPreview"))), "422": err("The order breaks a rule.")}, body="OrderRequest", opid="previewOrder")},
 "/v1/orders/{id}": {"parameters":[idp],
    "get": op("One order, as the broker knows it now", {"200": resp("The order.", data(ref("Order"))), "404": err("No such order.")}, opid="getOrder"),
    "patch": op("Change quantity, prices, type or time in force", {"200": resp("The changed order.", data(ref("Order"))), "404": err("No such order."), "409": err("The order is no longer working."), "422": err("Bad change."), "501": err("The broker cannot change orders.")}, body="OrderModification", opid="modifyOrder"),
    "delete": op("Cancel an order", {"200": resp("The order after cancelling.", data(ref("Order"))), "404": err("No such order."), "409": err("The order already filled or ended; the message says its final state.")}, opid="cancelOrder")},
 "/v1/orders/{id}/events": {"parameters":[idp], "get": op("The order's journal: every intent, outcome and status change, oldest first", {"200": resp("The events.", data({"type":"array","items":ref("OrderEvent")})), "404": err("No journaled order (orders placed outside the gateway have no journal).")}, opid="listOrderEvents")},
 "/v1/watchlists": {
    "get": op("The gateway's own watchlists and each broker's", fanresp("Watchlist"), sel, opid="listWatchlists"),
    "post": op("Create a watchlist (in the gateway, or at a broker with connectionId)", {"201": resp("Created.", data(ref("Watchlist"))), "409": err("A watchlist of that name exists."), "422": err("Bad name or instruments.")}, body="WatchlistInput", opid="createWatchlist")},
 "/v1/watchlists/{id}": {"parameters":[idp],
    "get": op("One watchlist", {"200": resp("The watchlist.", data(ref("Watchlist"))), "404": err("No such watchlist.")}, opid="getWatchlist"),
    "put": op("Rename or replace the instruments of a watchlist", {"200": resp("Updated.", data(ref("Watchlist"))), "404": err("No such watchlist."), "409": err("Name taken."), "422": err("Bad input.")}, body="WatchlistInput", opid="updateWatchlist"),
    "delete": op("Delete a watchlist", {"204": {"description":"Deleted."}, "404": err("No such watchlist.")}, opid="deleteWatchlist")},
}
doc = {"openapi": "3.1.0",
 "info": {"title": "BrokerGateway unified API", "version": "1.0.0", "description": "One JSON API over many brokers. Fan-out reads answer 200 with what arrived in time and a status line per source. Money and quantities are decimal strings; timestamps are RFC 3339."},
 "servers": [{"url": "http://127.0.0.1:8080"}],
 "security": [{"apiKey": []}],
 "paths": paths,
 "components": {"schemas": schemas, "securitySchemes": {"apiKey": {"type": "http", "scheme": "bearer", "description": "Authorization: Bearer <tenant API key>"}}}}
import sys
json.dump(doc, open(sys.argv[1], "w"), indent=2, sort_keys=False)
print("paths", len(paths))
