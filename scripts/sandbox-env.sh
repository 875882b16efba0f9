#!/usr/bin/env bash
# Installs the sandbox's Python environment (sandbox-env/requirements.lock) into a
# world-readable venv, idempotently: a stamp file holds the lock file's SHA-256, and an
# environment whose stamp matches and where pymatgen.core, pymatgen.analysis.defects and pydefect
# are found is left alone (≈0.1 s: found, not imported; importing them took 6–10 s on a busy
# machine, at every make test; the sandbox's self-check at Open runs the environment anyway).
#
#   scripts/sandbox-env.sh            # the pinned environment: sandbox-env/requirements.lock into
#                                     # $MATTOOLS_SANDBOX_PYTHON or /opt/mattools-sandbox
#   MATTOOLS_SANDBOX_ENV=tasks scripts/sandbox-env.sh
#                                     # the tasks environment: sandbox-env/requirements-tasks.lock (the pinned
#                                     # lock plus ASE, dscribe and their dependencies) into
#                                     # $MATTOOLS_SANDBOX_PYTHON or /opt/mattools-sandbox-tasks
#
# The two environments and which is used for what: docs/sandbox.md ("Two environments").
#
# Without root (docs/sandbox.md, "Root and rootless"): the default prefix is then the user's own,
# ${XDG_DATA_HOME:-$HOME/.local/share}/mattools-sandbox[-tasks], unless /opt already holds the environment;
# `make sandbox-env PREFIX=DIR` (MATTOOLS_SANDBOX_PYTHON=DIR) installs into any folder of the user's.
#
# The venv is made from Debian's /usr/bin/python3 (python3-venv): the python3 on PATH may live
# in root's home, which the sandbox uid cannot read.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${MATTOOLS_SANDBOX_ENV:-pinned}" in
  pinned) lock=sandbox-env/requirements.lock; default_prefix=/opt/mattools-sandbox
          modules='"pymatgen.core", "pymatgen.analysis.defects", "pydefect"' ;;
  tasks)  lock=sandbox-env/requirements-tasks.lock; default_prefix=/opt/mattools-sandbox-tasks
          modules='"pymatgen.core", "pymatgen.analysis.defects", "pydefect", "ase", "dscribe"' ;;
  *) echo "sandbox-env: MATTOOLS_SANDBOX_ENV=${MATTOOLS_SANDBOX_ENV}: want pinned or tasks" >&2; exit 2 ;;
esac
if [ "$(id -u)" -ne 0 ] && [ -z "${MATTOOLS_SANDBOX_PYTHON:-}" ] && [ ! -x "$default_prefix/bin/python3" ]; then
  default_prefix="${XDG_DATA_HOME:-$HOME/.local/share}/$(basename "$default_prefix")"
fi
prefix="${MATTOOLS_SANDBOX_PYTHON:-$default_prefix}"
stamp="$prefix/.mattools-lock.sha256"
want="$(sha256sum "$lock" | cut -d' ' -f1)"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
   "$prefix/bin/python3" -I -c 'import importlib.util as u, sys; sys.exit(not all(u.find_spec(m) for m in ('"$modules"')))' >/dev/null 2>&1; then
  exit 0
fi
if [ ! -x /usr/bin/python3 ] || ! /usr/bin/python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  echo "sandbox-env: needs Debian's python3 and python3-venv (apt-get install python3-venv)" >&2
  exit 1
fi
parent=$(dirname "$prefix")
mkdir -p "$parent" 2>/dev/null || true
if ! [ -w "$parent" ] || { [ -e "$prefix" ] && ! [ -w "$prefix" ]; }; then
  echo "sandbox-env: $prefix is not writable by uid $(id -u): install it as root, or into a folder of yours:" \
       "make sandbox-env PREFIX=\$HOME/.local/share/mattools-sandbox (the runner finds it there; docs/sandbox.md)" >&2
  exit 1
fi
echo "sandbox-env: installing $lock into $prefix"
start=$(date +%s)
umask 022
rm -rf "$prefix"
/usr/bin/python3 -m venv "$prefix"
"$prefix/bin/python3" -m pip install --quiet --disable-pip-version-check --no-deps --prefer-binary --use-pep517 -r "$lock"
"$prefix/bin/python3" -m pip check --disable-pip-version-check >/dev/null
# Compile the bytecode now: the sandbox's view of the venv is read-only.
"$prefix/bin/python3" -m compileall -q -j 0 "$prefix/lib" >/dev/null 2>&1 || true
chmod -R a+rX "$prefix"
echo "$want" > "$stamp"
echo "sandbox-env: done in $(( $(date +%s) - start )) s"
