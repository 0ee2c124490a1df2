#!/bin/sh
# Stands in for nvidia-cuda-mps-control in the harness tests: logs what it
# was asked to $FAKE_MPS_LOG with the pipe directory and devices it saw.
if [ "$1" = "-d" ]; then
	[ -d "$CUDA_MPS_PIPE_DIRECTORY" ] || { echo "no pipe directory" >&2; exit 1; }
	echo "start $CUDA_VISIBLE_DEVICES" >> "$FAKE_MPS_LOG"
	exit 0
fi
read -r cmd
echo "$cmd" >> "$FAKE_MPS_LOG"
