#!/bin/bash
# Run a spdylab study as a Slurm job array: one array task per shard, each on
# its own node (the testbeds need root for network namespaces), then merge.
#
#   sbatch --array=0-15 examples/slurm-array.sh study1-cablelabs
#   # when every task has finished:
#   spdylab merge out/study1-cablelabs out/study1-cablelabs.shard-*
#
# --shard i/N is 0-based like SLURM_ARRAY_TASK_ID; N must equal the array
# size. A task that is preempted or fails can simply be resubmitted with the
# same index: it resumes from its own results.db and repeats nothing.
#SBATCH --job-name=spdylab
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=2
#SBATCH --exclusive            # a shared node's load would distort the timings
#SBATCH --time=12:00:00
#SBATCH --output=spdylab-%A_%a.log
set -euo pipefail

STUDY=${1:-study1-cablelabs}
SHARDS=${SLURM_ARRAY_TASK_COUNT:?run me with sbatch --array=0-(N-1)}
INDEX=${SLURM_ARRAY_TASK_ID:?run me with sbatch --array}
OUT=${OUT_ROOT:-out}/${STUDY}.shard-${INDEX}

# spdylab must be on PATH (make build; cp bin/spdylab to a shared directory)
# and the job must run as root (or with CAP_NET_ADMIN + CAP_SYS_ADMIN).
exec spdylab run "$STUDY" --shard "${INDEX}/${SHARDS}" --out "$OUT" -j 1 --no-report
