# The gateway as a container image (docs/deployment.md). Three stages:
#   build    all dependencies, TypeScript → dist/ and the web cabinet → dist/web/ (no install
#            scripts: tsc needs no native module, esbuild runs from its platform package)
#   deps     production dependencies only, with the toolchain that compiles the SQLite driver
#   runtime  node + deps' node_modules + dist/, bin/, package.json and the example config; no
#            compiler, no TypeScript, ava, tsx or vendor SDKs
# `npm run test:image` (test/install/image-replay.slow.ts) replays the COPY and npm lines of this file in a clean
# directory (no container engine runs on the development machines): keep every step one
# plain instruction it can read (RUN lines other than npm are listed in that test).
FROM node:20-bookworm-slim AS build
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY commands ./commands
COPY migrations ./migrations
COPY web ./web
COPY scripts/build-web.mjs ./scripts/
RUN npm run build:dist

FROM node:20-bookworm-slim AS deps
# sqlite3 builds from source when no prebuilt binary is reachable (install.sh needs the same tools).
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /deps
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    GATEWAY_HOST=0.0.0.0 \
    GATEWAY_PORT=8080 \
    GATEWAY_DATA_DIR=/var/lib/gateway
RUN groupadd --system --gid 10001 gateway && useradd --system --uid 10001 --gid gateway --home-dir /var/lib/gateway --shell /usr/sbin/nologin gateway
RUN mkdir -p /var/lib/gateway && chown gateway:gateway /var/lib/gateway && chmod 0700 /var/lib/gateway
WORKDIR /opt/gateway
COPY package.json package-lock.json ./
COPY --from=deps /deps/node_modules ./node_modules
COPY --from=build /build/dist ./dist
COPY bin ./bin
COPY config/gateway.example.yaml ./config/
# The command manifest: made here, where the commands can be loaded (the build stage has no
# compiled SQLite driver), so the CLI imports only the command it runs (scripts/build-manifest.mjs).
COPY scripts/build-manifest.mjs ./scripts/
RUN npm run --silent build:manifest
USER gateway
# SQLite (when no database URL is set) and the files of storage.blobs kind local live in
# /var/lib/gateway: mount a named volume there (docker run -v gateway-data:/var/lib/gateway,
# docs/deployment.md). No VOLUME instruction: it would give every container an anonymous volume,
# also the serve and worker containers that keep nothing there (PostgreSQL and S3), left behind
# unnamed at each recreation.
EXPOSE 8080
# Liveness only: /readyz also fails while PostgreSQL is away, which a restart cannot mend.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.GATEWAY_PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/opt/gateway/bin/gateway"]
CMD ["serve"]
