#!/usr/bin/env bash
# netns.sh up NAME N | down NAME | addr NAME I | partition NAME SPEC |
# lossy NAME NODES PERCENT | heal NAME | exec NAME I|c CMD...: a network of N nodes and one client,
# each in a network namespace of its own, for clusters whose links a
# nemesis cuts. Needs root, ip (iproute2) and nft (nftables).
#
#   up         creates the namespaces NAME-hub (a bridge), NAME-0 ...
#              NAME-(N-1) (node I at 10.213.0.(I+1)) and NAME-c (the
#              client, at 10.213.0.100), each with its end of a veth pair
#              on the bridge and its loopback up. Nothing is added to the
#              namespace the script runs in: the veths are made inside
#              the new namespaces, and the addresses live only there.
#   down       deletes NAME's namespaces (their links go with them).
#   addr       prints node I's address.
#   partition  cuts links between nodes, as SPEC says: groups of node
#              indexes joined by '|', nodes by ',' ("0|1,2"), each node
#              cut from the nodes outside its group (a node in no group
#              from every other); or the links cut, as pairs ("0-2,1-2").
#              Each node drops the packets of the nodes it is cut from
#              (nftables, in its own namespace), as Jepsen's partitions
#              do; the client reaches every node.
#   lossy      drops PERCENT of the packets that reach the nodes NODES
#              lists ("0,2"), from every node and the client, at random
#              (nftables). Delay and reordering would need tc netem,
#              which not every kernel has.
#   heal       removes every cut and every loss.
#   exec       runs CMD in node I's namespace, or the client's (c).
set -euo pipefail

readonly subnet=10.213.0
readonly client_host=100
readonly table=isocheck_partition
readonly loss_table=isocheck_loss

usage() {
	echo "usage: $0 up NAME N | down NAME | addr NAME I | partition NAME SPEC | lossy NAME NODES PERCENT | heal NAME | exec NAME I|c CMD..." >&2
	exit 2
}

die() {
	echo "netns.sh: $*" >&2
	exit 1
}

# nodes NAME: the indexes of NAME's node namespaces, in order.
nodes() {
	ip netns list | awk '{print $1}' | sed -n "s/^$1-\([0-9][0-9]*\)\$/\1/p" | sort -n
}

up() {
	local name=$1 n=$2 i
	[[ $n =~ ^[1-9][0-9]?$ && $n -le 99 ]] || die "N must be 1 to 99, not $n"
	[[ $(id -u) == 0 ]] || die "network namespaces need root"
	command -v nft >/dev/null || die "nft (nftables) is not installed"
	ip netns list | grep -q "^$name-hub\b" && die "namespace $name-hub exists already: $0 down $name first"
	ip netns add "$name-hub"
	ip -n "$name-hub" link add br0 type bridge
	ip -n "$name-hub" link set br0 up
	ip -n "$name-hub" link set lo up
	for ((i = 0; i < n; i++)); do
		attach "$name" "$i" $((i + 1))
	done
	attach "$name" c "$client_host"
}

# attach NAME I HOST: namespace NAME-I at subnet.HOST on the bridge.
attach() {
	local name=$1 ns=$1-$2 host=$3
	ip netns add "$ns"
	ip link add "p$2" netns "$name-hub" type veth peer name eth0 netns "$ns"
	ip -n "$name-hub" link set "p$2" master br0 up
	ip -n "$ns" addr add "$subnet.$host/24" dev eth0
	ip -n "$ns" link set eth0 up
	ip -n "$ns" link set lo up
}

down() {
	local name=$1 ns
	for ns in $(ip netns list | awk '{print $1}' | grep -E "^$name-([0-9]+|c|hub)\$" || true); do
		ip netns del "$ns"
	done
}

addr() { echo "$subnet.$(($2 + 1))"; }

heal() {
	local name=$1 i
	for i in $(nodes "$name"); do
		ip netns exec "$name-$i" nft delete table inet "$table" 2>/dev/null || true
		ip netns exec "$name-$i" nft delete table inet "$loss_table" 2>/dev/null || true
	done
}

