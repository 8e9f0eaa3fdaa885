#!/bin/sh
# A sentinel of compose's Redis (docs/operations.md, "Redis that survives losing its primary"):
# watches the primary under the name the app asks for (REDIS_SENTINEL_NAME), with the password of
# the data nodes, and promotes the replica when two of the three agree the primary is gone.
# Sentinel rewrites its configuration file with what it learns (the current primary after a
# failover, the other sentinels), so it is written only when absent, on the sentinel's own volume:
# a restart must not bring back the original primary. Passwords from deploy/make-env.sh (hex).
set -eu
: "${REDIS_PASSWORD:?set REDIS_PASSWORD}"
conf="${SENTINEL_CONF:-/data/sentinel.conf}"
name="${REDIS_SENTINEL_NAME:-podmatch}"
umask 077
[ -f "$conf" ] || cat > "$conf" <<CONF
port ${SENTINEL_PORT:-26379}
sentinel resolve-hostnames yes
sentinel announce-hostnames yes
sentinel monitor $name ${REDIS_PRIMARY_HOST:-redis} ${REDIS_PRIMARY_PORT:-6379} 2
sentinel auth-pass $name "$REDIS_PASSWORD"
sentinel down-after-milliseconds $name ${SENTINEL_DOWN_AFTER_MS:-5000}
sentinel failover-timeout $name 60000
sentinel parallel-syncs $name 1
CONF
exec redis-sentinel "$conf"
