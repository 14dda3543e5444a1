// Package bench measures ofswitch's filter against a baseline, in the same
// run on the same keys: github.com/seiflotfy/cuckoofilter (8-bit
// fingerprints, four per bucket). Both sides hash the same byte keys in the
// timed loop, the baseline with its own metro hash, ours with Hash, a small
// byte-key hash written here. It is a module of its own so that the
// main module's dependencies stay lean; run it with
//
//	cd bench && go test -c -o bench.test . &&
//	  for i in $(seq 10); do ./bench.test -test.run '^$' -test.bench . -test.count 1; done | tee new.txt
//
// so that each round measures every filter within seconds of the others
// (go test -count 10 runs each sub-benchmark ten times in a row, and this
// machine's memory speed swings within minutes).
package bench
