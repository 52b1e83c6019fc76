#!/usr/bin/env bash
# The deployment files, checked as far as a machine without a Docker engine can (issue 31; README "Deploying"):
#
#  1. compose.yaml validates (`docker-compose config -q`), and so does deploy/kubernetes/ (each manifest and the
#     kustomization's rendering, by kubernetes-validate in strict mode, offline schemas).
#  2. The gateway built with the Dockerfile's linking flags (`--static-swift-stdlib`; a debug build: a release build
#     does not fit CI's time) starts on a minimal Debian root file system (debootstrap --variant=minbase, plus only the
#     packages whose libraries `ldd` says the binary loads, and the CA certificates and time zones the image has) as a
#     non-root user (uid 10001, as in the image), with the root file system mounted read-only and only the data folder
#     writable (a private mount namespace: a read-only bind of the root file system, a writable bind of the data folder
#     on its /data, as `docker run --read-only -v data:/data` gives; /tmp stays read-only too, so nothing is written
#     there either). It must answer /healthz (and `gateway healthcheck`, the image's HEALTHCHECK, run inside), become
#     ready on /readyz, serve its bundled resources (/openapi.json) and the demo tenant's reads, keep its sandboxes' state
#     in the data folder, and exit 0 on SIGTERM.
#
# Runs as root (debootstrap, chroot, mount namespaces), as CI does. Cleans up on every exit path; prints the gateway's
# log when a check fails. DEPLOY_CHECK_MIRROR overrides the Debian mirror.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ]; then
  echo "deploy-check: run as root (debootstrap, chroot and mount namespaces need it)" >&2
  exit 1
fi

started=$(date +%s)
elapsed() { echo "$(($(date +%s) - started))"; }
mirror="${DEPLOY_CHECK_MIRROR:-http://deb.debian.org/debian}"
# The image's user.
uid=10001

work="$(mktemp -d "${TMPDIR:-/tmp}/bg-deploy-check.XXXXXX")"
gateway_pid=""
log="$work/gateway.log"

cleanup() {
  local rc=$?
  # Every step runs, whatever fails (errexit would stop a trap at its first failing command).
  set +e
  if [ -n "$gateway_pid" ] && kill -0 "$gateway_pid" 2>/dev/null; then
    kill -KILL "$gateway_pid" 2>/dev/null || true
    wait "$gateway_pid" 2>/dev/null || true
  fi
  # The gateway's mounts lived in its own namespace and went with it; debootstrap mounts /proc (and more) in the
  # target while it installs and leaves them if it fails.
  findmnt -rn -o TARGET | grep -F "$work/" | sort -r | while read -r target; do umount -l "$target"; done
  rm -rf --one-file-system "$work"
  exit "$rc"
}
trap cleanup EXIT

fail() {
  echo "deploy-check: $*" >&2
  if [ -s "$log" ]; then
    echo "---- the gateway's log (last 80 lines) ----" >&2
    tail -n 80 "$log" >&2
  fi
  exit 1
}

echo "-- tools: debootstrap, docker-compose (Debian's), kubernetes-validate (deploy/requirements.txt)"
missing=()
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
venv=.venv-deploy
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
for attempt in 1 2 3; do
  if "$venv/bin/pip" install -q --disable-pip-version-check -r deploy/requirements.txt; then break; fi
  if [ "$attempt" = 3 ]; then echo "pip install failed three times" >&2; exit 1; fi
  sleep 5
done

echo "-- compose.yaml ($(elapsed) s)"
docker-compose -f compose.yaml config -q

