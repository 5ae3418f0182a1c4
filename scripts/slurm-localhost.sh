#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the Slurm test of
# `mdgen track -slurm` (cmd/mdgen's TestSlurm, run by .ci/run): installs
# Debian's Slurm (slurmctld, slurmd, the clients) and MUNGE when missing,
# writes a slurm.conf for this host, starts munged, slurmctld and slurmd
# without systemd, and waits until the node takes jobs. Needs root (or
# sudo). Debian 12's Slurm 22.05 authenticates with MUNGE (auth/slurm came
# with 23.11).
#
#   scripts/slurm-localhost.sh         set up and start (idempotent)
#   scripts/slurm-localhost.sh stop    stop the daemons it started
#
# It prints the daemons' logs and fails when the node does not come up.
set -euo pipefail

if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
conf=/etc/slurm/slurm.conf
logdir=/var/log/slurm

stop() {
	for p in /run/slurmd.pid /run/slurmctld.pid; do
		if [ -s "$p" ]; then $SUDO kill "$(cat "$p")" 2>/dev/null || true; fi
	done
	if [ -s /run/munge/munged.pid ]; then $SUDO kill "$(cat /run/munge/munged.pid)" 2>/dev/null || true; fi
}
if [ "${1:-}" = stop ]; then
	stop
	exit 0
fi

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
	echo "slurm-localhost: installing slurmctld, slurmd, slurm-client, munge"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
fi

host=$(hostname -s)
cpus=$(nproc)
$SUDO mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd "$logdir" /run/munge /var/lib/munge /var/log/munge
$SUDO tee "$conf" >/dev/null <<EOF
# Written by mdgen's scripts/slurm-localhost.sh: a one-node cluster.
ClusterName=mdgen
SlurmctldHost=$host(127.0.0.1)
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=$logdir/slurmctld.log
SlurmdLogFile=$logdir/slurmd.log
SlurmdSpoolDir=/var/spool/slurmd
StateSaveLocation=/var/spool/slurmctld
SchedulerParameters=sched_interval=1
MinJobAge=300
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

if [ ! -s /etc/munge/munge.key ]; then
	$SUDO dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
$SUDO chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
$SUDO chmod 0400 /etc/munge/munge.key
$SUDO chmod 0700 /etc/munge /var/lib/munge /var/log/munge
$SUDO chmod 0755 /run/munge

logs() {
	for f in "$logdir/slurmctld.log" "$logdir/slurmd.log" /var/log/munge/munged.log; do
		echo "--- $f (last lines)"
		$SUDO tail -n 30 "$f" 2>/dev/null || true
	done
}
fail() {
	echo "slurm-localhost: $*" >&2
	logs >&2
	exit 1
}

if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
	$SUDO runuser -u munge -- /usr/sbin/munged || fail "munged did not start"
	for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
	munge -n | unmunge >/dev/null || fail "munge does not authenticate"
fi

# Fresh daemons with this configuration (-c: no saved state).
stop_slurm() {
	for p in /run/slurmd.pid /run/slurmctld.pid; do
		if [ -s "$p" ] && $SUDO kill "$(cat "$p")" 2>/dev/null; then
			for _ in $(seq 50); do $SUDO kill -0 "$(cat "$p")" 2>/dev/null || break; sleep 0.1; done
		fi
	done
}
stop_slurm
$SUDO /usr/sbin/slurmctld -c || fail "slurmctld did not start"
$SUDO /usr/sbin/slurmd -c -N "$host" || fail "slurmd did not start"

for _ in $(seq 100); do
	state=$(sinfo -h -N -n "$host" -o %T 2>/dev/null || true)
	case "$state" in
	idle* | mixed* | allocated*)
		echo "slurm-localhost: node $host is $state ($cpus CPUs, partition debug)"
		exit 0
		;;
	esac
	sleep 0.2
done
fail "node $host did not come up (state: ${state:-none})"
