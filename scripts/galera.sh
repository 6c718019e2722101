#!/usr/bin/env bash
# galera.sh start|stop|dsn|pids|heal [DIR]
# galera.sh restart-node I [DIR]
# galera.sh partition SPEC [DIR]
# galera.sh lossy NODES PERCENT [DIR]
# galera.sh skew I OFFSET [DIR]
#
# A throwaway 3-node MariaDB Galera cluster on loopback, or each node in a
# network namespace of its own, for isocheck's mysql adapter (db/mysql),
# built from Debian's packages (mariadb-server, galera-4, rsync), which it
# installs with apt-get when they are missing.
#
#   start  starts the nodes (node 1 bootstraps the cluster, nodes 2 and 3
#          join it by rsync SST), waits until wsrep_cluster_size is 3 and
#          every node is Synced, then prints the DSN on stdout:
#            mysql://isocheck@127.0.0.1:3307,127.0.0.1:3308,127.0.0.1:3309/isocheck
#          Starting a running cluster only prints its DSN. With
#          ISOCHECK_NETNS=NAME (root), the nodes run in the namespaces of
#          `scripts/netns.sh up NAME 3`, node n at 10.213.0.n, and the
#          clients must run in NAME-c:
#            ip netns exec NAME-c isocheck run --db DSN ...
#   stop   stops the nodes and removes DIR (and the namespaces of a
#          cluster started in them).
#   partition
#          (namespaces only) cuts the links SPEC names, such as 0-1,0-2
#          or 0|1,2 (indexes from 0; see scripts/netns.sh); heal restores
#          them and waits until every node is Synced again.
#   lossy  (namespaces only) the nodes NODES lists (indexes from 0, "0,2")
#          drop PERCENT of the packets that reach them; heal ends it.
#   skew   (started with ISOCHECK_FAKETIME=1, which runs every server
#          under libfaketime, Debian's faketime package) sets node I's
#          clock (I from 0) OFFSET seconds off ("+30", "-2.5"), at once;
#          heal sets every clock right again.
#   dsn    prints the DSN of the running cluster.
#   pids   prints a line per node: its index from 0 (node n is index n-1)
#          and the pid of its server, or - if it is not running.
#   restart-node
#          starts node I+1 (I from 0, as pids numbers them) again after it
#          was killed: it recovers the node's last committed position from
#          InnoDB (mariadbd --wsrep-recover), starts it there so that it
#          rejoins the running cluster by IST (or by SST when the donors'
#          gcache no longer holds what it missed), and waits until it is
#          Synced in a cluster of 3 nodes. The other nodes are left alone.
#          A nemesis (package nemesis) kills and pauses nodes by the pids
#          and heals them with it.
#
# DIR (default /tmp/isocheck-galera) holds each node's datadir, config,
# socket, pid file and error log. Node n (1..3) listens for clients on port
# 3306+n, for Galera on 4567+10(n-1), for IST on 4568+10(n-1) and for SST
# on 4569+10(n-1). The user isocheck has no password and all privileges;
# the database isocheck exists.
#
# Messages go to stderr; only the DSN goes to stdout.
set -euo pipefail

readonly NODES=3
readonly USER_NAME=isocheck
readonly DB_NAME=isocheck
readonly PROVIDER=/usr/lib/galera/libgalera_smm.so
readonly TIMEOUT=120 # seconds to wait for a node

