#!/bin/sh
# tuplemerge.sh: TupleMerge online (drjdaly/tuplemerge, the authors' C++
# code and driver) against ofswitch's rules package on the ClassBench sets,
# interleaved in one run, so that the ratios survive a noisy machine.
#
# TupleMerge's code is not part of this repository: the script clones it
# into $TM_DIR (a temporary directory by default) at the commit below and
# builds it with its own makefile (g++ -O3). It needs git, g++, python3,
# Go and network access for the clone (or TM_DIR holding a built copy).
#
#   sh bench/tuplemerge.sh [ROUNDS]        # default 3 rounds
#
# Both classify the same header sequence: the set's trace in file order,
# tiled to 1M headers, runs of repeated headers included (ClassBench's
# generator repeats a header a Pareto number of times: about half of a
# trace's headers repeat the one before). acl1_10k has no trace: ofswitch
# bench trace writes one (ClassBench's generator, 10 headers a rule, seed
# 1) into $OUT, and both classify it. Per round and set: TupleMerge
# classifies the tiled trace (one pass, its own timer), and in the first
# round runs its update driver (1M requests, half inserts and half
# deletes, keeping 20-80% of the rules live, averaged over 10 passes);
# then BenchmarkClassBench and BenchmarkClassBenchChurn of ./rules run on
# the same set: BenchmarkClassBench cycles through the trace in file
# order, which is the tiled sequence, and its "-shuffled" variants look
# up the same headers shuffled into blocks of 65,536 (the runs broken up:
# the harder, cache-cold case). The summary gives medians over the
# rounds and the ratio ofswitch / TupleMerge of the medians, lookups and
# updates in two tables; the "-shuffled" columns' ratios set ofswitch on
# the shuffled headers against TupleMerge on the trace in order (it runs
# no shuffled case).
set -eu

ROUNDS=${1:-3}
REPO=$(cd "$(dirname "$0")/.." && pwd)
DATA=${CLASSBENCH:-$REPO/../shared/data/classbench}
TM_COMMIT=035421c
TM_DIR=${TM_DIR:-${TMPDIR:-/tmp}/tuplemerge}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"

if [ ! -x "$TM_DIR/main" ]; then
	rm -rf "$TM_DIR"
	git clone -q https://github.com/drjdaly/tuplemerge "$TM_DIR"
	git -C "$TM_DIR" checkout -q "$TM_COMMIT"
	make -C "$TM_DIR" main >"$OUT/tm-build.log" 2>&1
fi

# name, rules, trace (relative to $DATA; "-": the trace ofswitch bench
# trace writes, which BenchmarkClassBench generates alike).
SETS="acl1_1k lyxocs-ruleSet/acl1_1k lyxocs-ruleSet/acl1_1k_trace
fw1_1k lyxocs-ruleSet/fw1_1k lyxocs-ruleSet/fw1_1k_trace
ipc1_1k lyxocs-ruleSet/ipc1_1k lyxocs-ruleSet/ipc1_1k_trace
acl1_10k lyxocs-ruleSet/acl1_10k -
fw1_10k lyxocs-ruleSet/fw1_10k lyxocs-ruleSet/fw1_10k_trace
ipc1_10k lyxocs-ruleSet/ipc1_10k lyxocs-ruleSet/ipc1_10k_trace
acl1_8k vpp-acl-partitionsort/acl1_seed_1_8k.rules vpp-acl-partitionsort/acl1_seed_1_8k.rules_trace
fw1_1k_ps vpp-acl-partitionsort/fw1_seed_1_1k.rules vpp-acl-partitionsort/fw1_seed_1_1k.rules_trace"

(cd "$REPO" && go test -c -o "$OUT/rules.test" ./rules && go build -o "$OUT/ofswitch" ./cmd/ofswitch)

echo "$SETS" | while read -r name rules trace; do
	src="$DATA/$trace"
	if [ "$trace" = - ]; then
		# The seed and count BenchmarkClassBench uses (traceSeed,
		# classbench.TraceScale): the same headers.
		src="$OUT/$name.generated_trace"
		"$OUT/ofswitch" bench trace --classbench "$DATA/$rules" --seed 1 >"$src"
	fi
	awk -v n=1000000 '{l[NR]=$0} END {for (i = 0; i < n; i++) print l[i % NR + 1]}' \
		"$src" >"$OUT/$name.trace"
done

