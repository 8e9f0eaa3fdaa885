#!/bin/sh
# Writes PgBouncer's configuration from the environment and runs it in the foreground. The same
# settings as the one the tests run (scripts/lib/pgbouncer.ts): transaction pooling, the app's
# password checked by SCRAM and used to log in upstream, no session reset between clients.
set -eu
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
dir=${PGBOUNCER_RUN_DIR:-/etc/pgbouncer/run}
umask 077
# A double quote inside a quoted field is written twice (PgBouncer's auth_file format).
quoted() { printf '"%s"' "$(printf '%s' "$1" | sed 's/"/""/g')"; }
printf '%s %s\n' "$(quoted "${POSTGRES_USER:-podmatch}")" "$(quoted "$POSTGRES_PASSWORD")" > "$dir/userlist.txt"
cat > "$dir/pgbouncer.ini" <<INI
[databases]
* = host=${POSTGRES_HOST:-postgres} port=${POSTGRES_PORT:-5432}
[pgbouncer]
listen_addr = ${PGBOUNCER_LISTEN_ADDR:-0.0.0.0}
listen_port = ${PGBOUNCER_PORT:-6432}
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
pool_mode = transaction
default_pool_size = ${PGBOUNCER_POOL_SIZE:-40}
max_client_conn = ${PGBOUNCER_MAX_CLIENTS:-2000}
server_reset_query =
INI
exec pgbouncer "$dir/pgbouncer.ini"