usage() {
	echo "usage: $0 start|stop|dsn|pids|heal [DIR]" >&2
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
	dir=${3:-/tmp/isocheck-galera}
	;;
lossy | skew)
	[[ $# -ge 3 && $# -le 4 ]] || usage
	dir=${4:-/tmp/isocheck-galera}
	;;
*)
	[[ $# -ge 1 && $# -le 2 ]] || usage
	dir=${2:-/tmp/isocheck-galera}
	;;
esac

say() { echo "galera: $*" >&2; }
die() {
	say "$*"
	exit 1
}

readonly netns_sh=$(dirname "$0")/netns.sh

# netns names the namespaces the nodes run in, "" on loopback: from
# ISOCHECK_NETNS when starting, else from the cluster's DIR.
netns=
if [[ -f $dir/netns ]]; then
	netns=$(<"$dir/netns")
elif [[ $cmd == start ]]; then
	netns=${ISOCHECK_NETNS:-}
fi

# host n is node n's address.
host() {
	if [[ -n $netns ]]; then
		echo "10.213.0.$1"
	else
		echo 127.0.0.1
	fi
}

# in_node n CMD...: CMD in node n's namespace, or here on loopback.
in_node() {
	local n=$1
	shift
	if [[ -n $netns ]]; then
		ip netns exec "$netns-$((n - 1))" "$@"
	else
		"$@"
	fi
}

readonly faketime_lib=/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1

# faketime: the servers run under libfaketime, each with its clock file
# (node n's is clock(n-1), as skew numbers them from 0).
faketime() { [[ -f $dir/faketime ]]; }
clockfile() { echo "$dir/clock$1"; }

# setclock I OFFSET writes node I's clock file in one step.
setclock() {
	echo "$2" >"$(clockfile "$1").tmp"
	chmod 644 "$(clockfile "$1").tmp"
	mv "$(clockfile "$1").tmp" "$(clockfile "$1")"
}

port() { echo $((3306 + $1)); }
gport() { echo $((4567 + 10 * ($1 - 1))); }
ndir() { echo "$dir/node$1"; }
sock() { echo "$dir/node$1.sock"; }
pidfile() { echo "$dir/node$1.pid"; }
logfile() { echo "$dir/node$1.err"; }

dsn() {
	local hosts="" n
	for ((n = 1; n <= NODES; n++)); do
		hosts+="${hosts:+,}$(host "$n"):$(port "$n")"
	done
	echo "mysql://$USER_NAME@$hosts/$DB_NAME"
}

# pid prints node n's server pid if it is running (the pid file comes
# late, after a joiner's SST, so the process list is asked first).
pid() {
	local f p
	p=$(pgrep -o -f -- "mariadbd --defaults-file=$dir/node$1.cnf( |\$)") && {
		echo "$p"
		return
	}
	f=$(pidfile "$1")
	[[ -s $f ]] || return 1
	p=$(<"$f")
	kill -0 "$p" 2>/dev/null || return 1
	# A killed server waiting to be reaped is not running.
	[[ $(ps -o stat= -p "$p" 2>/dev/null) != Z* ]] || return 1
	echo "$p"
}

# sql runs a statement on node n as root over its socket.
sql() {
	mariadb --no-defaults -uroot -S "$(sock "$1")" -N -B -e "$2"
}

status() {
	sql "$1" "SHOW GLOBAL STATUS LIKE '$2'" 2>/dev/null | cut -f2
}

synced() {
	[[ $(status "$1" wsrep_local_state_comment) == Synced ]]
}

install_packages() {
	local missing=()
	command -v mariadbd >/dev/null || missing+=(mariadb-server)
	command -v mariadb >/dev/null || missing+=(mariadb-client)
	[[ -f $PROVIDER ]] || missing+=(galera-4)
	command -v rsync >/dev/null || missing+=(rsync)
	command -v ss >/dev/null || command -v lsof >/dev/null || missing+=(iproute2)
	((${#missing[@]} == 0)) && return
	[[ $(id -u) -eq 0 ]] || die "missing ${missing[*]}; install them (apt-get install ${missing[*]}) or run as root"
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq "${missing[@]}" >&2
}

# config writes node n's option file.
config() {
	local n=$1 members="" m
	for ((m = 1; m <= NODES; m++)); do
		members+="${members:+,}$(host "$m"):$(gport "$m")"
	done
	local h
	h=$(host "$n")
	cat >"$dir/node$n.cnf" <<EOF
[mariadbd]
datadir=$(ndir "$n")
socket=$(sock "$n")
pid-file=$(pidfile "$n")
log-error=$(logfile "$n")
port=$(port "$n")
bind-address=$h
skip-name-resolve
user=mysql
max_connections=500
default-storage-engine=InnoDB
innodb_autoinc_lock_mode=2
innodb_buffer_pool_size=64M
innodb_log_file_size=48M
innodb_flush_log_at_trx_commit=0
binlog_format=ROW
wsrep_on=ON
wsrep_provider=$PROVIDER
wsrep_cluster_name=isocheck
wsrep_cluster_address=gcomm://$members
wsrep_node_name=node$n
wsrep_node_address=$h:$(gport "$n")
wsrep_provider_options="gmcast.listen_addr=tcp://$h:$(gport "$n");ist.recv_addr=$h:$(($(gport "$n") + 1));gcache.size=64M"
wsrep_sst_method=rsync
wsrep_sst_receive_address=$h:$(($(gport "$n") + 2))
EOF
}

# launch starts node n's server in the background.
launch() {
	local n=$1
	shift
	say "starting node $n (port $(port "$n"), log $(logfile "$n"))"
	# The server runs as mysql, which must reach its files.
	chown -R mysql:mysql "$dir"
	local env=()
	if faketime; then
		env=(env LD_PRELOAD="$faketime_lib" FAKETIME_TIMESTAMP_FILE="$(clockfile $((n - 1)))" FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1)
	fi
	setsid ${netns:+ip netns exec "$netns-$((n - 1))"} "${env[@]}" mariadbd --defaults-file="$dir/node$n.cnf" "$@" </dev/null >>"$(logfile "$n")" 2>&1 &
}

# await waits until node n answers and is Synced.
await() {
	local n=$1 i
	for ((i = 0; i < TIMEOUT * 5; i++)); do
		if synced "$n"; then
			return
		fi
		if ((i > 10)) && ! pid "$n" >/dev/null; then
			tail -n 20 "$(logfile "$n")" >&2 || true
			die "node $n exited; see $(logfile "$n")"
		fi
		sleep 0.2
	done
	tail -n 20 "$(logfile "$n")" >&2 || true
	die "node $n not Synced after ${TIMEOUT}s; see $(logfile "$n")"
}

running() {
	local n
	for ((n = 1; n <= NODES; n++)); do
		pid "$n" >/dev/null || return 1
	done
}

start() {
	local n
	if running; then
		for ((n = 1; n <= NODES; n++)); do
			await "$n"
		done
		say "already running in $dir"
		dsn
		return
	fi
	if [[ -e $dir ]]; then
		say "$dir holds a stopped or partial cluster; removing it"
		stop_nodes
		rm -rf "$dir"
	fi
	local p
	for ((n = 1; n <= NODES; n++)); do
		[[ -z $netns ]] || break # the namespaces are the cluster's own
		for p in $(port "$n") $(gport "$n") $(($(gport "$n") + 1)) $(($(gport "$n") + 2)); do
			if ss -Hltn "sport = :$p" 2>/dev/null | grep -q .; then
				die "port $p is in use; is another server running?"
			fi
		done
	done
	install_packages
	local t0=$SECONDS
	mkdir -p "$dir"
	if [[ ${ISOCHECK_FAKETIME:-} == 1 ]]; then
		[[ -f $faketime_lib ]] || apt-get install -y -qq libfaketime >&2 ||
			die "libfaketime is not installed (apt-get install faketime)"
		touch "$dir/faketime"
		for ((n = 0; n < NODES; n++)); do
			setclock "$n" +0
		done
	fi
	if [[ -n $netns ]]; then
		echo "$netns" >"$dir/netns"
		"$netns_sh" down "$netns"
		"$netns_sh" up "$netns" "$NODES" || die "could not make the namespaces $netns-*"
	fi
	for ((n = 1; n <= NODES; n++)); do
		config "$n"
		mkdir -p "$(ndir "$n")"
	done
	chown -R mysql:mysql "$dir"

	say "initializing node 1's datadir"
	mariadb-install-db --defaults-file="$dir/node1.cnf" --skip-test-db \
		--auth-root-authentication-method=socket >"$dir/install.log" 2>&1 ||
		die "mariadb-install-db failed; see $dir/install.log"

	launch 1 --wsrep-new-cluster
	await 1
	sql 1 "CREATE DATABASE IF NOT EXISTS $DB_NAME;
		CREATE USER IF NOT EXISTS '$USER_NAME'@'%';
		CREATE USER IF NOT EXISTS '$USER_NAME'@'localhost';
		GRANT ALL PRIVILEGES ON *.* TO '$USER_NAME'@'%';
		GRANT ALL PRIVILEGES ON *.* TO '$USER_NAME'@'localhost';"

	# The joiners start together; each takes a full SST from a Synced
	# donor, the second waiting until there is one.
	for ((n = 2; n <= NODES; n++)); do
		launch "$n"
	done
	for ((n = 2; n <= NODES; n++)); do
		await "$n"
	done
	local size
	for ((n = 1; n <= NODES; n++)); do
		size=$(status "$n" wsrep_cluster_size)
		[[ $size == "$NODES" ]] || die "node $n sees a cluster of $size nodes, want $NODES"
	done
	say "cluster of $NODES nodes Synced in $((SECONDS - t0))s"
	dsn
}

# stop_nodes stops every running node, joiners first.
stop_nodes() {
	local n p i
	for ((n = NODES; n >= 1; n--)); do
		p=$(pid "$n") || continue
		say "stopping node $n (pid $p)"
		kill -TERM "$p"
		for ((i = 0; i < TIMEOUT * 5; i++)); do
			kill -0 "$p" 2>/dev/null || continue 2
			sleep 0.2
		done
		say "node $n did not stop in ${TIMEOUT}s; killing it"
		kill -KILL "$p" 2>/dev/null || true
	done
}

# pids prints each node's index from 0 and its pid, - if it is not running.
pids() {
	local n p
	[[ -f $dir/node1.cnf ]] || die "no cluster in $dir; start one with: $0 start${2:+ $dir}"
	for ((n = 1; n <= NODES; n++)); do
		p=$(pid "$n") || p=-
		echo "$((n - 1)) $p"
	done
}

# restart_node i starts the killed node i+1 again from its datadir at its
# recovered position and waits until it is Synced in the whole cluster.
restart_node() {
	local i=$1 n p t0=$SECONDS
	[[ $i =~ ^[0-9]+$ ]] && ((i < NODES)) || die "restart-node: no node $i (nodes are 0 to $((NODES - 1)))"
	n=$((i + 1))
	[[ -f $dir/node$n.cnf && -d $(ndir "$n") ]] || die "restart-node: no node $n in $dir; start a cluster with: $0 start"
	if p=$(pid "$n"); then
		die "restart-node: node $n (index $i) is running (pid $p)"
	fi
	# The killed server's ports are free once its process is gone.
	local i2
	for p in $(port "$n") $(gport "$n") $(($(gport "$n") + 1)) $(($(gport "$n") + 2)); do
		for ((i2 = 0; ; i2++)); do
			in_node "$n" ss -Hltn "sport = :$p" 2>/dev/null | grep -q . || break
			((i2 < TIMEOUT * 5)) || die "restart-node: port $p is still in use"
			sleep 0.2
		done
	done
	# A crashed node keeps its view of the primary component in
	# gvwstate.dat and would come back under its old identity, which the
	# others still hold until they evict it (evs.suspect_timeout): the
	# rejoin would wait for view install timeouts. The others run a
	# primary component; the node joins it as a new member.
	rm -f "$(ndir "$n")/gvwstate.dat"
	# After a crash grastate.dat holds no position (seqno -1), and a node
	# started without one takes a full SST. InnoDB knows the last
	# committed write set: recover it and start from there for an IST.
	local rlog=$dir/node$n.recover.err pos=()
	: >"$rlog"
	chown -R mysql:mysql "$dir"
	say "recovering node $n's position"
	if mariadbd --defaults-file="$dir/node$n.cnf" --wsrep-recover --log-error="$rlog" </dev/null >>"$rlog" 2>&1; then
		p=$(sed -n 's/.*WSREP: Recovered position: *\([0-9a-f-]*:-\{0,1\}[0-9]*\).*/\1/p' "$rlog" | tail -n 1)
		if [[ -n $p && $p != *:-1 ]]; then
			say "node $n recovered position $p"
			pos=(--wsrep-start-position="$p")
		else
			say "node $n has no position to recover; it will take a full SST"
		fi
	else
		say "recovering node $n's position failed (see $rlog); it will take a full SST"
	fi
	launch "$n" "${pos[@]}"
	await "$n"
	local size
	size=$(status "$n" wsrep_cluster_size)
	[[ $size == "$NODES" ]] || die "restart-node: node $n sees a cluster of $size nodes, want $NODES"
	say "node $n rejoined and is Synced in $((SECONDS - t0))s"
}

case $cmd in
start)
	start
	;;
pids)
	pids "$@"
	;;
restart-node)
	restart_node "$2"
	;;
partition)
	[[ -n $netns ]] || die "partition: the cluster in $dir runs on loopback; start it with ISOCHECK_NETNS=NAME to cut its links"
	"$netns_sh" partition "$netns" "$2"
	;;
leader)
	die "leader: Galera has no leader, every node takes writes (isolate one with --nemesis partition=one)"
	;;
skew)
	faketime || die "skew: the servers in $dir do not run under libfaketime; start them with ISOCHECK_FAKETIME=1"
	[[ $2 =~ ^[0-9]+$ ]] && (($2 < NODES)) || die "skew: no node $2 (nodes are 0 to $((NODES - 1)))"
	[[ $3 =~ ^[+-][0-9]+(\.[0-9]+)?$ ]] || die "skew: offset $3 is not seconds with a sign, such as +30 or -2.5"
	setclock "$2" "$3"
	;;
