#!/usr/bin/env bash
# mariadb.sh start|stop|dsn [DIR]
#
# A throwaway single MariaDB server on loopback for isocheck's mysql
# adapter (db/mysql), from Debian's mariadb-server package, which it
# installs with apt-get when it is missing. For a Galera cluster see
# galera.sh.
#
#   start  starts the server and prints its DSN on stdout:
#            mysql://isocheck@127.0.0.1:3310/isocheck
#          Starting a running server only prints its DSN.
#   stop   stops the server and removes DIR.
#   dsn    prints the DSN of the running server.
#
# DIR (default /tmp/isocheck-mariadb) holds the datadir, socket, pid file
# and error log. The server listens on 127.0.0.1, port $MARIADB_PORT
# (default 3310). The user isocheck has no password and all privileges;
# the database isocheck exists.
#
#   export ISOCHECK_MYSQL_DSN=$(scripts/mariadb.sh start)
#   go test ./db/mysql/
#   scripts/mariadb.sh stop
#
# Messages go to stderr; only the DSN goes to stdout.
set -euo pipefail

readonly USER_NAME=isocheck
readonly DB_NAME=isocheck
readonly TIMEOUT=60 # seconds to wait for the server

usage() {
	echo "usage: $0 start|stop|dsn [DIR]" >&2
	exit 2
}

[[ $# -ge 1 && $# -le 2 ]] || usage
cmd=$1
dir=${2:-/tmp/isocheck-mariadb}
port=${MARIADB_PORT:-3310}
cnf=$dir/my.cnf
sock=$dir/mysqld.sock
pidfile=$dir/mysqld.pid
log=$dir/mysqld.err

say() { echo "mariadb: $*" >&2; }
die() {
	say "$*"
	exit 1
}

dsn() { echo "mysql://$USER_NAME@127.0.0.1:$port/$DB_NAME"; }

# pid prints the server's pid if it is running.
pid() {
	pgrep -o -f -- "mariadbd --defaults-file=$cnf( |\$)"
}

sql() {
	mariadb --no-defaults -uroot -S "$sock" -N -B -e "$1"
}

install_packages() {
	local missing=()
	command -v mariadbd >/dev/null || missing+=(mariadb-server)
	command -v mariadb >/dev/null || missing+=(mariadb-client)
	((${#missing[@]} == 0)) && return
	[[ $(id -u) -eq 0 ]] || die "missing ${missing[*]}; install them (apt-get install ${missing[*]}) or run as root"
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq "${missing[@]}" >&2
}

stop_server() {
	local p i
	p=$(pid) || return 0
	say "stopping the server (pid $p)"
	kill -TERM "$p"
	for ((i = 0; i < TIMEOUT * 5; i++)); do
		kill -0 "$p" 2>/dev/null || return 0
		sleep 0.2
	done
	say "the server did not stop in ${TIMEOUT}s; killing it"
	kill -KILL "$p" 2>/dev/null || true
}

start() {
	if pid >/dev/null; then
		say "already running in $dir"
		dsn
		return
	fi
	if [[ -e $dir ]]; then
		say "$dir holds a stopped server; removing it"
		rm -rf "$dir"
	fi
	if ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; then
		die "port $port is in use; set MARIADB_PORT"
	fi
	install_packages
	mkdir -p "$dir/data"
	cat >"$cnf" <<EOF
[mariadbd]
datadir=$dir/data
socket=$sock
pid-file=$pidfile
log-error=$log
port=$port
bind-address=127.0.0.1
skip-name-resolve
user=mysql
max_connections=500
default-storage-engine=InnoDB
innodb_buffer_pool_size=128M
innodb_flush_log_at_trx_commit=0
EOF
	chown -R mysql:mysql "$dir"
	say "initializing the datadir"
	mariadb-install-db --defaults-file="$cnf" --skip-test-db \
		--auth-root-authentication-method=socket >"$dir/install.log" 2>&1 ||
		die "mariadb-install-db failed; see $dir/install.log"
	say "starting on 127.0.0.1:$port (log $log)"
	setsid mariadbd --defaults-file="$cnf" </dev/null >>"$log" 2>&1 &
	local i
	for ((i = 0; i < TIMEOUT * 5; i++)); do
		if sql "SELECT 1" >/dev/null 2>&1; then
			break
		fi
		pid >/dev/null || {
			tail -n 20 "$log" >&2 || true
			die "the server exited; see $log"
		}
		sleep 0.2
	done
	sql "SELECT 1" >/dev/null || die "the server does not answer after ${TIMEOUT}s; see $log"
	sql "CREATE DATABASE IF NOT EXISTS $DB_NAME;
		CREATE USER IF NOT EXISTS '$USER_NAME'@'%';
		CREATE USER IF NOT EXISTS '$USER_NAME'@'localhost';
		GRANT ALL PRIVILEGES ON *.* TO '$USER_NAME'@'%';
		GRANT ALL PRIVILEGES ON *.* TO '$USER_NAME'@'localhost';"
	dsn
}

case $cmd in
start)
	start
	;;
stop)
	if [[ ! -e $dir ]]; then
		say "no server in $dir"
		exit 0
	fi
	stop_server
	rm -rf "$dir"
	say "stopped; removed $dir"
	;;
dsn)
	pid >/dev/null || die "no server running in $dir; start one with: $0 start${2:+ $dir}"
	dsn
	;;
*)
	usage
	;;
esac
