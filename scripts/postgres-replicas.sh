#!/usr/bin/env bash
# postgres-replicas.sh start|stop|dsn|pids|heal|leader [DIR]
# postgres-replicas.sh restart-node I [DIR]
# postgres-replicas.sh partition SPEC [DIR]
# postgres-replicas.sh lossy NODES PERCENT [DIR]
# postgres-replicas.sh skew I OFFSET [DIR]
#
# A throwaway PostgreSQL primary with two streaming replicas (hot
# standbys), each server in a network namespace of its own, from Debian's
# postgresql package. Needs root, ip and nft (scripts/netns.sh), and
# ISOCHECK_NETNS=NAME at start: node 0 (the primary) runs in NAME-0 at
# 10.213.0.1, the replicas in NAME-1 and NAME-2 at .2 and .3, all on port
# 5432, and the clients run in NAME-c:
#
#   DSN=$(ISOCHECK_NETNS=pg scripts/postgres-replicas.sh start /tmp/pg-repl)
#   ip netns exec pg-c isocheck run --db "$DSN" ...
#
#   start         makes the namespaces, initializes and starts the primary,
#                 copies it to the replicas (pg_basebackup, which sets them
#                 to follow it), starts them, waits until both stream, and
#                 prints the DSN, the primary's host first:
#                   postgres://postgres@10.213.0.1:5432,10.213.0.2:5432,10.213.0.3:5432/isocheck?sslmode=disable
#                 The adapter (db/postgres) sends session i to host i mod 3.
#   stop          stops the servers, removes the namespaces and DIR.
#   dsn           prints the DSN.
#   pids          prints a line per node: its index and its postmaster's
#                 pid, or - if it is not running.
#   restart-node  starts node I again after it was killed, and waits until
#                 the replicas stream again.
#   partition     cuts the links SPEC names (0-1,0-2, or 0|1,2; see
#                 scripts/netns.sh); heal restores them and waits until
#                 both replicas stream from the primary again.
#   lossy         the nodes NODES lists ("0,2") drop PERCENT of the
#                 packets that reach them; heal ends it.
#   skew          (started with ISOCHECK_FAKETIME=1, which runs every
#                 server under libfaketime, Debian's faketime package) sets
#                 node I's clock OFFSET seconds off ("+30", "-2.5"), at
#                 once: a jump; heal sets every clock right again.
#   leader        prints the index of the node that says it is the primary
#                 (not in recovery), which --nemesis partition=leader
#                 isolates.
#
# DIR (default /tmp/isocheck-postgres-replicas) holds each node's data
# directory, socket and log. Messages go to stderr; only the DSN to stdout.
set -euo pipefail

readonly NODES=3
readonly PORT=5432
readonly TIMEOUT=60 # seconds to wait for a server
readonly netns_sh=$(dirname "$0")/netns.sh

usage() {
	echo "usage: $0 start|stop|dsn|pids|heal|leader [DIR]" >&2
	echo "       $0 restart-node I [DIR]" >&2
	echo "       $0 partition SPEC [DIR]" >&2
	echo "       $0 lossy NODES PERCENT [DIR]" >&2
	echo "       $0 skew I OFFSET [DIR]" >&2
	exit 2
}

