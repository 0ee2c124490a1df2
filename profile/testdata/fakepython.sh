#!/bin/sh
# Stands in for the Python interpreter in the harness tests: runs the script
# with sh, and emulates `python -m torch.distributed.run --standalone
# --nproc_per_node K script args` by running the script once as rank 0 of K.
if [ "$1" = "-m" ] && [ "$2" = "torch.distributed.run" ]; then
	shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		--standalone) shift ;;
		--nproc_per_node) WORLD_SIZE=$2; export WORLD_SIZE; shift 2 ;;
		*) break ;;
		esac
	done
fi
exec sh "$@"
