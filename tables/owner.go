package tables

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/rules"
)

// Config sets up an Owner. The zero value of every field means its
// default.
type Config struct {
	// Lookups, if set, returns how many packets the data plane has looked
	// up so far (safe from any goroutine), for the lookup rates of Burst.
	Lookups func() uint64
	// OnBurst, if set, is called after every burst, with the tables'
	// writer lock held: it must be quick.
	OnBurst func(Burst)
	// Bursts is how many of the most recent bursts Owner.Bursts keeps;
	// default 1024.
	Bursts int
	// Groups is the group table, whose only writer the owner is too; nil
	// means a new, empty one.
	Groups *groups.Table
	// NoUpdateCosts leaves what each update cost unrecorded: Burst's
	// UpdateNs and Iterations are zero and its Costs nil. Timing each
	// update reads the clock once an update, and summarising a burst's
	// costs selects two percentiles of each distribution: some 5% of what
	// a burst of ordinary flows costs, for figures an owner whose bursts
	// nobody watches (no OnBurst, no reader of Bursts' distributions)
	// throws away.
	NoUpdateCosts bool
}

// Owner is the only writer of a pipeline's flow tables: it applies bursts
// of updates, records what each cost, removes expired flows, and does the
// tables' idle work (Run).
//
// # Concurrency
//
// Every method is safe for concurrent use. Apply, Read, Expire and the
// idle work of Run take the writer lock, so that one of them changes or
// walks the tables at a time; the data plane's lookups never take it.
type Owner struct {
	cfg    Config
	pipe   *rules.Pipeline
	groups *groups.Table
	bursts burstRing
	meters *meters.Table // SetMeters; written under mu, before use

	// mu makes the writer of the flow tables one goroutine at a time:
	// bursts, expiry, the idle work and the walks of Read.
	mu sync.Mutex
	// lastBurst is when the last burst was published, in nanoseconds
	// since epoch plus one (0: none yet), for the idle maintenance; see
	// maintain. maintWaits is set while maintain waits for a burst with
	// no timer running; Apply, when it clears the flag, signals burst
	// (without blocking), so that maintain is woken once after it went
	// idle, not after every burst.
	epoch      time.Time
	lastBurst  atomic.Int64
	maintWaits atomic.Bool
	burst      chan struct{}
	// refill is signalled (without blocking) after a burst that took half
	// of the memory made ahead for some table (rules.Pipeline.PrefaultDue),
	// for prefault.
	refill chan struct{}
	// Guarded by mu: Apply's buffers, and when the last burst was
	// published with the lookup count then.
	costs      []rules.UpdateCost
	costBuf    []int64
	kept       []rules.Update // Apply's updates that name no missing group
	badIdx     []int          // Apply's updates that do
	lastPub    time.Time
	lastPubLks uint64

	// beforePublish, a test hook, runs in ApplyBundle just before the
	// burst is published, after the groups and meters it needs.
	beforePublish func()

	watcher func([]rules.Change) // Watch's expired; mu guards it
}

// New returns the owner of p's tables; cfg may be nil for defaults. Nothing
// else may change p's tables while the owner is in use.
func New(p *rules.Pipeline, cfg *Config) *Owner {
	if p == nil {
		panic("tables: New with a nil pipeline")
	}
	o := &Owner{pipe: p}
	if cfg != nil {
		o.cfg = *cfg
	}
	if o.cfg.Bursts <= 0 {
		o.cfg.Bursts = 1024
	}
	if o.cfg.Groups == nil {
		o.cfg.Groups = groups.New(nil)
	}
	o.groups = o.cfg.Groups
	o.bursts.init(o.cfg.Bursts)
	o.epoch = time.Now()
	o.burst = make(chan struct{}, 1)
	o.refill = make(chan struct{}, 1)
	o.lastPub, o.lastPubLks = time.Now(), o.Lookups()
	return o
}

// Pipeline returns the flow tables. Lookups may use it at any time; a
// caller that reads rules of a pipeline that recycles does so inside
// Read.
func (o *Owner) Pipeline() *rules.Pipeline { return o.pipe }

