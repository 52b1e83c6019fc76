@_exported public import AlpacaSandbox
// The sandbox as one import: the kit (server, market engine, faults) and every built-in simulator.
// Code that needs only one broker's simulator can import its target (`AlpacaSandbox`, ...) and `SandboxKit` instead.
@_exported public import SandboxKit
@_exported public import SaxoSandbox
@_exported public import TradeItSandbox
@_exported public import TradeOgreSandbox
