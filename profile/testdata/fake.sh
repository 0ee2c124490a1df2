#!/bin/sh
# A fake workload for the harness tests. It speaks the coloc protocol
# (protocol.md) without training anything: step times are synthetic, so the
# tests never depend on how fast this machine is.
#
#   fake.sh MODE [--steps N] [--dt SECONDS] [--warm K] [--peak BYTES] [--params N] [--sleep S] [standard args]
#
# --sleep S waits S real seconds before the end line, so that samplers see
# the processes (the step times stay synthetic).
#
# MODE: ok        meta, N steps, end (the first K steps 3x slower: warm-up)
#       crash     a few steps, then a Python-like traceback and exit 1
#       oom       meta, then "CUDA out of memory" on stderr and exit 3
#       hang      meta and one step, then sleeps (until killed)
#       stubborn  like hang, but ignores SIGTERM
#       noproto   plain text on stdout, exit 0
#       silent    prints nothing, exit 0 (a protocol: none command)
#       longline  a 2 MiB line on stdout, then like ok
#       once F    crashes when file F does not exist (creating it), else
#                 like ok: a failure that a retry mends
#       drift     meta, N steps each 10% slower than the one before, end
#                 (a step time that never settles)
mode=$1; shift
if [ "$mode" = once ]; then marker=$1; shift; fi
steps=40; dt=0.05; warm=0; peak=null; bs=1; sleep=0; params=10
while [ $# -gt 0 ]; do
	case $1 in
	--steps) steps=$2; shift ;;
	--dt) dt=$2; shift ;;
	--warm) warm=$2; shift ;;
	--peak) peak=$2; shift ;;
	--params) params=$2; shift ;;
	--sleep) sleep=$2; shift ;;
	--batch-size) bs=$2; shift ;;
	--device|--precision|--duration|--seed|--max-steps) shift ;;
	esac
	shift
done
meta() {
	echo "{\"type\":\"meta\",\"model\":\"fake\",\"class\":\"other\",\"params\":$params,\"flops_per_sample\":null,\"layers\":{\"linear\":1},\"batch_size\":$bs,\"precision\":\"fp32\",\"device\":\"cpu\",\"world_size\":${WORLD_SIZE:-1},\"torch\":\"0.0-fake\"}"
}
steps() { # steps N: N step lines, the first $warm slow
	ws=${WORLD_SIZE:-1}
	awk -v n="$1" -v dt="$dt" -v warm="$warm" -v bs="$bs" -v ws="$ws" 'BEGIN {
		t = 1000
		for (i = 1; i <= n; i++) {
			t += (i <= warm) ? 3 * dt : dt
			printf "{\"type\":\"step\",\"step\":%d,\"samples\":%d,\"time\":%.6f}\n", i, i * bs * ws, t
		}
	}'
}
case $mode in
once)
	if [ ! -e "$marker" ]; then
		: > "$marker"
		echo "RuntimeError: fails the first time" >&2
		exit 1
	fi
	meta
	steps "$steps"
	echo "{\"type\":\"end\",\"steps\":$steps,\"samples\":$((steps * bs)),\"time\":2000,\"peak_memory_bytes\":$peak}"
	;;
longline)
	head -c 2097152 /dev/zero | tr '\0' x
	echo
	meta
	steps "$steps"
	echo "{\"type\":\"end\",\"steps\":$steps,\"samples\":$((steps * bs)),\"time\":2000,\"peak_memory_bytes\":$peak}"
	;;
drift)
	meta
	awk -v n="$steps" -v dt="$dt" -v bs="$bs" 'BEGIN {
		t = 1000
		for (i = 1; i <= n; i++) {
			dt *= 1.1
			t += dt
			printf "{\"type\":\"step\",\"step\":%d,\"samples\":%d,\"time\":%.6f}\n", i, i * bs, t
		}
	}'
	echo "{\"type\":\"end\",\"steps\":$steps,\"samples\":$((steps * bs)),\"time\":2000,\"peak_memory_bytes\":$peak}"
	;;
ok)
	meta
	steps "$steps"
	[ "$sleep" = 0 ] || sleep "$sleep"
	echo "{\"type\":\"end\",\"steps\":$steps,\"samples\":$((steps * bs)),\"time\":2000,\"peak_memory_bytes\":$peak}"
	;;
crash)
	meta
	steps 3
	echo "Traceback (most recent call last):" >&2
	echo "ValueError: fake crash" >&2
	exit 1
	;;
oom)
	meta
	echo "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB" >&2
	exit 3
	;;
hang)
	meta
	steps 1
	sleep 60
	;;
stubborn)
	trap '' TERM
	meta
	steps 1
	sleep 60
	;;
noproto)
	echo "epoch 1 loss 0.5"
	echo "epoch 2 loss 0.4"
	;;
silent)
	;;
*)
	echo "fake.sh: unknown mode $mode" >&2
	exit 2
	;;
esac
