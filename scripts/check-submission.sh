#!/usr/bin/env bash
# Checks leaderboard submissions: the whole logic of .github/workflows/submission.yml, so that it runs the
# same on a laptop, in make test and on a pull request.
#
#   scripts/check-submission.sh [--base GITREF] [--no-reexecute] [FOLDER...]
#
# --base GITREF   check the submission folders that HEAD changes relative to its merge base with GITREF
#                 (git diff --name-only GITREF...HEAD; committed changes only). The change is refused, before
#                 any folder is validated, when it touches anything under verified/ (verified records are
#                 written only by maintainers, with the project's own command: a pull request never carries
#                 them), a path under submissions/ that is not inside a submission folder (other than
#                 submissions/README.md), or, beside a submission folder, any path outside submissions/ (a
#                 submission pull request changes only its folder: code, checker and workflow changes are
#                 reviewed by the code owners instead), or that changes a submission folder a release of the base
#                 lists (site/releases.json: a released submission never changes).
# --no-reexecute  validate without re-running the generated code in the sandbox (no -reexecute).
# FOLDER...       submission folders checked as given (in addition to those found by --base).
#
# Each folder is validated by cmd/validate-submission (built once, into build/bin, with $GO, default go), with
# -reexecute unless --no-reexecute and with -github when $GITHUB_ACTIONS is true; a summary line per folder
# follows. Exit status: 0 when every folder is valid (or there is none to check), 1 when the change is
# refused or a folder is invalid, 2 on a usage error.
#
# SUBMISSIONS_REPO: the git repository whose change and submission folders are checked (default: this
# script's repository); the validator is always built from this script's repository.
set -euo pipefail

prog=check-submission

usage() {
  echo "usage: scripts/check-submission.sh [--base GITREF] [--no-reexecute] [FOLDER...]"
}

die_usage() {
  echo "$prog: $1" >&2
  usage >&2
  exit 2
}

