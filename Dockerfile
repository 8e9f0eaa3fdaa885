# Two stages (docs/operations.md, "The production build"): the build stage has every dependency and
# runs `npm run build`; the image is the runtime stage: the bundles in dist/ (server.mjs, worker.mjs,
# migrate.mjs, admin.mjs, backup.mjs, restore.mjs), the built client, and the production dependencies only. No TypeScript, no
# tests, no development tools, no .env. One image for migrate, server and worker (different commands).
# The base is pinned by version and digest, so a rebuild starts from the same bytes.
FROM node:20.20.2-bookworm-slim@sha256:2cf067cfed83d5ea958367df9f966191a942351a2df77d6f0193e162b5febfc0 AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
RUN npm ci
# .dockerignore keeps .env (the deployment's secrets), .data and earlier builds out of the context.
COPY . .
RUN npm run build

# `docker compose run --rm backup` (docs/operations.md, "Backups"): the bundles on the database's own
# image, whose pg_dump / pg_restore are the server's version (Debian 12 ships no newer than 15).
# Built only when asked for (`--profile tools`); the app image is the last stage below.
FROM postgres:17.11-bookworm@sha256:639ab7ceb90e13123085b741fb31ef493fba25463002f6da665352e7b534b652 AS backup
COPY --from=build /usr/local/bin/node /usr/local/bin/node
COPY --from=build /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/npm
WORKDIR /app
COPY --from=build /src/dist/package.json /src/dist/package-lock.json /src/dist/.npmrc ./
RUN node /usr/local/lib/node_modules/npm/bin/npm-cli.js ci --omit=dev && rm -rf /root/.npm
COPY --from=build /src/dist ./
USER postgres
ENTRYPOINT ["node"]
CMD ["backup.mjs", "/backups"]

FROM node:20.20.2-bookworm-slim@sha256:2cf067cfed83d5ea958367df9f966191a942351a2df77d6f0193e162b5febfc0
ENV NODE_ENV=production
# Video intros (docs/videos.md): ffmpeg/ffprobe (server checks uploads, worker renders), narration, slide font.
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg espeak-ng fonts-dejavu-core \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /src/dist/package.json /src/dist/package-lock.json /src/dist/.npmrc ./
RUN npm ci --omit=dev && npm cache clean --force
# Code and dependencies stay root's, readable but not writable by the app; the app writes only under
# .data (local media, video work files, the image cache), which is its own.
COPY --from=build /src/dist ./
RUN mkdir -p .data && chown node:node .data
# The `node` user of the base image (uid 1000), never root.
USER node
EXPOSE 5000
# Liveness: the process answers (readiness, which HAProxy asks, also needs the database and Redis).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||5000)+'/api/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "server.mjs"]