# lossy NAME NODES PERCENT: NODES drop PERCENT of what reaches them.
lossy() {
	local name=$1 spec=$2 percent=$3 i all
	all=$(nodes "$name")
	[[ $spec =~ ^[0-9]+(,[0-9]+)*$ ]] || die "lossy: nodes $spec are not indexes like 0,2"
	[[ $percent =~ ^[0-9]+$ ]] && ((percent >= 1 && percent <= 100)) || die "lossy: $percent is not a percentage from 1 to 100"
	for i in ${spec//,/ }; do
		grep -qx "$i" <<<"$all" || die "no node $i in $name"
	done
	for i in ${spec//,/ }; do
		ip netns exec "$name-$i" nft delete table inet "$loss_table" 2>/dev/null || true
		ip netns exec "$name-$i" nft -f - <<EOF
table inet $loss_table {
	chain input {
		type filter hook input priority 0; policy accept;
		ip saddr $subnet.0/24 numgen random mod 100 < $percent drop
	}
}
EOF
	done
}

partition() {
	local name=$1 spec=$2 i j group
	local -A group_of=() cut_pair=()
	local all
	all=$(nodes "$name")
	[[ -n $all ]] || die "no nodes named $name-I"
	if [[ $spec =~ ^[0-9]+-[0-9]+(,[0-9]+-[0-9]+)*$ ]]; then
		local IFS=,
		for pair in $spec; do
			i=${pair%-*} j=${pair#*-}
			grep -qx "$i" <<<"$all" && grep -qx "$j" <<<"$all" || die "no node $i or $j in $name"
			cut_pair[$i-$j]=1 cut_pair[$j-$i]=1
		done
		unset IFS
		cut_links "$name" "$all" cut_pair
		return
	fi
	[[ $spec =~ ^[0-9]+(,[0-9]+)*(\|[0-9]+(,[0-9]+)*)*$ ]] || die "partition spec $spec is neither groups of nodes like 0|1,2 nor links like 0-2,1-2"
	group=0
	local IFS='|'
	for g in $spec; do
		IFS=','
		for i in $g; do
			[[ -z ${group_of[$i]:-} ]] || die "node $i is in two groups of $spec"
			grep -qx "$i" <<<"$all" || die "no node $i in $name"
			group_of[$i]=$group
		done
		IFS='|'
		group=$((group + 1))
	done
	unset IFS
	for i in $all; do
		for j in $all; do
			if [[ $i != "$j" && (-z ${group_of[$i]:-} || ${group_of[$i]:-} != "${group_of[$j]:-x}") ]]; then
				cut_pair[$i-$j]=1
			fi
		done
	done
	cut_links "$name" "$all" cut_pair
}

# cut_links NAME NODES PAIRS: each node drops the packets of the nodes
# the associative array named PAIRS pairs it with ("I-J").
cut_links() {
	local name=$1 all=$2 i j
	local -n pairs=$3
	heal "$name"
	for i in $all; do
		local cut=()
		for j in $all; do
			[[ -n ${pairs[$i-$j]:-} ]] && cut+=("$(addr "$name" "$j")")
		done
		((${#cut[@]})) || continue
		local set
		set=$(
			IFS=,
			echo "${cut[*]}"
		)
		ip netns exec "$name-$i" nft -f - <<EOF
table inet $table {
	chain input {
		type filter hook input priority 0; policy accept;
		ip saddr { $set } drop
	}
}
EOF
	done
}

[[ $# -ge 2 ]] || usage
cmd=$1 name=$2
[[ $name =~ ^[a-z][a-z0-9]{0,11}$ ]] || die "NAME must be 1 to 12 lowercase letters and digits, starting with a letter, not $name"
case $cmd in
up) [[ $# == 3 ]] || usage; up "$name" "$3" ;;
down) [[ $# == 2 ]] || usage; down "$name" ;;
addr) [[ $# == 3 ]] || usage; addr "$name" "$3" ;;
partition) [[ $# == 3 ]] || usage; partition "$name" "$3" ;;
lossy) [[ $# == 4 ]] || usage; lossy "$name" "$3" "$4" ;;
heal) [[ $# == 2 ]] || usage; heal "$name" ;;
exec)
	[[ $# -ge 4 ]] || usage
	ns=$name-$3
	shift 3
	exec ip netns exec "$ns" "$@"
	;;
*) usage ;;
esac
