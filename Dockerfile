# One image for the migrate step, the server and the worker (different commands).
# The base is pinned by version and digest, so a rebuild starts from the same bytes (docs/operations.md).
FROM node:20.20.2-bookworm-slim@sha256:2cf067cfed83d5ea958367df9f966191a942351a2df77d6f0193e162b5febfc0
WORKDIR /app
ENV NODE_ENV=production
# Video intros (docs/videos.md): ffmpeg/ffprobe (server checks uploads, worker renders), narration, slide font.
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg espeak-ng fonts-dejavu-core \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
# npm install (not ci): the lock omits other platforms' optional binaries, which npm ci rejects.
RUN npm install --no-save --include=dev --no-audit --no-fund
# .dockerignore keeps .env (the deployment's secrets) and .data out of the image.
COPY . .
# Code and dependencies stay root's, readable but not writable by the app; the app writes only under
# .data (local media, video work files, the image cache), which is its own.
RUN npx vite build --config client/vite.config.ts \
  && mkdir -p .data && chown node:node .data
# The `node` user of the base image (uid 1000), never root.
USER node
EXPOSE 5000
CMD ["node", "--import", "tsx", "server/src/main.ts"]
