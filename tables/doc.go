// Package tables is the owner of a switch's flow tables: the one writer of
// a rules.Pipeline, which applies bursts of updates, records what each
// burst cost, removes the flows whose timeouts pass, and does the tables'
// idle work, while the data plane's lookups go on without a lock.
//
// # Bursts
//
// Owner.Apply applies a group of updates as one burst
// (rules.Pipeline.ApplyBurstTo): lookups never block on it and see the
// whole burst or none of it. For every burst it records a Burst: its
// latency from the first update read to publication, the time each update
// took and the filter iterations of each insertion (summarised as
// percentiles by rank, as HdrHistogram defines them, in time linear in the
// burst's size), the filters' Bloom part and occupancy after it, and the
// data plane's lookups per second before and during it
// (Config.Lookups). Config.OnBurst receives each Burst as it is recorded,
// with every update's cost; Owner.Bursts returns the most recent ones.
//
// # Background work
//
// Owner.Run does what the tables need between bursts:
//   - expiry: once a second, the flows whose idle or hard timeout passed
//     are removed, and their records go to the caller (who sends
//     FLOW_REMOVED);
//   - idle maintenance: once the tables have gone 2 ms without a burst,
//     removed rules leave the index and elements a burst put into a
//     Bloom-Cuckoo filter's Bloom part move back into cuckoo slots
//     (rules.Pipeline.Rebalance), a bounded budget at a time so that a
//     burst arriving meanwhile waits little; bursts do not wake it until
//     it has caught up;
//   - prefault: after a burst that took half of the rule memory made
//     ahead, the memory of the next burst's rules is made and touched
//     (rules.Pipeline.Prefault) off the update path, so that bursts do not
//     stop for the page faults of fresh memory.
//
// # Meters
//
// Owner.SetMeters gives the owner the switch's meters.Table, whose one
// writer it becomes: Owner.ApplyMeter applies a meter mod under the same
// lock as bursts, and a delete removes the flow entries that use the
// meter in one atomic burst (OpenFlow 1.3.5 §7.3.4.4; Open vSwitch does
// the same). A flow entry's meter instruction must name a meter the table
// has (rules.Pipeline.SetMeterCheck: OFPMMFC_INVALID_METER, Open vSwitch's
// code, otherwise, and always without a meter table). Owner.MeterStats
// counts each meter's flow entries by walking the tables under the lock,
// so that flow_count is exact whatever added or removed them (bursts,
// expiry, meter deletes) and the packet path keeps no count of its own.
//
// # Bundles
//
// Owner.ApplyBundle applies an OpenFlow bundle's flow updates, group mods
// and meter mods in order, whole or not at all. Every message is first
// checked, in order, against staged copies of the group table
// (groups.Table.Next) and the meter table (a stage over it), so that a
// flow may use a group or meter an earlier message adds, and a group or
// meter delete becomes, at its place, a DELETE of the flows that use it.
// The flow updates then run as one rules.Pipeline.ApplyAllTo burst, which
// a failing update undoes before anything is published; when the stage
// refused a message, the ones before it run and are undone all the same,
// so that the first message to fail, in order, is the one answered. Publication keeps
// readers consistent: the groups and meters the bundle adds or modifies
// (with the deleted groups kept) just before the burst, the burst, then
// the deletes. A bundle of flow updates only is one ApplyAllTo burst after
// Apply's group check, as cheap as Apply's atomic burst.
//
// # Concurrency
//
// One lock makes bursts, bundles, meter mods, expiry, idle maintenance and the
// walks of Owner.Read one at a time; the data plane's lookups (and its
// meters) never take it. Prefault runs without it.
package tables
