#!/usr/bin/env bash
# CI for Examples/Kraken, the fifth broker added from outside BrokerGateway (issue 30): build the package and run its
# tests (contract cases, the adapter against its sandbox, the gateway serving it through /v1, and ccxt's real `kraken`
# class against the sandbox when BROKERGATEWAY_FIDELITY_PYTHON names a python with ccxt 4.5.90; `.ci/run` exports it).
# The package has its own .build (it resolves BrokerGateway by path and builds it again in its own folder): the
# seconds are printed so that the cost stays visible.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Examples/Kraken: swift build, timed"
started=$(date +%s)
swift build --package-path Examples/Kraken --build-tests
echo "== Examples/Kraken: swift build: $(($(date +%s) - started)) s"

echo "== Examples/Kraken: swift test${BROKERGATEWAY_FIDELITY_PYTHON:+ (ccxt fidelity with $BROKERGATEWAY_FIDELITY_PYTHON)}"
BROKERGATEWAY_FIDELITY_PYTHON="${BROKERGATEWAY_FIDELITY_PYTHON:-}" swift test --package-path Examples/Kraken --skip-build
