#!/usr/bin/env bash
# Sets up a one-node Slurm cluster on this machine (Debian 12, as root) for
# the fleet tests: munge, slurmctld and slurmd on localhost, every CPU and
# all the memory of the machine in one partition, no accounting. Safe to run
# again: it installs what is missing, rewrites slurm.conf only when it
# changes (restarting the daemons then), starts what is not running, and
# waits until sinfo shows the node idle.
#
#   sudo bash scripts/slurm-localhost.sh
#   sudo bash scripts/slurm-localhost.sh --stop   # stop what the first started
#
# The daemons it starts (those not already running) are listed in
# /run/coloc-slurm-localhost.started; --stop stops exactly those, so CI
# (.ci/run) leaves a machine as it found it.
#
# Beside the real node it defines four GPU nodes that never run anything
# (two v100, two k80, 4 GPUs and 8 shards each, partition coloc-gpu, down:
# no slurmd answers for them) and installs coloc's submit hook
# (integrations/slurm/job_submit.lua, asking 127.0.0.1:18480): the Slurm
# end-to-end test submits held jobs there and reads coloc's decisions back.
# Jobs that name no coloc workload pass the hook unchanged.
#
# The configuration suits a test machine, not a cluster: SlurmUser=root,
# ProctrackType=proctrack/linuxproc (no cgroups: containers often lack
# them), TaskPlugin=task/none, SelectType=select/cons_tres with CR_Core
# (memory is not a consumable resource, so tasks never wait for memory).
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
	echo "slurm-localhost.sh: run as root (it writes /etc/slurm and starts daemons)" >&2
	exit 1
fi

started=/run/coloc-slurm-localhost.started
# started_by_us KIND NAME: remember a daemon this script started, as
# "systemd SERVICE" or "pidfile PATH".
started_by_us() { echo "$1 $2" >>"$started"; }

if [ "${1:-}" = --stop ]; then
	[ -f "$started" ] || exit 0
	# Stop in the reverse order of starting: slurmd, slurmctld, munged.
	tac "$started" | while read -r kind name; do
		case $kind in
		systemd) systemctl stop "$name" || true ;;
		pidfile)
			if [ -s "$name" ] && kill -0 "$(cat "$name")" 2>/dev/null; then
				pid=$(cat "$name")
				kill "$pid" || true
				for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
			fi
			;;
		esac
		echo "slurm-localhost.sh: stopped $name"
	done
	rm -f "$started"
	exit 0
fi

export DEBIAN_FRONTEND=noninteractive
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
	apt-get update -qq
	apt-get install -y -qq slurm-wlm munge >/dev/null
fi

# systemd as PID 1 runs the daemons as services; elsewhere (containers)
# they are started directly.
use_systemd=0
if [ "$(ps -p 1 -o comm= 2>/dev/null)" = systemd ]; then use_systemd=1; fi

# --- munge ---------------------------------------------------------------
if [ ! -s /etc/munge/munge.key ]; then
	install -d -o munge -g munge -m 0700 /etc/munge
	if command -v mungekey >/dev/null; then
		mungekey --create --keyfile=/etc/munge/munge.key
	else
		dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
	fi
	chown munge:munge /etc/munge/munge.key
	chmod 0400 /etc/munge/munge.key
fi
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
	install -d -o munge -g munge -m 0755 /run/munge
	install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
	if [ "$use_systemd" = 1 ]; then
		systemctl restart munge
		started_by_us systemd munge
	else
		runuser -u munge -- /usr/sbin/munged
		started_by_us pidfile /run/munge/munged.pid
	fi
	for _ in $(seq 50); do
		munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
		sleep 0.2
	done
	munge -n | unmunge >/dev/null
fi