echo "-- deploy/kubernetes ($(elapsed) s)"
manifests=()
for file in deploy/kubernetes/*.yaml; do
  [ "$(basename "$file")" = kustomization.yaml ] || manifests+=("$file")
done
"$venv/bin/kubernetes-validate" --strict --quiet "${manifests[@]}"
if command -v kubectl >/dev/null 2>&1; then
  # What `kubectl apply -k` would send: every manifest listed, the namespace and labels applied.
  kubectl kustomize deploy/kubernetes >"$work/kubernetes.yaml"
  "$venv/bin/kubernetes-validate" --strict --quiet "$work/kubernetes.yaml"
  rendered=$(grep -c '^kind:' "$work/kubernetes.yaml")
  [ "$rendered" = "${#manifests[@]}" ] || fail "the kustomization renders $rendered resources, deploy/kubernetes holds ${#manifests[@]}"
else
  echo "(no kubectl here: the kustomization is not rendered)"
fi

echo "-- the gateway with the Dockerfile's linking flags: swift build --static-swift-stdlib, debug ($(elapsed) s)"
# A scratch folder of its own, although that compiles the gateway's whole graph again: in the ordinary .build the
# flag mostly only relinks, but a module it does recompile gets static Foundation's autolink entries
# (-lCoreFoundation, -l_FoundationCShims, ...), after which an ordinary `swift build` there fails to link (seen
# 2026-11-28: swift-configuration's module, recompiled by a static build, broke the next `swift build --build-tests`).
build_started=$(date +%s)
swift build --static-swift-stdlib --scratch-path .build-static --product gateway
bin="$(swift build --static-swift-stdlib --scratch-path .build-static --show-bin-path)"
echo "-- built in $(($(date +%s) - build_started)) s"

# The packages of the libraries the binary loads, as this Debian host (the same release) names them.
packages=(ca-certificates tzdata)
while read -r library; do
  [ -n "$library" ] || continue
  owner=""
  for candidate in "$library" "$(readlink -f "$library")" "/usr$library"; do
    owner=$(dpkg -S "$candidate" 2>/dev/null | head -n 1 | cut -d: -f1) && [ -n "$owner" ] && break
  done
  [ -n "$owner" ] || fail "no Debian package holds $library, which the gateway loads"
  case " ${packages[*]} " in *" $owner "*) ;; *) packages+=("$owner") ;; esac
done < <(ldd "$bin/gateway" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }')
if ldd "$bin/gateway" | grep -q 'not found'; then fail "the gateway links a library this host lacks: $(ldd "$bin/gateway" | grep 'not found')"; fi
echo "-- what the binary loads: $(ldd "$bin/gateway" | awk '$2 == "=>" { print $1 }' | tr '\n' ' ')"
echo "-- their packages, and the image's data packages: ${packages[*]}"

echo "-- debootstrap --variant=minbase bookworm from $mirror ($(elapsed) s)"
rootfs="$work/rootfs"
debootstrap_started=$(date +%s)
if ! debootstrap --variant=minbase --include="$(IFS=,; echo "${packages[*]}")" bookworm "$rootfs" "$mirror" \
  >"$work/debootstrap.log" 2>&1; then
  tail -n 40 "$work/debootstrap.log" >&2
  fail "debootstrap failed"
fi
echo "-- debootstrap took $(($(date +%s) - debootstrap_started)) s; the root file system is $(du -sm --one-file-system "$rootfs" | cut -f1) MiB"

# The image's /app: the binary, its resource bundles and the static backtracer, owned by root, not writable.
install -d -m 0755 "$rootfs/app"
install -m 0755 "$bin/gateway" "$rootfs/app/gateway"
find "$bin" -maxdepth 1 -name '*.resources' -exec cp -R {} "$rootfs/app/" \;
backtracer="$(dirname "$(readlink -f "$(command -v swift)")")/../libexec/swift/linux/swift-backtrace-static"
if [ -x "$backtracer" ]; then install -m 0755 "$backtracer" "$rootfs/app/swift-backtrace-static"; fi
chmod -R a-w,a+rX "$rootfs/app"
chroot "$rootfs" groupadd --system --gid "$uid" gateway
chroot "$rootfs" useradd --system --uid "$uid" --gid gateway --no-create-home --home-dir /nonexistent \
  --shell /usr/sbin/nologin gateway
install -d -m 0755 "$rootfs/data"
missing_libraries=$(chroot "$rootfs" ldd /app/gateway | grep 'not found' || true)
[ -z "$missing_libraries" ] || fail "on the Debian root file system the gateway lacks: $missing_libraries"

# The data folder: a volume outside the root file system, the user's own.
data="$work/data"
install -d -o "$uid" -g "$uid" -m 0700 "$data"
mountpoint="$work/root"
mkdir "$mountpoint"

echo "-- gateway serve as uid $uid, root file system read-only, /data writable ($(elapsed) s)"
# unshare without --fork execs its command, so $! is the gateway's own pid once chroot has exec'd it.
# shellcheck disable=SC2016
unshare --mount --propagation private -- bash -c '
  set -e
  rootfs=$1 root=$2 data=$3 uid=$4
  mount --bind "$rootfs" "$root"
  mount -o remount,bind,ro "$root"
  mount --bind "$data" "$root/data"
  mount --rbind /proc "$root/proc"
  mount --rbind /sys "$root/sys"
  exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/nonexistent \
    SWIFT_BACKTRACE=enable=yes,sanitize=yes,threads=all,images=all,interactive=no,swift-backtrace=/app/swift-backtrace-static \
    BROKERGATEWAY_HOST=127.0.0.1 BROKERGATEWAY_PORT=0 BROKERGATEWAY_DATA_DIR=/data \
    chroot --userspec="$uid:$uid" "$root" /app/gateway serve
' deploy-check "$rootfs" "$mountpoint" "$data" "$uid" >"$log" 2>&1 </dev/null &
gateway_pid=$!
serve_started=$(date +%s)

# Where it serves: the "BrokerGateway is serving" line names the port it picked (bound: 180 s, a debug build on a
# loaded machine; it answers in a few seconds on a quiet one).
url=""
for _ in $(seq 1800); do
  url=$(sed -n '/BrokerGateway is serving/s/.*url=\([^ ]*\).*/\1/p' "$log" | head -n 1)
  [ -z "$url" ] || break
  kill -0 "$gateway_pid" 2>/dev/null || fail "the gateway exited before serving"
  sleep 0.1
