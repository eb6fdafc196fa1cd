# syntax=docker/dockerfile:1
# The identity service's image: `idp serve` by default, `idp worker` (or any other idp command) by overriding the
# command. Node 22 LTS: oidc-provider 9 supports Node 22 LTS and later (on 20.19+ it runs with a warning).
# Operator's guide: docs/operating.md.
#
# Base images are pinned to an exact version, not by digest: the digests could not be resolved where this file was
# written (no registry access). Pin them where you build (docs/operating.md, "Pinning the images"):
#   docker buildx imagetools inspect node:22.17.0-bookworm-slim      # prints "Digest: sha256:…"
# then FROM node:22.17.0-bookworm-slim@sha256:<digest> in both stages.

# --- build: every dependency (TypeScript is a dev dependency), compile src/ and jobs/ into dist/ ---------------------
FROM node:22.17.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Only tsc runs in this stage: no install scripts needed (the runtime stage installs its own dependencies).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY jobs ./jobs
RUN npm run build

# --- runtime: production dependencies, the compiled code, configuration and templates --------------------------------
FROM node:22.17.0-bookworm-slim AS runtime
# production: config/production.yaml applies (listen on 0.0.0.0, worker.embedded false) and the loader requires
# SECRET_KEY and DATABASE_URL. HOST keeps the listener reachable from outside the container whatever NODE_ENV is.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    IDP_DATA_DIR=/app/var
WORKDIR /app
COPY package.json package-lock.json ./
# bcrypt ships prebuilt binaries (linux x64/arm64, glibc): no compiler needed here. tsx (TypeScript at run time, for
# `npm start` in a checkout) is a dev dependency: the image runs the compiled dist/ only, and says so if tsx slipped in.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force \
    && test ! -e node_modules/tsx && test ! -e node_modules/esbuild
COPY --from=build /app/dist ./dist
# Read at run time: dist/src/settings finds ../../../config, dist/src/pages finds ../../../views (templates, CSS).
COPY config ./config
COPY views ./views
# `idp <command>` on the PATH, e.g. `docker compose exec app idp keys rotate`.
RUN printf '#!/bin/sh\nexec node /app/dist/src/main.js "$@"\n' > /usr/local/bin/idp \
    && chmod 755 /usr/local/bin/idp \
    && mkdir -p /app/var \
    && chown node:node /app/var
# The code stays root-owned and read-only for the service; only the data directory is writable.
USER node
# data_dir: the embedded PGlite database and generated secret key (when NODE_ENV is not production), local mail.
# The only place the service writes: the root file system may be read-only (compose.yaml runs it so).
VOLUME ["/app/var"]
EXPOSE 9000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 9000) + '/-/health/live/').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/main.js", "serve"]
