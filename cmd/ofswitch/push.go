package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ofswitch/ofswitch/controller/push"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

func newPushCmd() *cobra.Command {
	var (
		target string
		cfg    push.Config
		strict bool
		asJSON bool
		fix    bool
		// --cpuprofile and --trace: where to record the push, if set.
		cpuProfile, tracePath string
	)
	cmd := &cobra.Command{
		Use:   "push [flags] FILE|-",
		Short: "Push a file of flows, groups and meters to a switch in barrier-delimited batches",
		Long: `Reads a file of flows, groups and meters and sends them in file order as
FLOW_MODs, GROUP_MODs and METER_MODs, a BARRIER_REQUEST after every --batch of
them, with up to --window batches in flight (the next batch goes out while the
switch applies the one before). A line is one of:

  a flow in ovs-ofctl add-flows syntax, which may start with add, modify,
    modify_strict, delete or delete_strict (--strict makes modify and delete
    strict; a delete without table= deletes from every table, and "delete"
    alone deletes every flow);
  a group as ovs-ofctl add-groups reads it, first field group_id=
    ("group_id=1,type=all,bucket=output:1"), which may start with add,
    modify or delete;
  a meter as ovs-ofctl add-meter takes it, first field meter=
    ("meter=1,kbps,bands=type=drop,rate=1000"), which may start with add,
    modify or delete;
  a line of an ovs-ofctl bundle file: "flow" or "group", optionally followed
    by a command word, then the flow or group ("group add group_id=1,...",
    "flow delete_strict priority=5,ip"); ofswitch adds "meter add|modify|delete
    meter=...", which ovs-ofctl's bundle files lack.

OpenFlow 1.3 has no add_or_mod, insert_bucket or remove_bucket group commands,
and push sends no packet-outs: such lines are errors, as is any line that does
not parse, or whose FLOW_MOD, GROUP_MOD or METER_MOD would not fit in one
OpenFlow message (65535 bytes, 24 fewer inside a bundle), and nothing is sent:
push checks every line first (a file of megabytes in parts, one per CPU, at
once). A file of up to 16 MiB pushed without --bundle is encoded as it is
checked, and its messages are sent as encoded; a larger one, or a bundled
push, is read twice, first to check it (keeping nothing of it), then to
parse and send it batch by batch, so that its memory is that of a few
batches whatever the file's size (standard input, or a pipe, is read into
memory first).
While it checks a file of up to 16 MiB, push connects to the switch,
sending nothing until the check is done.
A batch of more than 4 MiB (--batch 0 of a large file) goes out in pieces as
it is encoded, still one batch, or one bundle. Should the file change between
the two reads, push sends no more than the size it had when opened and stops
at the first bad line, after the batches before it.

With --bundle each batch is one bundle, committed atomically: applied whole or
not at all; --batch 0 makes the whole file one batch, as ovs-ofctl --bundle
sends it. Prints the flows, groups and meters pushed, mods/s (flows/s for a
file of flows alone) and the barrier
latency of the batches, each from its write to its barrier reply (a batch is
parsed and encoded before, while the switch applies the one ahead of it); every error the
switch sends is printed with the line of the file that caused it, and the exit
status is non-zero.

A file that names tun_metadataN is checked again after push has asked
the switch for its TLV table (NXT_TLV_TABLE_REQUEST, on a connection of
its own; ovs-ofctl add-tlv-map fills it): the fields are read and sent at
the lengths it maps, as ovs-ofctl sends them. A field the switch does not
map, or a switch that answers the request with an error, leaves the line
an error ("match field tun_metadata0 is not mapped"), and nothing is
sent. push holds 32 bytes of option space: a mapping beyond them (Open
vSwitch has 256) is warned of, and its field is refused.

An add line may set importance=N, OpenFlow 1.4's eviction precedence: push
then offers OpenFlow 1.4 as well as 1.3, and says so when the switch speaks
only 1.3, which has no field for it (ovs-ofctl -O OpenFlow13 drops it
silently).

Works against ofswitch and Open vSwitch alike.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cfg.Batch < 0 {
				return fmt.Errorf("--batch %d: want 0 (one batch) or more", cfg.Batch)
			}
			stop, err := startRecordings(cpuProfile, tracePath)
			if err != nil {
				return err
			}
			defer stop()
			in, err := openInput(cmd.InOrStdin(), args[0])
			if err != nil {
				return err
			}
			defer in.Close()
			opt := &ofctl.ParseOptions{Strict: strict, FixPrereqs: fix, Check: fitsOneMessage(cfg.Bundle)}
			var early *earlyDial
			if in.size <= earlyDialMax {
				early = dialEarly(cmd.Context(), target)
			}
			src := &modsSource{}
			var parts []*push.Encoded
			encode := &parts // the check encodes the mods, for the push to send
			if in.size > encodedMax || cfg.Bundle {
				encode = nil
			}
			sum, err := checkInputInto(in, opt, checkParts(in.size, runtime.GOMAXPROCS(0)), src, encode)
			defer func() { releaseAll(parts) }()
			if errors.Is(err, ofctl.ErrNotMapped) {
				// A line names tun_metadataN, which means what the
				// switch's TLV table maps it to: learn the table and
				// check again with it. A file that names none pays
				// nothing; one that does is checked twice.
				t, left, terr := push.TLVTable(cmd.Context(), target, nil, 0)
				if terr != nil {
					early.abandon()
					return terr
				}
				for _, idx := range left {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: the switch maps tun_metadata%d, which does not fit in push's %d bytes of option space: lines that name it are refused\n", idx, push.OptionSpace)
				}
				if t != nil {
					opt.TunMetadata, cfg.TLV = t, t
					sum, err = checkInputInto(in, opt, checkParts(in.size, runtime.GOMAXPROCS(0)), src, encode)
				}
			}
			if err != nil {
				early.abandon()
				return err
			}
			if cfg.Batch == 0 {
				cfg.Batch = max(sum.mods, 1)
			}
			cfg.Importance = sum.importance
			var source push.Source = src
			if es := push.NewEncodedSource(in.name, parts, chunkLines); es != nil && !sum.importance {
				// Without an importance nor Bundle the push offers
				// OpenFlow 1.3 alone, the version the check encoded.
				source = es
			} else {
				// The push reads the file with the reader that checked
				// its first part, whose memory is in place.
				src.mr.Reset(in.name, io.NewSectionReader(in, 0, in.size))
			}
			if early != nil {
				if cfg.Conn, err = early.wait(); err != nil {
					return err
				}
			}
			res, err := push.Stream(cmd.Context(), target, source, &cfg)
			if err != nil {
				if cfg.Conn != nil {
					err = fmt.Errorf("push to %s: %w", target, err) // as Stream names a target it dials
				}
				return err
			}
			w := cmd.OutOrStdout()
			if res.ImportanceDropped {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: the switch speaks OpenFlow 1.3, which has no importance: the flows were added without it\n")
			}
			for _, e := range res.Errors {
				fmt.Fprintln(cmd.ErrOrStderr(), e.Error())
			}
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				if err := enc.Encode(res); err != nil {
					return err
				}
			} else {
				if res.Groups+res.Meters == 0 {
					fmt.Fprintf(w, "pushed %d flows in %d batches in %v: %.0f flows/s\n", res.Flows, res.Batches, res.Elapsed.Round(1e5), res.PerSec)
				} else {
					fmt.Fprintf(w, "pushed %d flows, %d groups and %d meters in %d batches in %v: %.0f mods/s\n",
						res.Flows, res.Groups, res.Meters, res.Batches, res.Elapsed.Round(1e5), res.PerSec)
				}
				fmt.Fprintf(w, "barrier latency per batch: p50 %v, p99 %v, max %v\n", res.LatencyP50, res.LatencyP99, res.LatencyMax)
				fmt.Fprintf(w, "errors: %d\n", len(res.Errors))
			}
			if len(res.Errors) > 0 {
				return fmt.Errorf("the switch refused %d of %d mods", res.NotApplied, res.Flows+res.Groups+res.Meters)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&target, "switch", "tcp:127.0.0.1:6653", "the switch's OpenFlow target, tcp:IP[:PORT] or unix:PATH")
	f.IntVar(&cfg.Batch, "batch", 1024, "flow, group and meter mods between barriers (0: the whole file in one batch)")
	f.BoolVar(&cfg.Bundle, "bundle", false, "send each batch as one atomic, ordered bundle (OpenFlow 1.4, or the ONF extension over 1.3), as ovs-ofctl --bundle does")
	f.IntVar(&cfg.Window, "window", 4, "batches in flight before waiting for a barrier reply (1: stop and wait)")
	f.BoolVar(&strict, "strict", false, "modify and delete lines are strict (MODIFY_STRICT, DELETE_STRICT)")
	f.BoolVar(&fix, "fix-prereqs", false, "add missing match prerequisites instead of refusing the flow")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	// A push lasts a fraction of a second, some ten samples of a CPU
	// profile: go tool pprof takes the profiles of many pushes at once.
	f.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the push, from the reading of the file to the last reply, to this file (for go tool pprof, which merges the profiles of several pushes)")
	f.StringVar(&tracePath, "trace", "", "write a Go execution trace of the push to this file (for go tool trace: when the file was checked, each batch written and each reply read)")
	return cmd
}

// chunkLines is the lines push parses at a time: its memory is that of
// a chunk's mods and of the batches in flight, whatever the file's size.
// A short-lived process pays for each page of memory it touches first (a
// page fault, tens of microseconds in some virtual machines): a chunk of
// 256 ordinary flows is about 100 KB of updates and 25 KB of text, and
// push of 100K flows then touches 400 pages fewer than with chunks of
// 1024, in its check and again in its push.
const chunkLines = 256

// inputSummary is what the check of a file found: its mods (flows,
// groups and meters) and whether an add has an importance.
type inputSummary struct {
	mods       int
	importance bool
}

// checkPartMin is the least input that checkInput gives a part of its
// own: a part costs a reader and a chunk's memory (some 150 KB, each page
// of it a page fault in a short-lived process) and a goroutine, which a
// part of a few thousand lines does not pay back.
const checkPartMin = 1 << 20

// checkParts returns the parts checkInput cuts an input of size bytes
// into: one per CPU (of cpus), each of checkPartMin bytes at least.
func checkParts(size int64, cpus int) int {
	return int(max(min(int64(cpus), size/checkPartMin), 1))
}

// checkInput parses the whole input, keeping nothing but counts, and
// returns every bad line's error joined, in line order: push sends
// nothing of a file with a bad line, as ovs-ofctl add-flows does, in the
// memory of a chunk (a chunk per part).
//
// The input is cut at line ends into up to parts parts of about equal
// size, checked at once, each by a reader of its own: the switch waits
// for the check, so checking a 100K-flow file on two CPUs instead of one
// takes the check's time nearly by half from what the user waits for. A
// part's line numbers count from its start until all parts before it are
// done; its errors are then renumbered (ParseError.Line) as the file's.
func checkInput(in *input, opt *ofctl.ParseOptions, parts int) (inputSummary, error) {
	return checkInputInto(in, opt, parts, nil, nil)
}

// checkInputInto is checkInput that checks the first part with the
// reader and the Mods of keep (new ones into keep if it has none), which
// it leaves in keep, if not nil: a short-lived process pays for each page
// of memory it touches first, and push, which reads the file again to
// send it, then reads it with memory already in place.
//
// If enc is not nil, the check also encodes every mod, a part into an
// push.Encoded each, which it leaves in *enc in the parts' order, their
// lines the file's; *enc is nil if a line is bad or a mod did not encode
// (push then parses the file again to send it, or sends nothing).
func checkInputInto(in *input, opt *ofctl.ParseOptions, parts int, keep *modsSource, enc *[]*push.Encoded) (inputSummary, error) {
	cuts, err := lineCuts(in, in.size, parts)
	if err != nil {
		return inputSummary{}, err
	}
	var eps []*push.Encoded
	if enc != nil {
		eps = make([]*push.Encoded, len(cuts)-1)
		for k := range eps {
			eps[k] = push.NewEncoded(cuts[k+1] - cuts[k])
			if t, ok := opt.TunMetadata.(*push.TLVLayout); ok {
				eps[k].SetTLV(t) // the switch's table, as push.TLVTable gave it
			}
		}
	}
	type result struct {
		sum   inputSummary
		lines int
		bad   []error
		err   error
	}
	res := make([]result, len(cuts)-1)
	var wg sync.WaitGroup
	for k := range res {
		wg.Go(func() {
			r := &res[k]
			sec := io.NewSectionReader(in, cuts[k], cuts[k+1]-cuts[k])
			var mr *ofctl.ModsReader
			m := &ofctl.Mods{}
			if k == 0 && keep != nil {
				if keep.mr == nil {
					keep.mr = ofctl.NewModsReader(in.name, sec, chunkLines, opt)
				} else {
					keep.mr.Reset(in.name, sec)
				}
				mr, m = keep.mr, &keep.m
			} else {
				mr = ofctl.NewModsReader(in.name, sec, chunkLines, opt)
			}
			var ep *push.Encoded
			if eps != nil {
				ep = eps[k]
			}
			r.sum, r.lines, r.bad, r.err = checkPart(mr, m, ep)
		})
	}
	wg.Wait()
	var (
		sum  inputSummary
		errs []error
		base int // lines before the part
	)
	for k := range res {
		r := &res[k]
		if r.err != nil {
			return sum, r.err
		}
		sum.mods += r.sum.mods
		sum.importance = sum.importance || r.sum.importance
		for _, e := range r.bad {
			var pe *ofctl.ParseError
			if base > 0 && errors.As(e, &pe) {
				pe.Line += base
			}
		}
		errs = append(errs, r.bad...)
		if eps != nil {
			if eps[k].Failed() {
				releaseAll(eps)
				eps = nil
			} else if base > 0 {
				eps[k].AddLines(base)
			}
		}
		base += r.lines
	}
	if enc != nil {
		if len(errs) > 0 {
			releaseAll(eps)
			eps = nil
		}
		*enc = eps
	}
	return sum, errors.Join(errs...)
}

// checkPart reads a part with mr, into m, as checkInput does: its
// summary, its lines and its bad lines' errors, numbered from its first
// line; and encodes its mods into ep, if not nil, until a line is bad.
func checkPart(mr *ofctl.ModsReader, m *ofctl.Mods, ep *push.Encoded) (sum inputSummary, lines int, errs []error, err error) {
	for {
		bad, err := mr.NextInto(m)
		if err == io.EOF {
			return sum, mr.Lines(), errs, nil
		}
		if err != nil {
			return sum, 0, nil, err
		}
		errs = append(errs, bad...)
		if ep != nil && len(errs) == 0 {
			encodeMods(ep, m)
		}
		sum.mods += len(m.Flows) + len(m.Groups) + len(m.Meters)
		for i := range m.Flows {
			if u := &m.Flows[i]; u.Importance != 0 && u.Command == rules.CmdAdd {
				sum.importance = true
			}
		}
	}
}

// lineCuts returns the offsets that cut the size bytes of r into up to
// parts parts of about equal size: 0, the start of a line (just after a
// '\n') near each multiple of size/parts, and size. A cut that would
// fall in the line of the cut before it is left out, so that no part is
// empty.
func lineCuts(r io.ReaderAt, size int64, parts int) ([]int64, error) {
	cuts := []int64{0}
	buf := make([]byte, 4<<10)
	for k := 1; k < parts; k++ {
		at := max(size*int64(k)/int64(parts), cuts[len(cuts)-1]+1) - 1
		for at < size {
			n, err := r.ReadAt(buf[:min(int64(len(buf)), size-at)], at)
			if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
				if at+int64(i)+1 < size {
					cuts = append(cuts, at+int64(i)+1)
				}
				at = size // found
				break
			}
			if err == io.EOF {
				break // shorter than it was: no line starts after at
			}
			if err != nil {
				return nil, err
			}
			at += int64(n)
		}
	}
	return append(cuts, size), nil
}

// earlyDialMax is the largest input push connects to the switch for while
// it checks the input: the switch waits for push's HELLO meanwhile (an
// idle connection, which a switch may close after some seconds), and a
// file of 16 MiB checks in a fraction of a second. Connecting then takes
// the connect and the switch's start of the connection (its HELLO
// included) off the time to the first FLOW_MOD.
const earlyDialMax = 16 << 20

// earlyDial is a connection to the switch being made while the input is
// checked (push.Dial).
type earlyDial struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when nc, err are set
	nc     net.Conn
	err    error
}

// dialEarly starts connecting to target, and returns once the connection
// is on its way (its socket made, the connect system call next) or the
// dial is over: the check's goroutines, started next, take every CPU,
// and a dial left to compete with them for one may not connect before
// the check ends.
func dialEarly(ctx context.Context, target string) *earlyDial {
	ctx, cancel := context.WithCancel(ctx)
	d := &earlyDial{cancel: cancel, done: make(chan struct{})}
	started := make(chan struct{})
	var once sync.Once
	dialer := &net.Dialer{ControlContext: func(context.Context, string, string, syscall.RawConn) error {
		once.Do(func() { close(started) })
		return nil
	}}
	go func() {
		defer close(d.done)
		d.nc, d.err = push.Dial(ctx, target, dialer)
	}()
	select {
	case <-started:
	case <-d.done:
	}
	return d
}

// wait returns the connection, or why there is none.
func (d *earlyDial) wait() (net.Conn, error) {
	<-d.done
	d.cancel() // a connection made outlives its dial's context
	return d.nc, d.err
}

// abandon gives up the connection, made or still being made, without
// waiting for it. d may be nil.
func (d *earlyDial) abandon() {
	if d == nil {
		return
	}
	d.cancel()
	go func() {
		<-d.done
		if d.nc != nil {
			d.nc.Close()
		}
	}()
}

// modsSource is the push.Source of a file read a chunk at a time, each
// chunk's flows, groups and meters in file order. The chunks are read
// into one Mods (ModsReader.NextInto): Stream is done with a chunk when
// it asks for the next.
type modsSource struct {
	mr   *ofctl.ModsReader
	m    ofctl.Mods
	msgs []push.Msg
}

func (s *modsSource) Next() ([]push.Msg, error) {
	m := &s.m
	errs, err := s.mr.NextInto(m)
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		// checkInput found none: the file changed under the push.
		return nil, fmt.Errorf("the input changed while it was pushed: %w", errors.Join(errs...))
	}
	s.msgs = s.msgs[:0]
	if len(m.Groups)+len(m.Meters) == 0 {
		// Flows alone, the usual file: in their order, without Ops.
		for i := range m.Flows {
			s.msgs = append(s.msgs, push.Msg{Flow: &m.Flows[i], File: s.mr.Name(), Line: m.Flows[i].ID})
		}
		return s.msgs, nil
	}
	for _, op := range m.Ops() {
		switch op.Kind {
		case ofctl.OpFlow:
			s.msgs = append(s.msgs, push.Msg{Flow: &m.Flows[op.Index], File: s.mr.Name(), Line: m.Flows[op.Index].ID})
		case ofctl.OpGroup:
			g := &m.Groups[op.Index]
			s.msgs = append(s.msgs, push.Msg{Group: &g.Mod, Where: s.mr.Name() + ":" + strconv.Itoa(g.Line)})
		case ofctl.OpMeter:
			e := &m.Meters[op.Index]
			s.msgs = append(s.msgs, push.Msg{Meter: &e.Mod, Where: s.mr.Name() + ":" + strconv.Itoa(e.Line)})
		}
	}
	return s.msgs, nil
}

// input is what push reads: a file, or standard input read into memory.
// Each pass over it, and each part of the check, reads it from where it
// wants through a section of its own.
type input struct {
	io.ReaderAt
	name  string
	size  int64
	close func() error
}

func (in *input) Close() error { return in.close() }

// openInput opens the input named path: a file, read once to check it
// and once to push it (up to the size it had when opened), or standard
// input for "-" (or a file that is not a regular file, such as a pipe),
// which is read into memory first.
func openInput(stdin io.Reader, path string) (*input, error) {
	if path == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, err
		}
		return &input{ReaderAt: bytes.NewReader(b), name: "<stdin>", size: int64(len(b)), close: func() error { return nil }}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		// A pipe (push <(gen-flows)) is read once, as standard input.
		defer f.Close()
		b, err := io.ReadAll(f)
		if err != nil {
			return nil, err
		}
		return &input{ReaderAt: bytes.NewReader(b), name: path, size: int64(len(b)), close: func() error { return nil }}, nil
	}
	return &input{ReaderAt: f, name: path, size: st.Size(), close: f.Close}, nil
}

// encodedMax is the largest input whose check keeps its mods encoded
// (push.Encoded) for the push to send, instead of parsing the file again:
// the messages of a file of ordinary flows take about 1.4 times its size
// (a 95-byte line, a 128-byte FLOW_MOD), so that a file of 16 MiB costs
// some tens of MiB, and parsing a line costs several times what copying
// its message does.
const encodedMax = 16 << 20

// releaseAll releases the memory of parts.
func releaseAll(parts []*push.Encoded) {
	for _, e := range parts {
		e.Release()
	}
}

// encodeMods encodes the mods of m into e, in file order.
func encodeMods(e *push.Encoded, m *ofctl.Mods) {
	if len(m.Groups)+len(m.Meters) == 0 {
		for i := range m.Flows {
			e.Flow(&m.Flows[i])
		}
		return
	}
	for _, op := range m.Ops() {
		switch op.Kind {
		case ofctl.OpFlow:
			e.Flow(&m.Flows[op.Index])
		case ofctl.OpGroup:
			e.Group(&m.Groups[op.Index].Mod, op.Line)
		case ofctl.OpMeter:
			e.Meter(&m.Meters[op.Index].Mod, op.Line)
		}
	}
}