lossy)
	[[ -n $netns ]] || die "lossy: the cluster in $dir runs on loopback; start it with ISOCHECK_NETNS=NAME to degrade its links"
	"$netns_sh" lossy "$netns" "$2" "$3"
	;;
heal)
	if faketime; then
		for ((n = 0; n < NODES; n++)); do
			setclock "$n" +0
		done
	fi
	[[ -n $netns ]] || exit 0
	"$netns_sh" heal "$netns"
	# A node cut off left the primary component: healed, it rejoins by
	# IST. The cluster is whole again when every node is Synced, ready
	# and sees all the others.
	for ((n = 1; n <= NODES; n++)); do
		for ((i = 0; ; i++)); do
			synced "$n" && [[ $(status "$n" wsrep_ready) == ON && $(status "$n" wsrep_cluster_size) == "$NODES" ]] && break
			((i < TIMEOUT * 5)) || die "heal: node $n is not Synced in a whole cluster ${TIMEOUT}s after the links were restored; see $(logfile "$n")"
			sleep 0.2
		done
	done
	;;
stop)
	if [[ ! -e $dir ]]; then
		say "no cluster in $dir"
		exit 0
	fi
	stop_nodes
	[[ -z $netns ]] || "$netns_sh" down "$netns"
	rm -rf "$dir"
	say "stopped; removed $dir"
	;;
dsn)
	running || die "no cluster running in $dir; start one with: $0 start${2:+ $dir}"
	dsn
	;;
*)
	usage
	;;
esac
