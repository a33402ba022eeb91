# syntax=docker/dockerfile:1
#
# One image for every worktrack app; the command picks the app:
#   node dist/apps/<app>/src/main.js            run an app (default: gateway)
#   node dist/apps/<service>/src/main.js migrate run a service's migrations, then exit
#   node dist/scripts/create-topics.js          create the Kafka topics from the registry
#   node dist/apps/identity/src/main.js admin create-member --workspace=<name> --email=<email>
#                                               the first member and a `full` token (one JSON line)
#
# Build: scripts/image.sh (tags it <version>-<commit>, optionally pushes it and
# points k8s/kustomization.yaml at it), or plainly: docker build -t worktrack .
# Node: the current LTS line (26; LTS since 2026-10-28), on the image's default
# Debian (the Node 26 images may not ship bookworm). Pin NODE_IMAGE to a digest in CI for
# reproducible builds.
ARG NODE_IMAGE=node:26-slim

# ---- deps: every dependency, cached on the lockfile alone
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# As on every machine (scripts/ensure-deps.mjs): `npm ci` from the lockfile, and
# when a registry mirror lacks other platforms' optional native packages (npm ci
# then refuses the lockfile), `npm install` of the same locked versions.
COPY scripts/ensure-deps.mjs scripts/
RUN --mount=type=cache,target=/root/.npm node scripts/ensure-deps.mjs --force

# ---- build: swc compiles apps/, libs/ and scripts/ into dist/
FROM deps AS build
COPY . .
RUN npm run build

# ---- runtime: production dependencies + dist/, nothing else
FROM ${NODE_IMAGE} AS runtime
# tini is PID 1: it forwards SIGTERM to node (which then drains) and reaps zombies.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY scripts/ensure-deps.mjs scripts/
RUN --mount=type=cache,target=/root/.npm node scripts/ensure-deps.mjs --force --omit=dev --ignore-scripts
COPY --from=build /app/dist ./dist
# Files stay root-owned (read-only to the app). Numeric uid so Kubernetes can
# verify runAsNonRoot; 1000 is the image's `node` user.
USER 1000:1000
EXPOSE 3000
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/apps/gateway/src/main.js"]