cmd=${1:-}
case $cmd in
restart-node | partition)
	[[ $# -ge 2 && $# -le 3 ]] || usage
	dir=${3:-/tmp/isocheck-postgres-replicas}
	;;
lossy | skew)
	[[ $# -ge 3 && $# -le 4 ]] || usage
	dir=${4:-/tmp/isocheck-postgres-replicas}
	;;
start | stop | dsn | pids | heal | leader)
	[[ $# -le 2 ]] || usage
	dir=${2:-/tmp/isocheck-postgres-replicas}
	;;
*) usage ;;
esac

say() { echo "postgres-replicas: $*" >&2; }
die() {
	say "$*"
	exit 1
}

netns=
if [[ -f $dir/netns ]]; then
	netns=$(<"$dir/netns")
elif [[ $cmd == start ]]; then
	netns=${ISOCHECK_NETNS:-}
	[[ -n $netns ]] || die "start: set ISOCHECK_NETNS=NAME: the servers run in network namespaces (scripts/netns.sh)"
fi

readonly faketime_lib=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1

# faketime: the servers run under libfaketime, each with its clock file.
faketime() { [[ -f $dir/faketime ]]; }
clockfile() { echo "$dir/clock$1"; }

bindir() {
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
	[[ -n $d && -x $d/pg_ctl ]] || die "PostgreSQL's server is not installed (apt-get install postgresql)"
	echo "$d"
}

host() { echo "10.213.0.$(($1 + 1))"; }
data() { echo "$dir/node$1"; }
logfile() { echo "$dir/node$1.log"; }

# as_node I CMD...: CMD as postgres in node I's namespace.
as_node() {
	local i=$1
	shift
	ip netns exec "$netns-$i" runuser -u postgres -- "$@"
}

dsn() {
	local hosts="" i
	for ((i = 0; i < NODES; i++)); do
		hosts+="${hosts:+,}$(host "$i"):$PORT"
	done
	echo "postgres://postgres@$hosts/isocheck?sslmode=disable"
}

# launch I starts node I's server on its own address, its socket in a
# directory of its own (the servers share the port).
launch() {
	local i=$1
	mkdir -p "$dir/sock$i"
	chown postgres: "$dir/sock$i"
	# fsync off: the data is thrown away, and commits are faster.
	local env=()
	if faketime; then
		env=(env LD_PRELOAD="$faketime_lib" FAKETIME_TIMESTAMP_FILE="$(clockfile "$i")" FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1)
	fi
	as_node "$i" "${env[@]}" "$bin/pg_ctl" start -D "$(data "$i")" -l "$(logfile "$i")" -w -t "$TIMEOUT" -s \
		-o "-c listen_addresses=$(host "$i") -p $PORT -c unix_socket_directories='$dir/sock$i' -c fsync=off -c full_page_writes=off -c max_connections=200 -c hot_standby=on -c wal_level=replica -c max_wal_senders=10 -c wal_receiver_status_interval=1s" >&2 ||
		{
			tail -n 20 "$(logfile "$i")" >&2 || true
			die "node $i did not start"
		}
}

# streaming: both replicas stream from the primary.
streaming() {
	[[ $(as_node 0 "$bin/psql" -h "$(host 0)" -p "$PORT" -U postgres -d postgres -XtAc "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'" 2>/dev/null) == $((NODES - 1)) ]]
}

await_streaming() {
	local i
	for ((i = 0; i < TIMEOUT * 5; i++)); do
		streaming && return
		sleep 0.2
	done
	die "the replicas do not stream ${TIMEOUT}s on; see $dir/*.log"
}

pid() {
	local f=$(data "$1")/postmaster.pid p
	[[ -s $f ]] || return 1
	p=$(head -n 1 "$f")
	kill -0 "$p" 2>/dev/null || return 1
	[[ $(ps -o stat= -p "$p" 2>/dev/null) != Z* ]] || return 1
	echo "$p"
}

start() {
	bin=$(bindir)
	[[ $(id -u) == 0 ]] || die "start: network namespaces need root"
	id postgres >/dev/null 2>&1 || die "no user postgres to run the servers as (apt-get install postgresql creates it)"
	if [[ -e $dir ]]; then
		die "$dir exists: stop that cluster first ($0 stop $dir)"
	fi
	mkdir -p "$dir"
	echo "$netns" >"$dir/netns"
	"$netns_sh" down "$netns"
	"$netns_sh" up "$netns" "$NODES" || die "could not make the namespaces $netns-*"
	chown postgres: "$dir"
	chmod 755 "$dir"
	if [[ ${ISOCHECK_FAKETIME:-} == 1 ]]; then
		[[ -f $faketime_lib ]] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libfaketime >&2 ||
			die "libfaketime is not installed (apt-get install faketime)"
		touch "$dir/faketime"
		for ((i = 0; i < NODES; i++)); do
			echo "+0" >"$(clockfile "$i")"
			chmod 644 "$(clockfile "$i")"
		done
	fi

	say "initdb for the primary in $(data 0)"
	as_node 0 "$bin/initdb" -D "$(data 0)" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 ||
		{
			cat "$dir/initdb.log" >&2
			die "initdb failed"
		}
	printf 'host all all 10.213.0.0/24 trust\nhost replication all 10.213.0.0/24 trust\n' >>"$(data 0)/pg_hba.conf"
	launch 0
	as_node 0 "$bin/psql" -h "$(host 0)" -p "$PORT" -U postgres -d postgres -Xq -c "CREATE DATABASE isocheck" >&2 ||
		die "cannot create database isocheck"
	local i
	for ((i = 1; i < NODES; i++)); do
		say "copying the primary to replica $i"
		as_node "$i" "$bin/pg_basebackup" -h "$(host 0)" -p "$PORT" -U postgres -D "$(data "$i")" -R -X stream -c fast >&2 ||
			die "pg_basebackup for replica $i failed"
		launch "$i"
	done
	await_streaming
	say "a primary and $((NODES - 1)) streaming replicas in $dir"
	dsn
}

stop() {
	[[ -e $dir ]] || {
		say "nothing in $dir"
		return
	}
	[[ -f $dir/netns ]] || die "$dir is not a cluster of this script; not removing it"
	bin=$(bindir)
	local i p
	for ((i = NODES - 1; i >= 0; i--)); do
		p=$(pid "$i") || continue
		# The data is thrown away: no checkpoint.
		kill -QUIT "$p" 2>/dev/null || true
		for ((j = 0; j < 50; j++)); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null || true
	done
	"$netns_sh" down "$netns"
	rm -rf "$dir"
	say "stopped; removed $dir"
}

case $cmd in
start) start ;;
stop) stop ;;
dsn) dsn ;;
pids)
	[[ -f $dir/netns ]] || die "no cluster in $dir; start one with: ISOCHECK_NETNS=NAME $0 start $dir"
	for ((i = 0; i < NODES; i++)); do
		p=$(pid "$i") || p=-
		echo "$i $p"
	done
	;;
