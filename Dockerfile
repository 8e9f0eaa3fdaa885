# One image for the migrate step, the server and the worker (different commands).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# Video intros (docs/video.md): ffmpeg/ffprobe (server checks uploads, worker renders), narration, slide font.
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg espeak-ng fonts-dejavu-core \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
# npm install (not ci): the lock omits other platforms' optional binaries, which npm ci rejects.
RUN npm install --no-save --include=dev --no-audit --no-fund
COPY . .
RUN npx vite build --config client/vite.config.ts
EXPOSE 5000
CMD ["node", "--import", "tsx", "server/src/main.ts"]
