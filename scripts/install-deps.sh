#!/bin/sh
# Install hetsim's build and run dependencies from Debian's packages.
# Idempotent: packages already present are not touched, and when everything is
# installed the script does nothing but check.  Uses sudo when not root.
#
#   scripts/install-deps.sh            required packages
#   scripts/install-deps.sh --optional also the optional group (OpenMPI, fuzzing, valgrind,
#                                      chromium for the HTML report test)
set -eu

required="libgsl-dev libcjson-dev libsqlite3-dev libcriterion-dev libglpk-dev libqhull-dev python3-dev gnuplot-nox pkg-config sqlite3 gcc make"
optional="openmpi-bin libopenmpi-dev clang libclang-rt-14-dev valgrind chromium"

want=$required
case "${1:-}" in
  --optional) want="$required $optional" ;;
  "") ;;
  -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "install-deps.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps.sh: missing packages:$missing, and apt-get is not available;" >&2
  echo "install them with your system's package manager." >&2
  exit 1
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "install-deps.sh: need root or sudo to install:$missing" >&2; exit 1
  fi
fi

echo "install-deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
