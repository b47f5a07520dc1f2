#!/usr/bin/env bash
# Installs what spdylab needs on a fresh Debian machine and does nothing when it
# is all there already. Called by `make run` and `make test` (and so by CI).
set -euo pipefail
cd "$(dirname "$0")/.."

# `scripts/deps.sh slurm` installs, on demand, a Slurm controller, node daemon
# and client with munge from Debian's packages: examples/'s test runs
# slurm-array.sh on a one-node cluster on this machine. spdylab itself does not
# need them. The test configures and starts its own daemons; the packages'
# services are not used.
if [ "${1:-}" = slurm ]; then
	need_apt=()
	[ -x /usr/sbin/slurmctld ] || need_apt+=(slurmctld)
	[ -x /usr/sbin/slurmd ] || need_apt+=(slurmd)
	command -v sbatch >/dev/null 2>&1 || need_apt+=(slurm-client)
	[ -x /usr/sbin/munged ] || need_apt+=(munge)
	if [ ${#need_apt[@]} -gt 0 ]; then
		echo "deps: installing ${need_apt[*]} from apt" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >/dev/null
		apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
	fi
	exit 0
elif [ $# -gt 0 ]; then
	echo "usage: scripts/deps.sh [slurm]" >&2
	exit 2
fi

need_apt=()
command -v go >/dev/null 2>&1 || need_apt+=(golang-go)
command -v node >/dev/null 2>&1 || need_apt+=(nodejs npm)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need_apt+=(nginx)
[ -x /usr/lib/chromium/chromium ] || need_apt+=(chromium)
command -v ip >/dev/null 2>&1 || need_apt+=(iproute2)
command -v tcpdump >/dev/null 2>&1 || need_apt+=(tcpdump)
# sctp/ binds the user-space SCTP stack usrsctp through cgo.
[ -f /usr/include/usrsctp.h ] || need_apt+=(libusrsctp-dev)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
command -v gcc >/dev/null 2>&1 || need_apt+=(gcc libc6-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
	echo "deps: installing ${need_apt[*]} from apt" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# The module asks for a newer Go than Debian ships; the go command fetches that
# toolchain from the module proxy by itself.
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
go version >/dev/null

# node-spdy and friends for the interop tests, pinned by package-lock.json.
if [ -f interop/node/package.json ] && [ ! -d interop/node/node_modules ]; then
	echo "deps: npm ci in interop/node" >&2
	(cd interop/node && npm ci --no-audit --no-fund --loglevel=error)
fi
go mod download
