# syntax=docker/dockerfile:1
#
# One image for every worktrack app; the command picks the app:
#   node dist/apps/<app>/src/main.js            run an app (default: gateway)
#   node dist/apps/<service>/src/main.js migrate run a service's migrations, then exit
#   node dist/scripts/create-topics.js          create the Kafka topics from the registry
#
# Build: docker build -t worktrack .
# Pin NODE_IMAGE to a digest in CI for reproducible builds.
ARG NODE_IMAGE=node:20-bookworm-slim

# ---- deps: every dependency, cached on the lockfile alone
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN --mount=type=cache,target=/root/.npm npm ci

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
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts
COPY --from=build /app/dist ./dist
# Files stay root-owned (read-only to the app). Numeric uid so Kubernetes can
# verify runAsNonRoot; 1000 is the image's `node` user.
USER 1000:1000
EXPOSE 3000
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/apps/gateway/src/main.js"]
