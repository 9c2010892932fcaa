# One image for every process of the topology; the compose file picks the command
# (npm start, npm run api, npm run projector, npm run rpc). TypeScript runs through tsx: no build step.
FROM node:20-bookworm-slim

# better-sqlite3 ships prebuilt binaries for this platform; the toolchain is only a fallback.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
# Sources, protos and config (see .dockerignore for what stays out).
COPY . .
RUN mkdir -p /data && chown node:node /data

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
VOLUME /data
EXPOSE 3000

# SIGTERM goes straight to node (no npm in between), which shuts down gracefully and exits 0.
USER node
CMD ["node", "--import", "tsx", "src/main.ts"]