: >"$OUT/results.tsv"
round=1
while [ "$round" -le "$ROUNDS" ]; do
	echo "$SETS" | while read -r name rules trace; do
		p="$OUT/$name.trace"
		"$TM_DIR/main" f="$DATA/$rules" c=TMOnline m=Classification p="$p" \
			>"$OUT/tm-$name-$round.log" 2>&1
		# Its update driver averages 10 passes of its own: once a run.
		[ "$round" -gt 1 ] || "$TM_DIR/main" f="$DATA/$rules" c=TMOnline m=Update p="$p" \
			>"$OUT/tmu-$name-$round.log" 2>&1
		# The trace tiled to 1M headers, one pass.
		awk -v s="$name" '
			/Classification time:/ {t = $3}
			/Average tables queried:/ {q = $4}
			/Tables:/ {n = $2}
			END {printf "%s\ttm\tlookup\t%.3f\n%s\ttm\ttables\t%s\n%s\ttm\tqueried\t%s\n", s, 1/t, s, n, s, q}' \
			"$OUT/tm-$name-$round.log" >>"$OUT/results.tsv"
		[ "$round" -gt 1 ] || awk -v s="$name" '/UpdateTime time:/ {printf "%s\ttm\tupdate\t%.3f\n", s, 1/$3}' \
			"$OUT/tmu-$name-$round.log" >>"$OUT/results.tsv"
		(cd "$REPO/rules" && "$OUT/rules.test" -test.run '^$' -test.benchtime 300ms \
			-test.bench "^BenchmarkClassBench(Churn)?\$/^$name\$/^(merged-(nofilter|bcf)(-shuffled)?(-batch)?|bcf|none)\$" \
			) >"$OUT/of-$name-$round.log" 2>&1
		# ClassBench/SET/VARIANT lookups; ClassBenchChurn/SET/FILTER/per=N
		# updates (rules, not entries, as TupleMerge counts them).
		awk -v s="$name" '
			/^BenchmarkClassBench\// {
				split($1, a, "/"); v = a[3]; sub(/-[0-9]+$/, "", v)
				for (i = 2; i < NF; i++) {
					if ($(i+1) == "Mlookups/s") printf "%s\t%s\tlookup\t%s\n", s, v, $i
					if ($(i+1) == "subtables/lookup") printf "%s\t%s\tvisited\t%s\n", s, v, $i
				}
			}
			/^BenchmarkClassBenchChurn\// {
				split($1, a, "/"); per = a[4]; sub(/-[0-9]+$/, "", per)
				for (i = 2; i < NF; i++)
					if ($(i+1) == "Mrules/s") printf "%s\tchurn-%s-%s\tupdate\t%s\n", s, a[3], per, $i
			}' "$OUT/of-$name-$round.log" >>"$OUT/results.tsv"
	done
	round=$((round + 1))
done

python3 - "$OUT/results.tsv" <<'EOF'
import collections, statistics, sys
vals = collections.defaultdict(list)
sets = []
for line in open(sys.argv[1]):
    s, who, what, v = line.split("\t")
    if s not in sets:
        sets.append(s)
    vals[s, who, what].append(float(v))
med = {k: statistics.median(v) for k, v in vals.items()}
rounds = max(len(v) for v in vals.values())
# Lookups: the in-order variants, each beside its -shuffled one.
looks = sorted({who for (_, who, what) in vals if what == "lookup" and who != "tm"})
ups = sorted({who for (_, who, what) in vals if what == "update" and who != "tm"})
print("median of %d rounds; ratio = ofswitch / TupleMerge of the medians" % rounds)
print()
print("lookups, M/s (ratio, subtables visited a lookup); both classify the trace in file order,")
print("-shuffled: ofswitch on the same headers shuffled, the runs broken up (TupleMerge runs no such case)")
print("set\tTM Mlookups/s\ttables (queried)\t" + "\t".join(looks))
for s in sets:
    tm = med[s, "tm", "lookup"]
    row = [s, "%.2f" % tm, "%d (%.1f)" % (med[s, "tm", "tables"], med[s, "tm", "queried"])]
    for k in looks:
        if (s, k, "lookup") in med:
            row.append("%.2f (%.2fx, %.1f)" % (med[s, k, "lookup"], med[s, k, "lookup"] / tm, med.get((s, k, "visited"), 0)))
        else:
            row.append("-")
    print("\t".join(row))
print()
print("updates, M rules/s (ratio)")
print("set\tTM Mupdates/s\t" + "\t".join(ups))
for s in sets:
    tu = med.get((s, "tm", "update"))
    row = [s, "%.2f" % tu if tu else "-"]
    for k in ups:
        if (s, k, "update") in med and tu:
            row.append("%.2f (%.2fx)" % (med[s, k, "update"], med[s, k, "update"] / tu))
        else:
            row.append("-")
    print("\t".join(row))
EOF
echo "raw results and logs: $OUT"
