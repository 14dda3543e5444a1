#!/bin/sh
# cachegrind.sh: what one operation of a Go benchmark costs in counted
# events (instructions, simulated cache misses, mispredicted branches),
# for two or more test binaries, so that two builds compare on a machine
# whose timings move by a third between runs.
#
#   sh bench/cachegrind.sh PATTERN N1 N2 A.test [B.test ...]
#
#   go test -c -o /tmp/old.test ./rules      # in a worktree of the base
#   go test -c -o /tmp/new.test ./rules
#   cd rules && sh ../bench/cachegrind.sh '^BenchmarkClassBench$/fw1_10k/^merged-bcf$' 20000 120000 /tmp/old.test /tmp/new.test
#
# PATTERN is a -test.bench pattern that must run exactly one benchmark
# (each level is a regular expression of its own: 'BenchmarkClassBench'
# also runs BenchmarkClassBenchChurnLookups; the script stops when more
# than one runs).
# Each binary runs it twice under valgrind's cachegrind, at -benchtime N1x
# and N2x; whatever the process does besides the timed loop (loading the
# rules, building the tables, the probe run the testing package makes)
# is the same in both runs, so the difference of the two runs' totals
# over N2-N1 is the cost of one b.N iteration alone. The counts are
# those of the functions whose name matches FOCUS (by default this
# module's: the runtime's page and heap work differs between two runs by
# more than the loop costs, and would drown it). The binaries run in DIR
# (by default the current directory): the package's directory in a
# checkout whose parent holds shared/, when the benchmark reads
# ../shared/data.
#
# The counts are of a simulated machine (CACHE, below: 48 KiB 12-way L1
# data, 32 KiB 8-way L1 instructions, a 1 MiB 16-way last level, the
# private caches of one AMD Zen core; cachegrind models two levels), one
# thread (GOMAXPROCS=1), the collector off (GOGC=off: its work would
# fall in either run). Instructions an iteration repeat to within 0.02%
# for a binary, where timed runs on a shared machine move by a third;
# misses follow where the heap lands in the simulated caches' sets
# (fw1_10k: within 1% over three runs; a third apart between runs of a
# pattern that ran two benchmarks): compare them over several runs.
# Counts cannot tell what a miss costs on a given machine, nor how the
# processor overlaps them: confirm a change that counts as better with a
# timed A/B. Each run takes 30-100x its native time.
#
# TOP=N also prints, for each binary, the N functions that cost the most
# in one iteration (cg_diff of the two runs, then cg_annotate); the
# per-iteration profiles stay in $OUT/K.cg for cg_annotate. LINES=N
# prints the N source lines of this module that cost the most
# instructions in one iteration (cg_diff keeps functions, not lines: the
# script takes the difference line by line itself).
set -eu

