# syntax=docker/dockerfile:1
# One image for every process of the topology; docker-compose.yml picks the command (dist/main.js,
# dist/projector-main.js, dist/rpc/main.js, dist/cli/main.js). Two stages: the first has the compilers
# (for better-sqlite3 when no prebuilt binary fits) and TypeScript, the second only Node, the production
# dependencies and the compiled JavaScript.

# The addon is compiled against Node 24.18.1's headers and runs on the current 24.x below (same ABI,
# 137): better-sqlite3 12 built against 24.19 or later aborts the process when V8 collects a prepared
# statement outside a JavaScript context (nodejs/node#65446). better-sqlite3 13, which avoids it, no
# longer runs on Node 20.
FROM node:24.18.1 AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build before the sources are here. The one native addon is built
# next, for this image's Node.
RUN --mount=type=cache,target=/root/.npm \
    npm ci --no-audit --no-fund --ignore-scripts \
 && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

# Pinned like the build stage: the image that runs is the one that was tested, and the addon's Node.
FROM node:24.18.1-slim
ENV NODE_ENV=production \
    NODE_OPTIONS=--enable-source-maps \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
# Owned by root and only readable by the user the processes run as: they cannot change their own code.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY proto ./proto
RUN mkdir -p /data && chown node:node /data && chmod 0700 /data
VOLUME /data
EXPOSE 3000
USER node

# Liveness: the HTTP API and the projector answer GET /health/live on PORT as long as the process
# serves HTTP, whatever a projector or a store does (/health/ready and /health say that). The gRPC
# process has its own check in compose (dist/rpc/health-check.js).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# Exec form: SIGTERM goes straight to node, which shuts down gracefully and exits 0.
CMD ["node", "dist/main.js"]
