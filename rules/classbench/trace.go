package classbench

import (
	"bufio"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
)

// TraceScale is the number of headers per rule of the sets' own traces:
// ClassBench's trace generator was run with scale 10 for them (fw1_10k's
// 9,416 rules have 94,182 headers, acl1_1k's 878 have 8,780).
const TraceScale = 10

// The Pareto parameters of ClassBench's traces (trace_generator a=1,
// b=0.1; TupleMerge's driver uses the same). With a = 1 a header is
// repeated k or more times with probability 0.1/(k-1) for k >= 2: nine
// draws in ten give one copy, and the tail is heavy enough that the mean
// grows with the trace (the log of its length).
const (
	paretoA = 1.0
	paretoB = 0.1
)

// GenerateTrace returns n headers drawn from rs as ClassBench's trace
// generator draws them (Taylor and Turner, "ClassBench: A Packet
// Classification Benchmark"): pick a rule uniformly, take a random corner
// of it (the low or the high end of each of its five fields' ranges, each
// with probability 1/2: a prefix's first or last address, a port range's
// ends, a masked protocol with its free bits clear or set), and append it
// ceil(b / (1-u)^(1/a)) times in a row, u uniform in [0, 1) (a Pareto
// number of copies, a = 1, b = 0.1), until there are n. The last run is
// cut at n, as TupleMerge's copy of the generator does; ClassBench's own
// writes it whole, so that its traces end up to a run beyond scale times
// the rules, and with a = 1 a run may be arbitrarily long.
//
// Each header's Label is the index of the rule it was drawn from (which
// it matches; First may answer an earlier rule) and Line its 1-based
// position, as WriteTrace writes it. The same rs, n and seed give the
// same headers; the random source is this package's own (PCG), so the
// headers are not those of ClassBench's or TupleMerge's generator for any
// seed, only drawn the same way. A nil or empty rs, or n <= 0, gives nil.
func GenerateTrace(rs []Rule, n int, seed uint64) []Header {
	if len(rs) == 0 || n <= 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x636c617373626e63)) // "classbnc"
	out := make([]Header, 0, n)
	for len(out) < n {
		ri := rng.IntN(len(rs))
		h := corner(&rs[ri], rng.Uint32())
		h.Label = ri
		copies := n - len(out)
		if x := math.Ceil(paretoB / math.Pow(1-rng.Float64(), 1/paretoA)); x < float64(copies) {
			copies = int(x)
		}
		for range copies {
			h.Line = len(out) + 1
			out = append(out, h)
		}
	}
	return out
}

// corner returns the corner of r that the low five bits of bits choose:
// bit 0 the source address's high end, 1 the destination's, 2 and 3 the
// ports', 4 the protocol's.
func corner(r *Rule, bits uint32) Header {
	end := func(i uint) bool { return bits>>i&1 == 1 }
	h := Header{Src: r.Src, Dst: r.Dst, Sport: r.SportLo, Dport: r.DportLo, Proto: r.Proto}
	if end(0) {
		h.Src |= hostBits(r.SrcLen)
	}
	if end(1) {
		h.Dst |= hostBits(r.DstLen)
	}
	if end(2) {
		h.Sport = r.SportHi
	}
	if end(3) {
		h.Dport = r.DportHi
	}
	if end(4) {
		h.Proto |= ^r.ProtoMask
	}
	return h
}

// hostBits returns the bits of an address a prefix of length l leaves
// free.
func hostBits(l int) uint32 {
	if l >= 32 {
		return 0
	}
	return 1<<(32-l) - 1
}

// WriteTrace writes hs in ClassBench's trace format, one header a line:
// seven TAB-separated decimal columns (source and destination address,
// source and destination port, protocol, flags, label), as the sets'
// traces are written. ParseTrace reads it back (Line becomes the line
// number), and so does TupleMerge's driver (p=FILE), which reads the first
// five columns. The flags column is written as 0: Header has none.
func WriteTrace(w io.Writer, hs []Header) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var line []byte
	for i := range hs {
		h := &hs[i]
		line = strconv.AppendUint(line[:0], uint64(h.Src), 10)
		line = append(line, '\t')
		line = strconv.AppendUint(line, uint64(h.Dst), 10)
		line = append(line, '\t')
		line = strconv.AppendUint(line, uint64(h.Sport), 10)
		line = append(line, '\t')
		line = strconv.AppendUint(line, uint64(h.Dport), 10)
		line = append(line, '\t')
		line = strconv.AppendUint(line, uint64(h.Proto), 10)
		line = append(line, "\t0\t"...)
		line = strconv.AppendInt(line, int64(h.Label), 10)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}
