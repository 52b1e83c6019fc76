# BrokerGateway's container image, in the Hummingbird template's convention: a Swift build stage, and a small Ubuntu
# run stage holding the binary (the Swift runtime linked in statically), its resources and the libraries it links.
#
#   docker build -t brokergateway .
#   docker run --read-only --tmpfs /tmp -v gateway-data:/data -p 8080:8080 \
#     -e BROKERGATEWAY_MASTER_KEY_FILE=/run/secrets/master_key ... brokergateway
#
# The image: user `gateway` (uid and gid 10001, numeric so that Kubernetes' runAsNonRoot can check it), port 8080 on
# every interface, the data folder /data (a volume; the only place it writes besides the database), a read-only root
# file system welcome (give /tmp a tmpfs for SQLite's occasional temporary files), HEALTHCHECK on /healthz through
# `gateway healthcheck` (no curl in the image), readiness on /readyz. README "Deploying" has the rest.
# CI cannot run a Docker engine: .ci/deploy-check.sh builds the binary with this file's linking flags and starts it on
# a minimal Debian root file system as a non-root user with only the data folder writable.

# ================================
# Build image
# ================================
FROM swift:6.3-noble AS build

# GRDB links the system's SQLite.
RUN export DEBIAN_FRONTEND=noninteractive DEBCONF_NONINTERACTIVE_SEEN=true \
    && apt-get -q update \
    && apt-get -q dist-upgrade -y \
    && apt-get -q install -y --no-install-recommends libsqlite3-dev \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /build

# The dependencies first: this layer is reused while Package.swift does not change.
COPY ./Package.* ./
RUN swift package resolve

COPY . .

# The Swift standard library and Foundation linked in statically: the run image needs no Swift runtime.
RUN swift build -c release --static-swift-stdlib --product gateway

WORKDIR /staging

# The executable, the static crash backtracer, and the resource bundles SwiftPM puts beside it (GatewayAPI's
# openapi.json, dashboard and docs pages; Bundle.module finds them next to the executable). Nothing here is writable
# by the user the gateway runs as.
RUN bin="$(swift build --package-path /build -c release --show-bin-path)" \
    && cp "$bin/gateway" ./ \
    && cp /usr/libexec/swift/linux/swift-backtrace-static ./ \
    && find -L "$bin/" -maxdepth 1 -regex '.*\.resources$' -exec cp -Ra {} ./ \; \
    && chmod -R a-w,a+rX .

# ================================
# Run image
# ================================
FROM ubuntu:noble

# What the binary loads that the base image lacks (ldd on a --static-swift-stdlib build: libsqlite3; glibc, libstdc++,
# libgcc_s and zlib are there already), the CA certificates its TLS to brokers and PostgreSQL verifies against, and the
# time zone database (the sandboxes' New York market hours).
RUN export DEBIAN_FRONTEND=noninteractive DEBCONF_NONINTERACTIVE_SEEN=true \
    && apt-get -q update \
    && apt-get -q dist-upgrade -y \
    && apt-get -q install -y --no-install-recommends libsqlite3-0 ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/*

# A system user without a home or a shell; the data folder is its own, mode 0700.
RUN groupadd --system --gid 10001 gateway \
    && useradd --system --uid 10001 --gid gateway --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin gateway \
    && install -d -o gateway -g gateway -m 0700 /data

WORKDIR /app
COPY --from=build /staging /app

ENV SWIFT_BACKTRACE=enable=yes,sanitize=yes,threads=all,images=all,interactive=no,swift-backtrace=/app/swift-backtrace-static \
    BROKERGATEWAY_HOST=0.0.0.0 \
    BROKERGATEWAY_PORT=8080 \
    BROKERGATEWAY_DATA_DIR=/data

VOLUME ["/data"]
USER 10001:10001
EXPOSE 8080

# `gateway healthcheck` GETs http://127.0.0.1:$BROKERGATEWAY_PORT/healthz and exits 0 on a 200, else 1.
HEALTHCHECK --interval=15s --timeout=6s --start-period=60s --retries=3 CMD ["/app/gateway", "healthcheck", "--timeout-ms", "5000"]

# SIGTERM stops the gateway within --shutdown-grace-ms (20 s) plus 10 s: give `docker stop` more (`-t 35`,
# compose's stop_grace_period, Kubernetes' terminationGracePeriodSeconds).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/gateway"]
CMD ["serve"]
