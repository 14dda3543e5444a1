// Package bench measures ofswitch's filter against a baseline, in the same
// run on the same keys: github.com/seiflotfy/cuckoofilter (8-bit
// fingerprints, four per bucket). Both sides hash the same byte keys in the
// timed loop, the baseline with its own metro hash, ours with Hash, a small
// byte-key hash written here. It is a module of its own so that the
// main module's dependencies stay lean; run it with
//
//	cd bench && go test -bench . -count 10 | tee new.txt
package bench
