#!/usr/bin/env bash
# etcd.sh start|stop|dsn|pids|heal|leader [DIR], etcd.sh restart-node I
# [DIR], etcd.sh partition SPEC [DIR], etcd.sh lossy NODES PERCENT [DIR]: a
# throwaway 3-node etcd cluster on
# loopback, or each member in a network namespace of its own, for
# `isocheck run` and the tests of db/etcd.
#
#   start         installs etcd-server (Debian) if etcd is missing, starts
#                 three members in the background with their data and logs
#                 under DIR, waits until every member is healthy and prints
#                 the DSN. With ISOCHECK_NETNS=NAME (root), the members run
#                 in the namespaces of `scripts/netns.sh up NAME 3`, at
#                 10.213.0.1 to .3, and the clients must run in NAME-c:
#                 ip netns exec NAME-c isocheck run --db DSN ...
#   stop          stops the members started from DIR and removes DIR (and
#                 the namespaces of a cluster started in them).
#   dsn           prints the DSN.
#   pids          prints a line per member: its index (0, 1, 2) and the pid
#                 of its server, or - if it is not running.
#   restart-node  starts member I (0, 1 or 2) again after it was killed,
#                 from its data dir, and waits until every member is
#                 healthy; the other members are left alone. It prints
#                 nothing on stdout. A nemesis (package nemesis) kills and
#                 pauses members by the pids and heals them with it.
#   partition     (namespaces only) cuts the members into the groups of
#                 SPEC, such as 0|1,2 (see scripts/netns.sh); heal joins
#                 them again and waits until every member is healthy.
#   lossy         (namespaces only) the members NODES lists ("0,2") drop
#                 PERCENT of the packets that reach them; heal ends it.
#   leader        prints the index of the member that leads.
#
# DIR defaults to /tmp/isocheck-etcd. On loopback, client ports are 2379,
# 2381 and 2383, peer ports 2380, 2382 and 2384; in namespaces every
# member has 2379 and 2380 on its own address. Starting a running cluster
# only prints its DSN; stopping a stopped one does nothing.
#
#   ISOCHECK_ETCD_DSN=$(scripts/etcd.sh start) go test ./db/etcd/
set -euo pipefail

readonly names=(n0 n1 n2)
client_ports=(2379 2381 2383)
peer_ports=(2380 2382 2384)
hosts=(127.0.0.1 127.0.0.1 127.0.0.1)
readonly start_timeout=30 # seconds
readonly netns_sh=$(dirname "$0")/netns.sh

# netns is the name of the namespaces the members run in, "" on loopback;
# set by use_netns.
netns=

# use_netns NAME: the members' addresses and ports in NAME's namespaces.
use_netns() {
	netns=$1
	local i
	for i in "${!names[@]}"; do
		hosts[i]=10.213.0.$((i + 1))
		client_ports[i]=2379
		peer_ports[i]=2380
	done
}

# in_member I CMD...: CMD in member I's namespace, or here on loopback.
in_member() {
	local i=$1
	shift
	if [[ -n $netns ]]; then
		ip netns exec "$netns-$i" "$@"
	else
		"$@"
	fi
}

# in_client CMD...: CMD where the clients run.
in_client() {
	if [[ -n $netns ]]; then
		ip netns exec "$netns-c" "$@"
	else
		"$@"
	fi
}

usage() {
	echo "usage: $0 start|stop|dsn|pids|heal|leader [DIR]" >&2
	echo "       $0 restart-node I [DIR]" >&2
	echo "       $0 partition SPEC [DIR]" >&2
	echo "       $0 lossy NODES PERCENT [DIR]" >&2
	exit 2
}

log() { echo "etcd.sh: $*" >&2; }
die() {
	log "$*"
	exit 1
}

dsn() {
	local eps=() i
	for i in "${!names[@]}"; do
		eps+=("${hosts[i]}:${client_ports[i]}")
	done
	local IFS=,
	echo "etcd://${eps[*]}"
}