if [ $# -lt 4 ]; then
	echo "usage: $0 PATTERN N1 N2 A.test [B.test ...]" >&2
	exit 2
fi
PATTERN=$1
N1=$2
N2=$3
shift 3
if [ "$N2" -le "$N1" ]; then
	echo "$0: N2 ($N2) must exceed N1 ($N1)" >&2
	exit 2
fi
command -v valgrind >/dev/null || {
	echo "$0: valgrind not found (apt-get install valgrind)" >&2
	exit 1
}
CACHE=${CACHE:---I1=32768,8,64 --D1=49152,12,64 --LL=1048576,16,64}
DIR=${DIR:-.}
TOP=${TOP:-0}
LINES=${LINES:-0}
FOCUS=${FOCUS:-github.com/ofswitch/ofswitch}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"

# focused FILE: the events of FILE's functions that match FOCUS, summed.
focused() {
	awk -v focus="$FOCUS" '
		/^events:/ { n = split($0, ev, " "); next }
		/^fn=/ { fn = substr($0, 4); next }
		/^[0-9]/ { if (fn ~ focus) for (i = 2; i <= NF; i++) s[ev[i]] += $i }
		END { for (e in s) print e, s[e] }' "$1"
}

# run BIN N TAG: the binary under cachegrind at -benchtime Nx.
run() {
	(cd "$DIR" && GOGC=off GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes $CACHE \
		--cachegrind-out-file="$OUT/$3.cg" "$1" -test.run '^$' -test.bench "$PATTERN" \
		-test.benchtime "${2}x" -test.count 1 -test.v >"$OUT/$3.log" 2>"$OUT/$3.err") || {
		echo "$0: $1 failed at ${2}x: see $OUT/$3.log and $OUT/$3.err" >&2
		exit 1
	}
	# -test.v prints the name of each benchmark it enters on a line of
	# its own; those no other name extends are the ones that ran a loop.
	leaves=$(awk '/^Benchmark[^ \t]*$/ { name[++n] = $0 }
		END { for (i = 1; i <= n; i++) { leaf = 1; for (j = 1; j <= n; j++) if (index(name[j], name[i] "/") == 1) leaf = 0; if (leaf) print name[i] } }' "$OUT/$3.log")
	got=$(printf '%s\n' "$leaves" | grep -c . || true)
	if [ "$got" -ne 1 ]; then
		echo "$0: '$PATTERN' runs $got benchmarks in $1 (want 1; anchor the top level, ^BenchmarkX\$/...):" $leaves >&2
		exit 1
	fi
}

printf '%s\n' "$PATTERN, per iteration: (${N2}x - ${N1}x) / $((N2 - N1)), functions matching $FOCUS"
printf '%-28s %12s %10s %10s %10s %10s %8s\n' binary instructions D1-misses LL-misses branches mispredict "vs first"
first=""
i=0
for bin in "$@"; do
	i=$((i + 1))
	run "$bin" "$N1" "$i-a"
	run "$bin" "$N2" "$i-b"
	cg_diff "$OUT/$i-a.cg" "$OUT/$i-b.cg" >"$OUT/$i.cg" 2>/dev/null
	line=$(focused "$OUT/$i.cg" | awk -v d=$((N2 - N1)) '
		{ v[$1] = $2 / d }
		END {
			printf "%.1f %.3f %.3f %.1f %.3f", v["Ir"], v["D1mr"] + v["D1mw"], v["DLmr"] + v["DLmw"], v["Bc"] + v["Bi"], v["Bcm"] + v["Bim"]
		}')
	ir=$(echo "$line" | cut -d' ' -f1)
	d1=$(echo "$line" | cut -d' ' -f2)
	ll=$(echo "$line" | cut -d' ' -f3)
	br=$(echo "$line" | cut -d' ' -f4)
	mp=$(echo "$line" | cut -d' ' -f5)
	if [ -z "$first" ]; then
		first=$ir
		rel=1.000
	else
		rel=$(awk -v a="$first" -v b="$ir" 'BEGIN { printf "%.3f", b / a }')
	fi
	printf '%-28s %12s %10s %10s %10s %10s %8s\n' "$(basename "$bin")" "$ir" "$d1" "$ll" "$br" "$mp" "$rel"
done
# byline K: binary K's instructions, D1 misses and mispredictions an
# iteration by source line of FOCUS's functions, costliest first.
byline() {
	awk -v d=$((N2 - N1)) -v focus="$FOCUS" '
		FNR == 1 { run++ }
		/^fl=/ { fl = substr($0, 4); next }
		/^fn=/ { fn = substr($0, 4); next }
		/^[0-9]/ {
			if (fn !~ focus) next
			k = fl ":" $1
			sign = run == 1 ? -1 : 1
			ir[k] += sign * $2; d1[k] += sign * ($6 + $9); mp[k] += sign * ($12 + $14)
		}
		END { for (k in ir) if (ir[k] != 0) printf "%.1f %.3f %.3f %s\n", ir[k] / d, d1[k] / d, mp[k] / d, k }' \
		"$OUT/$1-a.cg" "$OUT/$1-b.cg" | sort -rn
}

i=0
for bin in "$@"; do
	i=$((i + 1))
	if [ "$TOP" -gt 0 ]; then
		echo "== $(basename "$bin"): events of $((N2 - N1)) iterations by function"
		cg_annotate --show=Ir,D1mr,DLmr,Bcm --auto=no "$OUT/$i.cg" 2>/dev/null |
			awk '/file:function/ { on = 1; next } on && NF > 1 && n < '"$TOP"' { print; n++ }'
	fi
	if [ "$LINES" -gt 0 ]; then
		echo "== $(basename "$bin"): instructions an iteration by source line (Ir, D1 misses, mispredictions)"
		byline "$i" | head -n "$LINES" | while read -r n m b loc; do
			f=${loc%:*}
			l=${loc##*:}
			src=$(sed -n "${l}p" "$f" 2>/dev/null | sed 's/^[[:space:]]*//' | cut -c1-80)
			printf '%8s %7s %7s  %s  %s\n' "$n" "$m" "$b" "$(echo "$f" | sed 's|.*/\([^/]*/[^/]*\)$|\1|'):$l" "$src"
		done
	fi
done
echo "raw: $OUT ('vs first': instructions over the first binary's)"