// NumTables returns the number of flow tables.
func (o *Owner) NumTables() int { return o.pipe.NumTables() }

// Lookups returns the data plane's lookup count, 0 without Config.Lookups.
func (o *Owner) Lookups() uint64 {
	if o.cfg.Lookups == nil {
		return 0
	}
	return o.cfg.Lookups()
}

// Apply applies ups as one burst, as the tables' only writer while it
// runs, into res (see rules.Pipeline.ApplyBurstTo), records what the burst
// cost, and returns how many of the updates failed (res.Errs says which).
// start is when its first update was read, and startLks the lookup count
// then (Lookups).
func (o *Owner) Apply(res *rules.BurstResult, ups []rules.Update, atomic bool, start time.Time, startLks uint64) (failed int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	costs := o.costsFor(len(ups))
	t0 := time.Now()
	o.applyChecked(res, ups, atomic, costs)
	return o.record(res, len(ups), costs, t0, start, startLks)
}

// record records a burst of n updates that began at t0 (in the tables)
// and start (its first update read, the lookup count then startLks) and
// is published now, with res its result and costs what each update cost,
// and returns how many updates failed. The caller holds mu.
func (o *Owner) record(res *rules.BurstResult, n int, costs []rules.UpdateCost, t0, start time.Time, startLks uint64) int {
	done := time.Now()
	lks := o.Lookups()
	fs := o.pipe.Filters()
	b := Burst{
		Start: start, Updates: n, Apply: done.Sub(t0), Latency: done.Sub(start),
		Errors: countErrs(res.Errs), Version: res.Version,
		FilterLen: fs.Len, BloomLen: fs.BloomLen, Occupancy: fs.Occupancy,
		LookupsDuring: rate(lks-startLks, done.Sub(start)), Costs: costs,
	}
	// A burst read while another connection's was applied started
	// before that one's publication: it has no "before" of its own.
	if start.After(o.lastPub) && startLks >= o.lastPubLks {
		b.LookupsBefore = rate(startLks-o.lastPubLks, start.Sub(o.lastPub))
	}
	o.lastPub, o.lastPubLks = done, lks
	o.costBuf = burstFigures(&b, costs, o.costBuf)
	o.bursts.record(b)
	o.lastBurst.Store(int64(done.Sub(o.epoch)) + 1)
	if o.maintWaits.Load() && o.maintWaits.CompareAndSwap(true, false) {
		select {
		case o.burst <- struct{}{}:
		default:
		}
	}
	if o.pipe.PrefaultDue() {
		select {
		case o.refill <- struct{}{}:
		default:
		}
	}
	if o.cfg.OnBurst != nil {
		o.cfg.OnBurst(b)
	}
	return b.Errors
}

func countErrs(errs []error) int {
	n := 0
	for _, e := range errs {
		if e != nil {
			n++
		}
	}
	return n
}

// Read calls fn with the tables while no burst, expiry or idle work
// changes them. A pipeline that recycles may reuse a rule's memory for
// another flow in the next burst, so fn keeps nothing of a rule after it
// returns.
func (o *Owner) Read(fn func(p *rules.Pipeline)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	fn(o.pipe)
}

// Stats returns the statistics of every flow table, taken while no burst
// is being applied.
func (o *Owner) Stats() []rules.TableStats {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]rules.TableStats, o.pipe.NumTables())
	for i := range out {
		out[i] = o.pipe.Table(uint8(i)).Stats()
	}
	return out
}

// Bursts returns the most recent bursts (up to Config.Bursts), oldest
// first.
func (o *Owner) Bursts() []Burst {
	r := &o.bursts
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]Burst(nil), r.buf[:r.next]...)
	}
	return append(append([]Burst(nil), r.buf[r.next:]...), r.buf[:r.next]...)
}

