#!/bin/sh
# The one-shot `minio-setup` of docker-compose.yml (docs/operations.md, "Secrets"): the private media
# bucket, and the app's own MinIO user (S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY) allowed that bucket
# only (deploy/minio-media-policy.json). The root credentials are used here and nowhere else.
# Safe to run again: the bucket, the policy and the user are created or updated.
set -eu
: "${MINIO_ROOT_USER:?}" "${MINIO_ROOT_PASSWORD:?}" "${S3_ACCESS_KEY_ID:?}" "${S3_SECRET_ACCESS_KEY:?}"
bucket=podmatch-media
mc alias set local http://minio:9000 "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD" >/dev/null
mc mb --ignore-existing "local/$bucket"
mc admin policy create local podmatch-media /policy.json
mc admin user add local "$S3_ACCESS_KEY_ID" "$S3_SECRET_ACCESS_KEY"
# `attach` fails when the policy is attached already (a second run): that is fine.
if ! out=$(mc admin policy attach local podmatch-media --user "$S3_ACCESS_KEY_ID" 2>&1); then
  case "$out" in
    *"already in effect"*) ;;
    *)
      echo "$out" >&2
      exit 1
      ;;
  esac
fi
echo "minio-setup: bucket $bucket, user $S3_ACCESS_KEY_ID limited to it"
