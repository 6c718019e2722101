#!/usr/bin/env bash
# Starts and stops a throwaway PostgreSQL server for isocheck's tests.
#
#   scripts/postgres.sh start [DIR]   start it (initdb on first use), wait
#                                     until it accepts connections, print
#                                     its DSN on stdout
#   scripts/postgres.sh dsn [DIR]     print the DSN
#   scripts/postgres.sh stop [DIR]    stop it and remove DIR
#
# The server listens on 127.0.0.1 only, port $PGPORT (default 55432), with
# trust authentication, and has a database "isocheck"; its files are in DIR
# (default /tmp/isocheck-postgres). It uses Debian's packages
# (apt-get install postgresql); PGBIN names another directory of
# PostgreSQL's binaries. Run as root, the server runs as user postgres.
#
# For the tests of db/postgres:
#
#   export ISOCHECK_POSTGRES_DSN=$(scripts/postgres.sh start)
set -euo pipefail

usage() {
  echo "usage: $0 start|stop|dsn [DIR]" >&2
  exit 2
}

[ $# -ge 1 ] && [ $# -le 2 ] || usage
cmd=$1
dir=${2:-/tmp/isocheck-postgres}
case $dir in
  /*) ;;
  *) dir=$(pwd)/$dir ;;
esac
port=${PGPORT:-55432}
data=$dir/data
log=$dir/server.log
marker=$dir/.isocheck-postgres

say() { echo "postgres.sh: $*" >&2; }
die() { say "$*"; exit 1; }

# bindir finds PostgreSQL's server binaries: $PGBIN, else the newest of
# Debian's /usr/lib/postgresql/*/bin, else the PATH.
bindir() {
  if [ -n "${PGBIN:-}" ]; then
    [ -x "$PGBIN/pg_ctl" ] || die "no pg_ctl in PGBIN=$PGBIN"
    echo "$PGBIN"
    return
  fi
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -n "$d" ] && [ -x "$d/pg_ctl" ]; then
    echo "$d"
    return
  fi
  if command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v pg_ctl)"
    return
  fi
  die "PostgreSQL's server is not installed (apt-get install postgresql, or set PGBIN)"
}

# as runs a command as the owner of the server's files: postgres when run
# as root (initdb and postgres refuse root), else the caller.
as() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

running() {
  [ -f "$data/PG_VERSION" ] && as "$bin/pg_ctl" status -D "$data" >/dev/null 2>&1
}

# dsn prints the DSN of the server, on the port it runs on if it runs.
dsn() {
  local p
  p=$(sed -n 4p "$data/postmaster.pid" 2>/dev/null || true)
  echo "postgres://postgres@127.0.0.1:${p:-$port}/isocheck?sslmode=disable"
}

start() {
  bin=$(bindir)
  if running; then
    say "already running in $dir"
    dsn
    return
  fi
  if [ -e "$dir" ] && [ ! -e "$marker" ] && [ -n "$(ls -A "$dir")" ]; then
    die "$dir exists and is not a server of this script; name another DIR"
  fi
  if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
    die "no user postgres to run the server as (apt-get install postgresql creates it)"
  fi
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    die "port $port on 127.0.0.1 is taken by another process; set PGPORT"
  fi
  mkdir -p "$dir"
  touch "$marker"
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$dir"
  fi
  chmod 700 "$dir"

  if [ ! -f "$data/PG_VERSION" ]; then
    say "initdb in $data"
    as "$bin/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  fi

  say "starting on 127.0.0.1:$port (log $log)"
  # fsync off: the data is thrown away, and commits are faster.
  if ! as "$bin/pg_ctl" start -D "$data" -l "$log" -w -t 60 -s \
    -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories='$dir' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c deadlock_timeout=100ms" >&2; then
    tail -n 20 "$log" >&2 || true
    die "the server did not start"
  fi

  local i
  for i in $(seq 100); do
    if as "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres; then
      break
    fi
    [ "$i" -eq 100 ] && die "the server does not accept connections (log $log)"
    sleep 0.1
  done
  if [ "$(as "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -XtAc "SELECT 1 FROM pg_database WHERE datname = 'isocheck'")" != 1 ]; then
    as "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -Xq -c "CREATE DATABASE isocheck" >&2 ||
      die "cannot create database isocheck"
  fi
  say "ready"
  dsn
}

stop() {
  if [ ! -e "$dir" ]; then
    say "nothing in $dir"
    return
  fi
  [ -e "$marker" ] || die "$dir is not a server of this script; not removing it"
  bin=$(bindir)
  if running; then
    say "stopping the server in $dir"
    as "$bin/pg_ctl" stop -D "$data" -m fast -w -t 60 -s >&2 || die "the server did not stop (log $log)"
  fi
  rm -rf "$dir"
  say "removed $dir"
}

case $cmd in
  start) start ;;
  stop) stop ;;
  dsn) dsn ;;
  *) usage ;;
esac
