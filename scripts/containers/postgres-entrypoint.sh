#!/bin/sh
# The entrypoint of the compose run's PostgreSQL image (scripts/containers/postgres-image): on an
# empty data directory, a cluster whose superuser is POSTGRES_USER with POSTGRES_PASSWORD and a
# database POSTGRES_DB, as the official image makes; then the server on every address, as postgres.
set -eu
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
mkdir -p "$PGDATA" /run/postgresql
chown postgres:postgres "$PGDATA" /run/postgresql
chmod 0700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  chown postgres "$pwfile"
  as_postgres initdb --pgdata="$PGDATA" --username="$user" --pwfile="$pwfile" --encoding=UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$db" != "postgres" ]; then
    as_postgres pg_ctl --pgdata="$PGDATA" --options="-c listen_addresses=''" --wait start >/dev/null
    as_postgres psql --username="$user" --dbname=postgres --quiet --set=ON_ERROR_STOP=1 --command="CREATE DATABASE \"$db\""
    as_postgres pg_ctl --pgdata="$PGDATA" --mode=fast --wait stop >/dev/null
  fi
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$PGDATA" -c listen_addresses='*'
