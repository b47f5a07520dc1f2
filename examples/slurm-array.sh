#!/bin/bash
# Run a spdylab study as a Slurm job array: one array task per shard, each on
# its own node, then merge.
#
#   OUT_ROOT=/shared/spdylab sbatch --array=0-15 examples/slurm-array.sh study1-cablelabs
#   # when every task has finished (or submit with --wait):
#   spdylab merge /shared/spdylab/study1-cablelabs /shared/spdylab/study1-cablelabs.shard-*
#
# Arguments: the study (a built-in name or a study file on the shared
# folder; default study1-cablelabs), then any flags for `spdylab run`, e.g.
#   sbatch --array=0-15 examples/slurm-array.sh study1-cablelabs --pcap /shared/pcap
#   sbatch --array=0-15 examples/slurm-array.sh study4-google --pages /shared/pages
#   sbatch --array=0-1 examples/slurm-array.sh quick --runs 1      # smoke test
# (--pcap names files by condition, so all shards can share one folder.)
#
# What every node needs:
#   - root for the job, or CAP_NET_ADMIN + CAP_SYS_ADMIN (network namespaces,
#     veths, qdiscs, TUN devices);
#   - what spdylab needs: run scripts/deps.sh on each node (iproute2,
#     tcpdump, nginx, chromium, ...);
#   - the spdylab binary: on PATH, or named by $SPDYLAB (make build, then
#     copy bin/spdylab to a shared folder);
#   - one folder shared by all nodes for the outputs: $OUT_ROOT (default
#     ./out, relative to the directory sbatch was called from).
# The environment sbatch is called with is passed on to the tasks (Slurm's
# default --export=ALL), so SPDYLAB, OUT_ROOT and SHARDS can be set there.
#
# --shard i/N is 0-based like SLURM_ARRAY_TASK_ID; N is the array's size. A
# task that is preempted or fails can simply be resubmitted with the same
# index: it resumes from its own results.db and repeats nothing. A single
# index is an array of one task, so then say how many shards there are:
#   SHARDS=16 sbatch --array=3 examples/slurm-array.sh study1-cablelabs
#SBATCH --job-name=spdylab
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=2
#SBATCH --exclusive            # a shared node's load would distort the timings
#SBATCH --time=12:00:00
#SBATCH --output=spdylab-%A_%a.log
set -euo pipefail

STUDY=${1:-study1-cablelabs}
shift || true
INDEX=${SLURM_ARRAY_TASK_ID:?run me with sbatch --array=0-(N-1)}
if [ -z "${SHARDS:-}" ]; then
	SHARDS=${SLURM_ARRAY_TASK_COUNT:?run me with sbatch --array=0-(N-1)}
	if [ "$SHARDS" != "$((SLURM_ARRAY_TASK_MAX + 1))" ]; then
		echo "slurm-array.sh: the array ($SLURM_ARRAY_TASK_MIN-$SLURM_ARRAY_TASK_MAX, $SHARDS tasks) is not 0-(N-1): set SHARDS=N, the number of shards" >&2
		exit 2
	fi
fi
OUT=${OUT_ROOT:-out}/$(basename "$STUDY" .toml).shard-${INDEX}
SPDYLAB=${SPDYLAB:-spdylab}

# Fail at once, saying why, on a node that cannot run the testbeds.
host=$(hostname)
if ! command -v "$SPDYLAB" >/dev/null 2>&1; then
	echo "slurm-array.sh: no spdylab binary on $host: put it on PATH or set SPDYLAB=/shared/path/spdylab" >&2
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	# CapEff bit 12 is CAP_NET_ADMIN, bit 21 CAP_SYS_ADMIN.
	caps=$((16#$(awk '/^CapEff:/ {print $2}' /proc/self/status)))
	if (((caps >> 12 & 1) == 0 || (caps >> 21 & 1) == 0)); then
		echo "slurm-array.sh: $host runs this job as $(id -un) without CAP_NET_ADMIN and CAP_SYS_ADMIN: spdylab's testbeds need root or both capabilities" >&2
		exit 1
	fi
fi
echo "slurm-array.sh: shard ${INDEX}/${SHARDS} of $STUDY on $host into $OUT" >&2
exec "$SPDYLAB" run "$STUDY" --shard "${INDEX}/${SHARDS}" --out "$OUT" -j 1 --no-report "$@"
