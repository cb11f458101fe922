# syntax=docker/dockerfile:1
#
# NOT BUILT IN CI: this machine reaches no container registry, so neither the base images below
# nor this file have been pulled or built here. The steps are the ones CI runs (npm ci, which
# builds dist/ through the package's `prepare` script; npm prune --omit=dev; node dist/main.js),
# checked in a plain copy of the project; build and run it where a registry is reachable:
#
#   docker build -t ers .
#   docker run -d --name ers -p 8080:8080 -v ers-data:/data -e ADMIN_PASSWORD='a long secret' ers
#   docker stop -t 20 ers    # longer than SHUTDOWN_TIMEOUT_MS (10 s), or the drain is cut by SIGKILL
#
# The command-line tool inside the container: docker exec ers node dist/cli/main.js users list

# --- build: the TypeScript (better-sqlite3 ships its compiled module; nothing else compiles) ---
FROM node:24-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
# `prepare` (npm run build) needs the sources, so they come before npm ci; the client package
# (a workspace: node_modules links to it) is built first, then the server.
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY packages/client/package.json packages/client/tsconfig.json ./packages/client/
COPY packages/client/bin ./packages/client/bin
COPY packages/client/src ./packages/client/src
COPY src ./src
RUN npm ci
# Only what runs: drop TypeScript, Biome, tsx and the other development dependencies.
RUN npm prune --omit=dev

# --- runtime: node, the production dependencies and the compiled service -----------------------
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    DATABASE_URL=sqlite:/data/events.db \
    HOST=0.0.0.0 \
    PORT=8080
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# What node_modules/@event-resource-service/client links to: the client package as built.
COPY --from=build /app/packages/client/package.json ./packages/client/
COPY --from=build /app/packages/client/dist ./packages/client/dist
# The SQLite database (events.db and, while it runs, events.db-wal and -shm) lives in the volume.
RUN mkdir /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 8080
# node itself, since the slim image has no curl; /health/live answers 200 while the process can.
HEALTHCHECK --interval=30s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health/live`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself (no shell in between), and drains.
STOPSIGNAL SIGTERM
# A young generation of 2 × 4 MB, a 1 GiB old generation, no Maglev (docs/operations.md: Running in
# production, Memory).
CMD ["node", "--max-semi-space-size=4", "--max-old-space-size=1024", "--no-maglev", "dist/main.js"]