# --- slurm.conf ----------------------------------------------------------
host=$(hostname -s)
# slurmd -C prints this machine's node line: NodeName=<host> CPUs=...
# RealMemory=... (the real CPU count and memory in MB).
node=$(slurmd -C | head -n 1)
case $node in
NodeName=*) ;;
*) echo "slurm-localhost.sh: slurmd -C printed no node line: $node" >&2; exit 1 ;;
esac
conf=$(cat <<EOF
# Written by scripts/slurm-localhost.sh: a one-node test cluster.
ClusterName=coloc-ci
SlurmctldHost=$host
AuthType=auth/munge
SlurmUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
GresTypes=gpu,shard
JobSubmitPlugins=lua
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmdSpoolDir=/var/spool/slurmd
StateSaveLocation=/var/spool/slurmctld
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
$node State=UNKNOWN
NodeName=coloc-v100-[1-2] NodeAddr=127.0.0.1 Port=1 CPUs=8 RealMemory=64000 Gres=gpu:v100:4,shard:8 State=DOWN
NodeName=coloc-k80-[1-2] NodeAddr=127.0.0.1 Port=1 CPUs=8 RealMemory=64000 Gres=gpu:k80:4,shard:8 State=DOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
PartitionName=coloc-gpu Nodes=coloc-v100-[1-2],coloc-k80-[1-2] Default=NO MaxTime=INFINITE State=UP
EOF
)
# The GPU nodes' devices: slurmctld needs them named to split GPUs into
# shards; no slurmd ever opens them.
gres=$(cat <<EOF
NodeName=coloc-v100-[1-2] Name=gpu Type=v100 File=/dev/nvidia[0-3]
NodeName=coloc-v100-[1-2] Name=shard Count=8
NodeName=coloc-k80-[1-2] Name=gpu Type=k80 File=/dev/nvidia[0-3]
NodeName=coloc-k80-[1-2] Name=shard Count=8
EOF
)
hook="$(dirname "$0")/../integrations/slurm/job_submit.lua"
install -d /etc/slurm /var/spool/slurmd /var/spool/slurmctld /var/log/slurm
changed=0
if [ ! -f /etc/slurm/slurm.conf ] || [ "$(cat /etc/slurm/slurm.conf)" != "$conf" ]; then
	printf '%s\n' "$conf" >/etc/slurm/slurm.conf.new
	mv /etc/slurm/slurm.conf.new /etc/slurm/slurm.conf
	changed=1
fi
if [ ! -f /etc/slurm/gres.conf ] || [ "$(cat /etc/slurm/gres.conf)" != "$gres" ]; then
	printf '%s\n' "$gres" >/etc/slurm/gres.conf
	changed=1
fi
if ! cmp -s "$hook" /etc/slurm/job_submit.lua; then
	install -m 0644 "$hook" /etc/slurm/job_submit.lua
	changed=1
fi

# --- daemons -------------------------------------------------------------
# running PIDFILE: the daemon whose pid the file holds is alive.
running() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
# stop PIDFILE: end that daemon and wait for it to go.
stop() {
	if running "$1"; then
		local pid
		pid=$(cat "$1")
		kill "$pid"
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	fi
}
if [ "$use_systemd" = 1 ]; then
	for svc in slurmctld slurmd; do
		systemctl is-active --quiet "$svc" || started_by_us systemd "$svc"
	done
	if [ "$changed" = 1 ]; then
		systemctl restart slurmctld slurmd
	else
		systemctl start slurmctld slurmd
	fi
else
	if [ "$changed" = 1 ]; then
		stop /run/slurmd.pid
		stop /run/slurmctld.pid
	fi
	running /run/slurmctld.pid || { slurmctld && started_by_us pidfile /run/slurmctld.pid; }
	running /run/slurmd.pid || { slurmd && started_by_us pidfile /run/slurmd.pid; }
fi

# --- wait for the node ---------------------------------------------------
state=""
for i in $(seq 120); do
	state=$(sinfo -h -N -n "$host" -o %T 2>/dev/null | head -n 1 || true)
	case $state in
	idle | mixed | allocated) break ;;
	down* | drain* | fail*)
		# Left down by an earlier configuration or an unclean stop.
		scontrol update NodeName="$host" State=RESUME 2>/dev/null || true ;;
	esac
	sleep 0.5
done
case $state in
idle | mixed | allocated) ;;
*)
	echo "slurm-localhost.sh: node $host is '$state' after 60 s; see /var/log/slurm/" >&2
	sinfo -N -l >&2 || true
	exit 1
	;;
esac
echo "slurm: node $host $state ($(echo "$node" | grep -o 'CPUs=[0-9]*') $(echo "$node" | grep -o 'RealMemory=[0-9]*'))"
