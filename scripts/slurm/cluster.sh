#!/usr/bin/env bash
# A single-node Slurm cluster on this machine from Debian 12's packages (scripts/slurm/install.sh), as root,
# without systemd, munge or name resolution, for cmd/slurm's real-Slurm test; everything under DIR.
#
#   scripts/slurm/cluster.sh start DIR   # writes DIR/slurm.conf, starts slurmctld and slurmd, waits for an idle node
#   scripts/slurm/cluster.sh stop DIR    # cancels every job, stops the two daemons (by the pids they wrote); a DIR
#                                        # without a started cluster is no error
#
# Client commands then need SLURM_CONF=DIR/slurm.conf. What the configuration works around (Slurm 22.05):
# SlurmctldHost must be `hostname -s`; the node is addressed 127.0.0.1 and slurmd started with -N, so nothing
# is resolved; auth/none and cred/none need no munged; proctrack/linuxproc, task/none and jobacct_gather/none
# need no cgroup; kill_invalid_depend (in DependencyParameters: under SchedulerParameters it is ignored)
# cancels a merge whose dependency failed instead of leaving it pending; jobs stay in scontrol for
# MinJobAge (3600 s here); jobcomp/filetxt keeps every finished job's exit code without slurmdbd.
# KillWait is Slurm's default, 30 s: after a requeue's SIGTERM the runner journals, stops its sandbox and
# exits 130, on a loaded machine too. (A requeued task that ends FAILED, exit 1, without running again was
# started in the second of its requeue: slurmd refuses a credential not newer than the one it revoked.)
# SLURM_TEST_PORT (default 6817, Slurm's own) is slurmctld's port; slurmd listens on the next one. A test picks
# free ones, so that it never talks to (nor cancels the jobs of) another cluster on the same machine.
set -euo pipefail
cmd=${1:?usage: cluster.sh start|stop DIR}
dir=${2:?usage: cluster.sh start|stop DIR}
case $cmd in
start)
  [ "$(id -u)" -eq 0 ] || { echo "cluster.sh: needs root (slurmd runs jobs as their users)" >&2; exit 1; }
  mkdir -p "$dir"/{state,spool,log}
  dir=$(cd "$dir" && pwd)
  host=$(hostname -s)
  port=${SLURM_TEST_PORT:-6817}
  hw=$(slurmd -C | head -1 | sed -e 's/^NodeName=[^ ]* //')
  cat >"$dir/slurm.conf" <<CONF
ClusterName=mattools-test
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.txt
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
DependencyParameters=kill_invalid_depend
MinJobAge=3600
KillWait=30
ReturnToService=2
MpiDefault=none
NodeName=node0 NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=debug Nodes=node0 Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -f "$dir/slurm.conf" -i
  slurmd -f "$dir/slurm.conf" -N node0
  for _ in $(seq 600); do
    state=$(sinfo -h -N -o '%T' 2>/dev/null | head -1 || true)
    [ "$state" = idle ] && exit 0
    sleep 0.1
  done
  echo "cluster.sh: the node is not idle after 60 s (state '${state:-}'); logs in $dir/log" >&2
  exit 1
  ;;
stop)
  dir=$(cd "$dir" && pwd)
  export SLURM_CONF=$dir/slurm.conf
  scancel --full --quiet --user=root 2>/dev/null || true
  # Jobs first, so that slurmd reaps their processes (SIGKILL KillWait=30 s after SIGTERM), then the daemons.
  # A step daemon outlives slurmd: what is still running after 60 s is killed by the pids its node lists.
  gone=
  for _ in $(seq 600); do
    [ -z "$(squeue -h -o %i 2>/dev/null)" ] && { gone=1; break; }
    sleep 0.1
  done
  if [ -z "$gone" ]; then
    echo "cluster.sh: jobs still running 60 s after scancel; killing their processes" >&2
    scontrol listpids 2>/dev/null | awk 'NR > 1 && $1 ~ /^[0-9]+$/ { print $1 }' | xargs -r kill -9 2>/dev/null || true
  fi
  for d in slurmd slurmctld; do
    pid=$(cat "$dir/$d.pid" 2>/dev/null || true)
    [ -n "$pid" ] || continue
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  ;;
*) echo "usage: cluster.sh start|stop DIR" >&2; exit 2 ;;
esac
