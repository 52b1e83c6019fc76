#!/usr/bin/env bash
# Makes compose.yaml's secrets, once, in deploy/compose/secrets/ (a folder only its owner may enter; git ignores it):
# the master, transfer and session keys (32 random bytes each, base64), PostgreSQL's password, and the gateways' config
# file naming the database with that password. An existing file is kept: the master key seals every stored credential,
# and a new one would not open them.
set -euo pipefail
cd "$(dirname "$0")"
umask 077
mkdir -p secrets
chmod 0700 secrets

random() { head -c 32 /dev/urandom | base64; }
make_secret() { # NAME VALUE
  if [ -e "secrets/$1" ]; then
    echo "kept secrets/$1"
    return
  fi
  printf '%s\n' "$2" >"secrets/$1"
  # Readable by the containers' users (the gateway's uid 10001, postgres's 999) through the bind mount; the folder
  # above keeps everyone else on this host out.
  chmod 0444 "secrets/$1"
  echo "made secrets/$1"
}

make_secret master_key "$(random)"
make_secret transfer_key "$(random)"
make_secret session_keys "sk-1=$(random)"
# Letters and digits only: it goes into a URL unescaped.
make_secret postgres_password "$(head -c 48 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 32)"
password="$(tr -d '\n' <secrets/postgres_password)"
make_secret gateway-config.json \
  "{\"databaseUrl\": \"postgres://gateway:${password}@postgres:5432/brokergateway?sslmode=disable\"}"