// Expire removes the entries whose timeouts have passed and returns their
// records (rules.Pipeline.Expire).
func (o *Owner) Expire() []rules.FlowRemoved {
	o.mu.Lock()
	defer o.mu.Unlock()
	out, cs := o.pipe.ExpireChanges(nil)
	if len(cs) > 0 && o.watcher != nil {
		o.watcher(cs)
	}
	return out
}

// Watch makes the flow tables record every change for flow monitoring
// (rules.Pipeline.Watch): the bursts of Apply, ApplyBundle, ApplyGroup
// and ApplyMeterTo return theirs in BurstResult.Changes, and the
// removals of timed-out entries go to expired, called by the writer (with
// the tables locked: it must not call back into the Owner). A nil
// expired stops the recording.
func (o *Owner) Watch(expired func([]rules.Change)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.watcher = expired
	o.pipe.Watch(expired != nil)
}

// Run does the tables' background work until ctx is done, and returns
// once it has stopped: it removes expired entries once a second, handing
// their records to expired (if not nil), does the idle work once the
// tables have gone idleAfter without a burst (maintain), and makes the
// memory of the next burst's rules after every burst that took half of
// what was made ahead (prefault).
func (o *Owner) Run(ctx context.Context, expired func([]rules.FlowRemoved)) {
	var wg sync.WaitGroup
	wg.Go(func() { o.expire(ctx, expired) })
	wg.Go(func() { o.maintain(ctx, idleAfter) })
	wg.Go(func() { o.prefault(ctx) })
	wg.Wait()
}

// expire removes timed-out entries once a second until ctx is done.
func (o *Owner) expire(ctx context.Context, expired func([]rules.FlowRemoved)) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if rs := o.Expire(); expired != nil {
			expired(rs)
		}
	}
}

// idleAfter is how long the flow tables must go without a burst before
// maintain works on them; rebalanceBudget bounds the filter elements one
// pass moves, and so the time a burst arriving meanwhile waits for it.
const (
	idleAfter       = 2 * time.Millisecond
	rebalanceBudget = 4096
)

// maintain does the flow tables' idle work (rules.Pipeline.Rebalance)
// once they have gone idle for d after a burst, until ctx is done: removed
// rules leave the index, and elements that a burst put into a Bloom-Cuckoo
// filter's Bloom part move back into cuckoo slots, where lookups answer
// with fewer false positives. It goes on, a budget at a time, while there
// is more to move and no burst comes.
//
// Bursts do not wake it: it sleeps until d after the last one it knows
// of and looks again, and only once it has caught up, with nothing more
// to do, does it ask Apply to wake it at the next burst (maintWaits).
func (o *Owner) maintain(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	t.Stop()
	sleep := func(d time.Duration) bool {
		t.Reset(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
			return true
		}
	}
	var seen int64 // the last burst maintain has waited out
	for {
		if o.lastBurst.Load() == seen {
			o.maintWaits.Store(true)
			// A burst published before the flag was set did not see
			// it; if one came, whoever clears the flag first owes the
			// wake-up: maintain itself, or Apply, which signals.
			if o.lastBurst.Load() == seen || !o.maintWaits.CompareAndSwap(true, false) {
				select {
				case <-ctx.Done():
					return
				case <-o.burst:
				}
			}
		}
		for {
			seen = o.lastBurst.Load()
			if wait := d - (time.Since(o.epoch) - time.Duration(seen-1)); wait > 0 {
				if !sleep(wait) {
					return
				}
				continue
			}
			o.mu.Lock()
			moved := o.pipe.Rebalance(rebalanceBudget)
			o.mu.Unlock()
			if moved < rebalanceBudget {
				break
			}
			if !sleep(d) {
				return
			}
		}
	}
}

// prefault makes the memory of the next burst's rules after every burst
// (rules.Pipeline.Prefault), until ctx is done. It runs beside the
// writers, without the lock: while the switch waits for the next batch,
// or on another processor while it applies one, the page faults of
// memory the process touches first land here rather than in the middle
// of a burst.
func (o *Owner) prefault(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.refill:
			o.pipe.Prefault()
		}
	}
}
