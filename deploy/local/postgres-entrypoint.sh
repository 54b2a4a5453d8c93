#!/bin/sh
# The postgres image's contract, as far as Paiju's manifests use it: POSTGRES_USER,
# POSTGRES_PASSWORD and POSTGRES_DB make the first start's cluster, user and database; PGDATA
# says where; the server then runs in the foreground as the container's process.
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"
mkdir -p "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  password_file="$(mktemp)"
  printf '%s\n' "${POSTGRES_PASSWORD:?}" > "$password_file"
  # UTF-8 as the postgres image makes it: without a locale, initdb would choose SQL_ASCII.
  initdb --username="${POSTGRES_USER:?}" --pwfile="$password_file" --auth-local=trust \
    --encoding=UTF8 --locale=C.UTF-8 \
    --auth-host=scram-sha-256 -D "$PGDATA" >/dev/null
  rm -f "$password_file"
  echo "host all all 0.0.0.0/0 scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -k /var/run/postgresql" -w start >/dev/null
  createdb -h /var/run/postgresql -U "$POSTGRES_USER" "${POSTGRES_DB:-$POSTGRES_USER}"
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' -k /var/run/postgresql
