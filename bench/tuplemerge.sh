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
# Per round and set: TupleMerge classifies the set's trace tiled to 1M
# headers (one pass, its own timer), and in the first round runs its
# update driver (1M requests, half inserts and half deletes, keeping
# 20-80% of the rules live, averaged over 10 passes); then
# BenchmarkClassBench and BenchmarkClassBenchChurn of ./rules run on the
# same set. The summary gives medians over the rounds
# and the ratio ofswitch / TupleMerge of the medians.
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

# name, rules, trace (relative to $DATA; "-" generates headers: TupleMerge
# its own 1M, ofswitch the rules' corners).
SETS="acl1_1k lyxocs-ruleSet/acl1_1k lyxocs-ruleSet/acl1_1k_trace
fw1_1k lyxocs-ruleSet/fw1_1k lyxocs-ruleSet/fw1_1k_trace
ipc1_1k lyxocs-ruleSet/ipc1_1k lyxocs-ruleSet/ipc1_1k_trace
acl1_10k lyxocs-ruleSet/acl1_10k -
fw1_10k lyxocs-ruleSet/fw1_10k lyxocs-ruleSet/fw1_10k_trace
ipc1_10k lyxocs-ruleSet/ipc1_10k lyxocs-ruleSet/ipc1_10k_trace
acl1_8k vpp-acl-partitionsort/acl1_seed_1_8k.rules vpp-acl-partitionsort/acl1_seed_1_8k.rules_trace
fw1_1k_ps vpp-acl-partitionsort/fw1_seed_1_1k.rules vpp-acl-partitionsort/fw1_seed_1_1k.rules_trace"

echo "$SETS" | while read -r name rules trace; do
	[ "$trace" = - ] && continue
	awk -v n=1000000 '{l[NR]=$0} END {for (i = 0; i < n; i++) print l[i % NR + 1]}' \
		"$DATA/$trace" >"$OUT/$name.trace"
done

(cd "$REPO" && go test -c -o "$OUT/rules.test" ./rules)

: >"$OUT/results.tsv"
round=1
while [ "$round" -le "$ROUNDS" ]; do
	echo "$SETS" | while read -r name rules trace; do
		p=Auto
		[ "$trace" = - ] || p="$OUT/$name.trace"
		"$TM_DIR/main" f="$DATA/$rules" c=TMOnline m=Classification p="$p" \
			>"$OUT/tm-$name-$round.log" 2>&1
		# Its update driver averages 10 passes of its own: once a run.
		[ "$round" -gt 1 ] || "$TM_DIR/main" f="$DATA/$rules" c=TMOnline m=Update p="$p" \
			>"$OUT/tmu-$name-$round.log" 2>&1
		# 1M headers either way (tiled, or Auto's).
		awk -v s="$name" '
			/Classification time:/ {t = $3}
			/Average tables queried:/ {q = $4}
			/Tables:/ {n = $2}
			END {printf "%s\ttm\tlookup\t%.3f\n%s\ttm\ttables\t%s\n%s\ttm\tqueried\t%s\n", s, 1/t, s, n, s, q}' \
			"$OUT/tm-$name-$round.log" >>"$OUT/results.tsv"
		[ "$round" -gt 1 ] || awk -v s="$name" '/UpdateTime time:/ {printf "%s\ttm\tupdate\t%.3f\n", s, 1/$3}' \
			"$OUT/tmu-$name-$round.log" >>"$OUT/results.tsv"
		(cd "$REPO/rules" && "$OUT/rules.test" -test.run '^$' -test.benchtime 300ms \
			-test.bench "^BenchmarkClassBench(Churn)?\$/^$name\$/^(merged-(nofilter|bcf)(-batch)?|bcf|none)\$" \
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
kinds = sorted({who for (_, who, _) in vals if who != "tm"})
print("median of %d rounds; ratio = ofswitch / TupleMerge" % max(len(v) for v in vals.values()))
print("set\tTM Mlookups/s\ttables (queried)\tTM Mupdates/s\t" + "\t".join(kinds))
for s in sets:
    tm = med.get((s, "tm", "lookup"))
    row = [s, "%.2f" % tm, "%d (%.1f)" % (med[s, "tm", "tables"], med[s, "tm", "queried"]), "%.2f" % med.get((s, "tm", "update"), 0)]
    for k in kinds:
        if (s, k, "lookup") in med:
            row.append("%.2f (%.2fx, %.1f visited)" % (med[s, k, "lookup"], med[s, k, "lookup"] / tm, med.get((s, k, "visited"), 0)))
        elif (s, k, "update") in med:
            tu = med[s, "tm", "update"]
            row.append("%.2f (%.2fx)" % (med[s, k, "update"], med[s, k, "update"] / tu))
        else:
            row.append("-")
    print("\t".join(row))
EOF
echo "raw results and logs: $OUT"