restart-node)
	bin=$(bindir)
	[[ $2 =~ ^[0-9]+$ ]] && (($2 < NODES)) || die "restart-node: no node $2 (nodes are 0 to $((NODES - 1)))"
	if p=$(pid "$2"); then
		die "restart-node: node $2 is running (pid $p)"
	fi
	rm -f "$(data "$2")/postmaster.pid"
	launch "$2"
	await_streaming
	;;
partition)
	[[ -n $netns ]] || die "no cluster in $dir"
	"$netns_sh" partition "$netns" "$2"
	;;
leader)
	[[ -n $netns ]] || die "no cluster in $dir"
	bin=$(bindir)
	for ((i = 0; i < NODES; i++)); do
		if [[ $(as_node "$i" "$bin/psql" -h "$(host "$i")" -p "$PORT" -U postgres -d postgres -XtAc "SELECT NOT pg_is_in_recovery()" 2>/dev/null) == t ]]; then
			echo "$i"
			exit 0
		fi
	done
	die "leader: no node says it is the primary"
	;;
lossy)
	[[ -n $netns ]] || die "no cluster in $dir"
	"$netns_sh" lossy "$netns" "$2" "$3"
	;;
skew)
	[[ -n $netns ]] || die "no cluster in $dir"
	faketime || die "skew: the servers in $dir do not run under libfaketime; start them with ISOCHECK_FAKETIME=1"
	[[ $2 =~ ^[0-9]+$ ]] && (($2 < NODES)) || die "skew: no node $2 (nodes are 0 to $((NODES - 1)))"
	[[ $3 =~ ^[+-][0-9]+(\.[0-9]+)?$ ]] || die "skew: offset $3 is not seconds with a sign, such as +30 or -2.5"
	echo "$3" >"$(clockfile "$2").tmp"
	mv "$(clockfile "$2").tmp" "$(clockfile "$2")"
	;;
heal)
	[[ -n $netns ]] || die "no cluster in $dir"
	bin=$(bindir)
	if faketime; then
		for ((i = 0; i < NODES; i++)); do
			echo "+0" >"$(clockfile "$i").tmp"
			mv "$(clockfile "$i").tmp" "$(clockfile "$i")"
		done
	fi
	"$netns_sh" heal "$netns"
	await_streaming
	;;
esac
