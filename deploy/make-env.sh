#!/bin/sh
# Writes the secrets docker-compose.yml needs into an env file (default .env, next to it), readable by
# you only, each a fresh random hex string (safe inside the URLs of DATABASE_URL and REDIS_URL).
# Refuses to overwrite: changing POSTGRES_PASSWORD after the first start needs ALTER USER as well
# (docs/operations.md, "Secrets").
set -eu
file=${1:-.env}
if [ -e "$file" ]; then
  echo "$file exists; not overwritten" >&2
  exit 1
fi
random_hex() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }
umask 077
cat >"$file" <<ENV
# Secrets of the docker compose deployment (deploy/make-env.sh). Never commit or copy into an image.
POSTGRES_PASSWORD=$(random_hex 32)
REDIS_PASSWORD=$(random_hex 32)
MINIO_ROOT_USER=root-$(random_hex 8)
MINIO_ROOT_PASSWORD=$(random_hex 32)
S3_ACCESS_KEY_ID=podmatch-$(random_hex 8)
S3_SECRET_ACCESS_KEY=$(random_hex 32)
TOKEN_ENCRYPTION_KEY=$(random_hex 32)
IMAGE_PROXY_KEY=$(random_hex 32)
METRICS_TOKEN=$(random_hex 32)
ENV
echo "wrote $file"