# gh_escape_data / gh_escape_prop: the escaping of GitHub workflow commands (message / property values).
gh_escape_data() {
  local s=$1
  s=${s//'%'/%25}
  s=${s//$'\r'/%0D}
  s=${s//$'\n'/%0A}
  printf '%s' "$s"
}
gh_escape_prop() {
  local s
  s=$(gh_escape_data "$1")
  s=${s//:/%3A}
  s=${s//,/%2C}
  printf '%s' "$s"
}

# refuse PATH MESSAGE: one reason the change is refused, as "PATH: MESSAGE" (and as an annotation on GitHub).
refuse() {
  echo "  $1: $2" >&2
  if [ "${GITHUB_ACTIONS:-}" = true ]; then
    echo "::error file=$(gh_escape_prop "$1")::$(gh_escape_data "$2")"
  fi
}

base=
reexecute=true
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --base)
      [ $# -ge 2 ] && [ -n "$2" ] || die_usage "--base needs a git ref"
      base=$2
      shift 2
      ;;
    --base=*)
      base=${1#--base=}
      [ -n "$base" ] || die_usage "--base needs a git ref"
      shift
      ;;
    --no-reexecute)
      reexecute=false
      shift
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    --)
      shift
      args+=("$@")
      break
      ;;
    -*)
      die_usage "unknown option $1"
      ;;
    *)
      args+=("$1")
      shift
      ;;
  esac
done

# FOLDER arguments are relative to the caller's directory: resolve them before leaving it.
explicit=()
for f in ${args[@]+"${args[@]}"}; do
  [ -d "$f" ] || die_usage "$f: not a directory"
  explicit+=("$(cd "$f" && pwd -P)")
done

root=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$root"
repo_arg=${SUBMISSIONS_REPO:-$root}
[ -d "$repo_arg" ] || die_usage "SUBMISSIONS_REPO=$repo_arg: not a directory"
repo=$(cd "$repo_arg" && pwd -P)

# folders: the folders to check (absolute paths), as the keys of an associative array (no duplicates).
declare -A folders=()
for f in ${explicit[@]+"${explicit[@]}"}; do
  folders[$f]=1
done

if [ -n "$base" ]; then
  if ! top=$(git -C "$repo" rev-parse --show-toplevel 2>/dev/null); then
    echo "$prog: $repo is not a git repository (--base needs one)" >&2
    exit 2
  fi
  repo=$(cd "$top" && pwd -P)
  if ! git -C "$repo" rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
    echo "$prog: --base $base: no such commit in $repo (in a shallow clone, fetch the base branch: fetch-depth: 0)" >&2
    exit 2
  fi
  if ! git -C "$repo" merge-base "$base" HEAD >/dev/null; then
    echo "$prog: --base $base: no merge base with HEAD in $repo (in a shallow clone, fetch the whole history: fetch-depth: 0)" >&2
    exit 2
  fi

  changed=$(mktemp)
  trap 'rm -f "$changed"' EXIT
  # --no-renames: a rename lists both its paths, so that moving a file out of verified/ is seen too.
  git -C "$repo" -c core.quotePath=false diff --name-only --no-renames -z "$base...HEAD" -- >"$changed"

  verified=()
  stray=()
  outside=()
  removed=()
  released=()
  # The base's releases (site/releases.json) list the run ids of the submissions they include; a released
  # submission never changes (its release would), so a change to its folder is refused.
  releases=$(git -C "$repo" show "$base:site/releases.json" 2>/dev/null || true)
  declare -A seen=()
  while IFS= read -r -d '' p; do
    case $p in
      verified/*)
        verified+=("$p")
        ;;
      submissions/README.md) ;;
      submissions/*/*)
        rest=${p#submissions/}
        dir=submissions/${rest%%/*}
        [ -z "${seen[$dir]:-}" ] || continue
        seen[$dir]=1
        if [ -n "$releases" ] && grep -qF -e "\"submitted__${dir#submissions/}__" <<<"$releases"; then
          released+=("$dir")
        elif [ -d "$repo/$dir" ]; then
          folders[$repo/$dir]=1
        else
          removed+=("$dir")
        fi
        ;;
      submissions/*)
        stray+=("$p")
        ;;
      *)
        outside+=("$p")
        ;;
    esac
  done <"$changed"

  # Paths outside submissions/ are refused only beside a submission folder: a change of submissions/README.md
  # alone is no submission.
  if [ ${#seen[@]} -eq 0 ]; then
    outside=()
  fi
  if [ ${#verified[@]} -gt 0 ] || [ ${#stray[@]} -gt 0 ] || [ ${#outside[@]} -gt 0 ] || [ ${#released[@]} -gt 0 ]; then
    echo "$prog: this change cannot be accepted (relative to the merge base with $base):" >&2
    for p in ${released[@]+"${released[@]}"}; do
      refuse "$p" "a release lists this submission's runs (site/releases.json), and a released submission never changes: leave this folder as it is and add the revised submission as a new folder (a new date)"
    done
    for p in ${verified[@]+"${verified[@]}"}; do
      refuse "$p" "a pull request must not add, change or remove verified records: they are written only by the maintainers, with the project's own command; remove this path from the change"
    done
    for p in ${stray[@]+"${stray[@]}"}; do
      refuse "$p" "not inside a submission folder: results go in submissions/<date>_<org>_<model>_<system>/ (submission.toml and the Parquet results files)"
    done
    for p in ${outside[@]+"${outside[@]}"}; do
      refuse "$p" "outside submissions/: a submission pull request changes only its folder; changes to the code, the checker or the workflow (which a pull_request event runs as the pull request has it) go in a pull request of their own, reviewed by the code owners"
    done
    echo "$prog: refused: ${#verified[@]} path(s) under verified/, ${#stray[@]} path(s) under submissions/ outside a submission folder, ${#outside[@]} path(s) outside submissions/, ${#released[@]} released submission folder(s) changed; no folder was validated" >&2
    exit 1
  fi
  for d in ${removed[@]+"${removed[@]}"}; do
    echo "$prog: $d: removed by this change; nothing to validate"
  done
fi

if [ ${#folders[@]} -eq 0 ]; then
  echo "$prog: no submission folders to check"
  exit 0
fi

mapfile -d '' -t todo < <(printf '%s\0' "${!folders[@]}" | sort -z)

GO=${GO:-go}
validator=$root/build/bin/validate-submission
echo "$prog: building the validator ($GO build -o build/bin/validate-submission ./cmd/validate-submission)"
"$GO" build -o "$validator" ./cmd/validate-submission

flags=()
[ "$reexecute" = false ] || flags+=(-reexecute)
[ "${GITHUB_ACTIONS:-}" != true ] || flags+=(-github)
# The progress bar redraws one line with carriage returns: noise in a log.
[ -t 2 ] || flags+=(-quiet)

summary=()
failed=0
for abs in "${todo[@]}"; do
  # Inside the repository, the folder is given relative to its root (and the validator run there), so that
  # the validator's messages and annotations name repository paths.
  case $abs in
    "$repo"/*) name=${abs#"$repo"/} ;;
    *) name=$abs ;;
  esac
  arg=$name
  case $arg in -*) arg=./$arg ;; esac
  echo "$prog: $name: validating${flags[*]:+ (${flags[*]})}"
  status=0
  (cd "$repo" && "$validator" ${flags[@]+"${flags[@]}"} "$arg") || status=$?
  case $status in
    0) summary+=("ok    $name") ;;
    1) summary+=("FAIL  $name: invalid (the validator's messages above)"); failed=$((failed + 1)) ;;
    2) summary+=("FAIL  $name: the validator reported a usage error (exit 2)"); failed=$((failed + 1)) ;;
    *) summary+=("FAIL  $name: the validator failed (exit $status)"); failed=$((failed + 1)) ;;
  esac
done

echo "$prog: summary"
for line in "${summary[@]}"; do
  echo "  $line"
done
if [ "$failed" -gt 0 ]; then
  echo "$prog: $failed of ${#todo[@]} submission folder(s) invalid"
  exit 1
fi
echo "$prog: all ${#todo[@]} submission folder(s) valid"
