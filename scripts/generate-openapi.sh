#!/usr/bin/env bash
# Regenerates the OpenAPI code committed under Sources/GatewayAPI/Generated (types + server) and
# Sources/BrokerGatewayClient/Generated (types + client) from Sources/GatewayAPI/openapi.json and each target's
# openapi-generator-config.yaml. Run it after changing either, and commit what it writes.
#
# Why committed and not a build plugin: swift-openapi-generator's build plugin makes every fresh build compile the
# generator and its dependencies (OpenAPIKit, Yams and libyaml, swift-algorithms...) before the first line of the
# gateway. The generator's documentation names running its CLI ahead of time and committing the output as the way
# to avoid that ("Manually invoking the generator CLI" in swift-openapi-generator's docs).
#
# The output is byte for byte the generator's (its files carry `// swift-format-ignore-file`, asked for in the
# configs' additionalFileComments, so the formatter leaves them alone). Next to it, Generated/openapi.sha256 records
# the SHA-256 of the inputs and of every generated file; GeneratedOpenAPITests (Tests/GatewayAPITests) recomputes
# them, so a document changed without regenerating, or a generated file edited by hand, fails `swift test`.
#
# The generator is built from source at the pinned version below, in a scratch package under .build/ (SwiftPM
# resolves it the way it resolves the package's own dependencies). OPENAPI_GENERATOR=/path/to/swift-openapi-generator
# uses an already built binary instead: it must be this same version, or the output differs.
set -euo pipefail
cd "$(dirname "$0")/.."

GENERATOR_VERSION=1.14.3

generator="${OPENAPI_GENERATOR:-}"
if [ -z "$generator" ]; then
  tools=".build/openapi-generator-$GENERATOR_VERSION"
  mkdir -p "$tools"
  cat >"$tools/Package.swift" <<EOF
// swift-tools-version:6.0
// Written by scripts/generate-openapi.sh: only to build swift-openapi-generator $GENERATOR_VERSION's CLI.
import PackageDescription

let package = Package(
    name: "OpenAPIGeneratorCLI",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator.git", exact: "$GENERATOR_VERSION")],
    targets: []
)
EOF
  echo "== building swift-openapi-generator $GENERATOR_VERSION (once; kept in $tools)" >&2
  swift build --package-path "$tools" --product swift-openapi-generator >&2
  generator="$(swift build --package-path "$tools" --show-bin-path)/swift-openapi-generator"
fi
if [ ! -x "$generator" ]; then
  echo "generate-openapi.sh: no generator at $generator" >&2
  exit 1
fi

# generate TARGET: the target's openapi.json (GatewayAPI's, or a link to it) and config in, Generated/ out.
generate() {
  local target="Sources/$1"
  local out="$target/Generated"
  rm -rf "$out"
  mkdir -p "$out"
  # The generator prints its whole configuration on every run: shown only when it fails.
  local log
  if ! log=$("$generator" generate "$target/openapi.json" --config "$target/openapi-generator-config.yaml" \
    --output-directory "$out" 2>&1); then
    echo "$log" >&2
    exit 1
  fi
  # The inputs first, then the generated files, each path relative to the target's folder (`sha256sum -c` reads it
  # from there).
  (
    cd "$target"
    {
      sha256sum openapi.json openapi-generator-config.yaml
      find Generated -name '*.swift' | LC_ALL=C sort | xargs sha256sum
    } >Generated/openapi.sha256.tmp
    mv Generated/openapi.sha256.tmp Generated/openapi.sha256
  )
  echo "$out: $(find "$out" -name '*.swift' | wc -l) files"
}

generate GatewayAPI
generate BrokerGatewayClient