done
[ -n "$url" ] || fail "the gateway did not say where it serves within 180 s"

status() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$@" || true; }

healthz=""
for _ in $(seq 300); do
  healthz=$(status "$url/healthz")
  [ "$healthz" = 200 ] && break
  kill -0 "$gateway_pid" 2>/dev/null || fail "the gateway exited before /healthz answered"
  sleep 0.1
done
[ "$healthz" = 200 ] || fail "/healthz answered $healthz, not 200, within 30 s"
echo "-- /healthz 200 $(($(date +%s) - serve_started)) s after the start"

# The image's HEALTHCHECK, run as `docker exec` would: in the gateway's mount namespace, as its user.
nsenter --mount="/proc/$gateway_pid/ns/mnt" -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  chroot --userspec="$uid:$uid" "$mountpoint" /app/gateway healthcheck --url "$url/healthz" ||
  fail "gateway healthcheck failed inside the root file system"

readyz=""
for _ in $(seq 600); do
  readyz=$(status "$url/readyz")
  [ "$readyz" = 200 ] && break
  kill -0 "$gateway_pid" 2>/dev/null || fail "the gateway exited before it was ready"
  sleep 0.1
done
[ "$readyz" = 200 ] || fail "/readyz answered $readyz, not 200, within 60 s: $(curl -s --max-time 10 "$url/readyz")"
echo "-- /readyz 200 $(($(date +%s) - serve_started)) s after the start"

# The resource bundles beside the binary (Bundle.module finds no build folder in this root file system).
[ "$(status "$url/openapi.json")" = 200 ] || fail "/openapi.json did not answer 200: the resource bundles are not found"
# The demo tenant's read through the in-process sandbox: SQLite and the sandboxes' state in /data.
[ -s "$data/demo-api-key" ] || fail "no demo key in the data folder"
positions=$(status -H "Authorization: Bearer $(tr -d '\n' <"$data/demo-api-key")" "$url/v1/positions")
[ "$positions" = 200 ] || fail "GET /v1/positions with the demo key answered $positions"

echo "-- SIGTERM ($(elapsed) s)"
stop_started=$(date +%s)
kill -TERM "$gateway_pid"
# Nothing is in flight, so it stops at once; the bound is the image's: --shutdown-grace-ms (20 s), then 10 s more.
for _ in $(seq 400); do
  kill -0 "$gateway_pid" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$gateway_pid" 2>/dev/null; then fail "the gateway was still running 40 s after SIGTERM"; fi
exit_status=0
wait "$gateway_pid" || exit_status=$?
gateway_pid=""
# Strict: with nothing in flight it stops at once. Before ef855c7 (sandboxes waiting for a pool's spare connection's
# first request) it was ended by the backstop, SIGILL after the grace and 10 s more, in 2 of 7 runs here.
[ "$exit_status" = 0 ] || fail "the gateway exited with status $exit_status after SIGTERM"
echo "-- exited 0 $(($(date +%s) - stop_started)) s after SIGTERM"
if grep -qi 'read-only file system' "$log"; then fail "the gateway tried to write outside the data folder"; fi

# What it wrote: the data folder only (the rest was read-only), the sandboxes' state among it.
ls "$data"/sandboxes/*.json >/dev/null 2>&1 || fail "the sandboxes kept no state in the data folder"
echo "-- the data folder after the run: $(cd "$data" && find . -mindepth 1 -maxdepth 2 | sort | tr '\n' ' ')"
echo "-- deploy check passed in $(elapsed) s"