# alive DIR NAME: the member's pid if its process runs.
alive() {
	local pidfile=$1/$2.pid pid
	[[ -f $pidfile ]] || return 1
	pid=$(<"$pidfile")
	[[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 1
	# The pid must still be an etcd (not a recycled pid), and not a
	# killed one waiting to be reaped.
	[[ $(ps -o comm= -p "$pid" 2>/dev/null) == etcd ]] || return 1
	[[ $(ps -o stat= -p "$pid" 2>/dev/null) != Z* ]] || return 1
	echo "$pid"
}

# healthy: every member answers a quorum read.
healthy() {
	local i
	for i in "${!names[@]}"; do
		ETCDCTL_API=3 in_client etcdctl --endpoints="${hosts[i]}:${client_ports[i]}" --command-timeout=2s \
			endpoint health >/dev/null 2>&1 || return 1
	done
}

install_etcd() {
	command -v etcd >/dev/null && command -v etcdctl >/dev/null && return
	command -v apt-get >/dev/null || die "etcd is not installed and apt-get is missing: install etcd 3.4 or later"
	log "installing etcd-server and etcd-client with apt-get"
	local sudo=()
	[[ $(id -u) == 0 ]] || sudo=(sudo)
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq etcd-server etcd-client >&2 ||
		die "apt-get install etcd-server etcd-client failed"
}

# initial_cluster prints the members' names and peer URLs.
initial_cluster() {
	local peers=() i
	for i in "${!names[@]}"; do
		peers+=("${names[i]}=http://${hosts[i]}:${peer_ports[i]}")
	done
	local IFS=,
	echo "${peers[*]}"
}

# launch DIR I CLUSTER TOKEN STATE starts member I in the background.
launch() {
	local dir=$1 i=$2 n=${names[$2]} host=${hosts[$2]}
	# setsid: the members outlive this script and its terminal. ip netns
	# exec execs etcd in the same process: $! is the member's pid.
	setsid ${netns:+ip netns exec "$netns-$i"} etcd \
		--name "$n" \
		--data-dir "$dir/$n" \
		--listen-client-urls "http://$host:${client_ports[i]}" \
		--advertise-client-urls "http://$host:${client_ports[i]}" \
		--listen-peer-urls "http://$host:${peer_ports[i]}" \
		--initial-advertise-peer-urls "http://$host:${peer_ports[i]}" \
		--initial-cluster "$3" \
		--initial-cluster-token "$4" \
		--initial-cluster-state "$5" \
		--logger zap --log-outputs stderr \
		</dev/null >>"$dir/$n.log" 2>&1 &
	echo $! >"$dir/$n.pid"
}

start() {
	local dir=$1 i n running=0
	install_etcd
	for n in "${names[@]}"; do
		if alive "$dir" "$n" >/dev/null; then
			running=$((running + 1))
		fi
	done
	if ((running == ${#names[@]})) && healthy; then
		log "already running in $dir"
		dsn
		return
	fi
	if ((running > 0)); then
		log "a partial cluster runs in $dir: stopping it first"
		stop "$dir"
	fi
	for i in "${!names[@]}"; do
		local host=${hosts[i]} p=${client_ports[i]} q=${peer_ports[i]}
		[[ -z $netns ]] || break # the namespaces are the cluster's own
		if (echo >"/dev/tcp/$host/$p") 2>/dev/null || (echo >"/dev/tcp/$host/$q") 2>/dev/null; then
			die "port $p or $q on $host is in use by another process, not a member started from $dir (a cluster started from another DIR, or Debian's etcd service: systemctl stop etcd)"
		fi
	done

	rm -rf "$dir"
	mkdir -p "$dir"
	if [[ -n $netns ]]; then
		echo "$netns" >"$dir/netns"
		"$netns_sh" down "$netns"
		"$netns_sh" up "$netns" ${#names[@]} || failed "could not make the namespaces $netns-*"
	fi
	local cluster token
	cluster=$(initial_cluster)
	token=isocheck-$$-$(date +%s)
	for i in "${!names[@]}"; do
		launch "$dir" "$i" "$cluster" "$token" new
	done

	local deadline=$((SECONDS + start_timeout))
	until healthy; do
		for n in "${names[@]}"; do
			alive "$dir" "$n" >/dev/null || failed "member $n exited; see $dir/$n.log"
		done
		((SECONDS < deadline)) || failed "the cluster is not healthy after ${start_timeout}s; see $dir/*.log"
		sleep 0.2
	done
	log "3 members healthy in $dir"
	dsn
}

# kill_members DIR: stops the members started from DIR; prints how many.
kill_members() {
	local dir=$1 n pid pids=()
	for n in "${names[@]}"; do
		if pid=$(alive "$dir" "$n"); then
			kill "$pid"
			pids+=("$pid")
		fi
	done
	local deadline=$((SECONDS + 2)) # then SIGKILL: the data is thrown away
	for pid in "${pids[@]}"; do
		while kill -0 "$pid" 2>/dev/null; do
			if ((SECONDS >= deadline)); then
				kill -9 "$pid" 2>/dev/null || true
				break
			fi
			sleep 0.1
		done
	done
	echo "${#pids[@]}"
}

# failed MESSAGE: stops the members of a failed start, keeping their logs.
failed() {
	kill_members "$dir" >/dev/null
	[[ -z $netns ]] || "$netns_sh" down "$netns"
	die "$*"
}

stop() {
	local dir=$1 killed
	[[ -d $dir ]] || {
		log "nothing to stop in $dir"
		return
	}
	killed=$(kill_members "$dir")
	# The data dirs are removed only if they are ours: each member's
	# pid file or data dir must be there.
	if [[ -f $dir/${names[0]}.pid || -d $dir/${names[0]} || -f $dir/netns ]]; then
		[[ -z $netns ]] || "$netns_sh" down "$netns"
		rm -rf "$dir"
		log "stopped $killed members and removed $dir"
	else
		die "$dir does not look like a cluster of $0: not removed"
	fi
}

# pids DIR prints each member's index and pid, - if it is not running.
pids() {
	local dir=$1 i pid
	[[ -f $dir/${names[0]}.pid || -d $dir/${names[0]} ]] || die "no cluster in $dir; start one with: $0 start $dir"
	for i in "${!names[@]}"; do
		pid=$(alive "$dir" "${names[i]}") || pid=-
		echo "$i $pid"
	done
}

# restart_node DIR I starts the killed member I again from its data dir
# (the flags of a new cluster are ignored then) and waits until every
# member is healthy.
restart_node() {
	local dir=$1 i=$2 n pid t0=$SECONDS
	[[ $i =~ ^[0-9]+$ ]] && ((i < ${#names[@]})) || die "restart-node: no member $i (members are 0 to $((${#names[@]} - 1)))"
	n=${names[i]}
	[[ -d $dir/$n ]] || die "restart-node: no data dir $dir/$n; start a cluster with: $0 start $dir"
	if pid=$(alive "$dir" "$n"); then
		die "restart-node: member $i ($n) is running (pid $pid)"
	fi
	# A killed member's ports are free once its process is gone.
	local p deadline=$((SECONDS + start_timeout))
	for p in "${client_ports[i]}" "${peer_ports[i]}"; do
		while in_member "$i" bash -c "echo >/dev/tcp/${hosts[i]}/$p" 2>/dev/null; do
			((SECONDS < deadline)) || die "restart-node: port $p on ${hosts[i]} is still in use"
			sleep 0.1
		done
	done
	log "restarting member $i ($n) in $dir"
	launch "$dir" "$i" "$(initial_cluster)" isocheck-restart existing
	until healthy; do
		alive "$dir" "$n" >/dev/null || {
			tail -n 20 "$dir/$n.log" >&2 || true
			die "restart-node: member $i ($n) exited; see $dir/$n.log"
		}
		((SECONDS < deadline)) || die "restart-node: the cluster is not healthy ${start_timeout}s after restarting member $i; see $dir/$n.log"
		sleep 0.1
	done
	log "member $i ($n) restarted; 3 members healthy in $((SECONDS - t0))s"
}

# partition DIR SPEC cuts the members into SPEC's groups.
partition() {
	[[ -n $netns ]] || die "partition: the cluster in $1 runs on loopback; start it with ISOCHECK_NETNS=NAME to cut its links"
	"$netns_sh" partition "$netns" "$2"
}

# lossy DIR NODES PERCENT: NODES drop PERCENT of their packets.
lossy() {
	[[ -n $netns ]] || die "lossy: the cluster in $1 runs on loopback; start it with ISOCHECK_NETNS=NAME to degrade its links"
	"$netns_sh" lossy "$netns" "$2" "$3"
}

# skew: etcd cannot have its clock set off here.
skew() {
	die "skew: etcd is written in Go, which reads the clock without libc: libfaketime cannot set it off"
}

# heal DIR joins the members again.
heal() {
	[[ -n $netns ]] || die "heal: the cluster in $1 runs on loopback: nothing to heal"
	"$netns_sh" heal "$netns"
	# Whole again when every member answers a quorum read.
	local deadline=$((SECONDS + start_timeout))
	until healthy; do
		((SECONDS < deadline)) || die "heal: the cluster is not healthy ${start_timeout}s after the links were restored"
		sleep 0.1
	done
}

# leader prints the index of the member that leads (etcdctl's endpoint
# status: the fifth column says whether the member is the leader).
leader() {
	local i
	for i in "${!names[@]}"; do
		if ETCDCTL_API=3 in_client etcdctl --endpoints="${hosts[i]}:${client_ports[i]}" --command-timeout=2s \
			endpoint status 2>/dev/null | awk -F', ' '$5 == "true" {found = 1} END {exit !found}'; then
			echo "$i"
			return
		fi
	done
	die "leader: no member says it leads"
}

case ${1:-} in
start | stop | dsn | pids | heal | leader)
	(($# <= 2)) || usage
	dir=${2:-/tmp/isocheck-etcd}
	;;
restart-node | partition)
	(($# >= 2 && $# <= 3)) || usage
	dir=${3:-/tmp/isocheck-etcd}
	;;
lossy | skew)
	(($# >= 3 && $# <= 4)) || usage
	dir=${4:-/tmp/isocheck-etcd}
	;;
*) usage ;;
esac
if [[ $1 == start ]]; then
	[[ -z ${ISOCHECK_NETNS:-} ]] || use_netns "$ISOCHECK_NETNS"
	# A cluster running in DIR keeps the network it started in.
	[[ ! -f $dir/netns ]] || use_netns "$(<"$dir/netns")"
elif [[ -f $dir/netns ]]; then
	use_netns "$(<"$dir/netns")"
fi
case $1 in
start) start "$dir" ;;
stop) stop "$dir" ;;
dsn) dsn ;;
pids) pids "$dir" ;;
restart-node) restart_node "$dir" "$2" ;;
partition) partition "$dir" "$2" ;;
lossy) lossy "$dir" "$2" "$3" ;;
skew) skew ;;
heal) heal "$dir" ;;
leader) leader ;;
esac
