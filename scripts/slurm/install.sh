#!/usr/bin/env bash
# Installs Debian 12's Slurm (22.05: slurmctld, slurmd, the client commands) for the real-Slurm test of
# cmd/slurm (scripts/slurm/cluster.sh starts a single-node cluster from it). Opt-in: `make setup-slurm`, which
# `make test` runs as root only; `make setup` installs no Slurm. Idempotent: nothing to do when sbatch,
# slurmctld and slurmd are there. The packages' services are not started (a policy-rc.d refusing every
# start while apt runs): the test starts the daemons itself, and removes nothing afterwards.
set -euo pipefail
if command -v sbatch >/dev/null 2>&1 && command -v slurmctld >/dev/null 2>&1 && command -v slurmd >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "setup-slurm: Slurm is not installed; install it as root (make setup-slurm: apt-get install slurmctld slurmd slurm-client)" >&2
  exit 1
fi
policy=/usr/sbin/policy-rc.d
had_policy=
[ -e "$policy" ] && had_policy=1
if [ -z "$had_policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 0755 "$policy"
  trap 'rm -f "$policy"' EXIT
fi
echo "setup-slurm: apt-get install slurmctld slurmd slurm-client"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client >/dev/null
