package controller

import (
	"encoding/binary"
	"time"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/tables"
)

// Bundles (OpenFlow 1.4.1 §7.3.9), in both forms ovs-ofctl --bundle sends:
// OFPT_BUNDLE_CONTROL and OFPT_BUNDLE_ADD_MESSAGE on OpenFlow 1.4, and the
// ONF EXT-230 experimenter messages on OpenFlow 1.3. A bundle collects
// FLOW_MODs, GROUP_MODs and METER_MODs, each decoded and translated when
// it is added (a failure is answered then, with the message's xid, and
// fails the bundle); any other message is OFPBFC_MSG_UNSUP. COMMIT applies
// them in order, whole or not at all (tables.Owner.ApplyBundle): a flow
// may use a group or meter an earlier message adds. A message that fails
// at COMMIT (a group that exists, a group loop, a flow naming a group the
// bundle deleted, ...) is answered with its own error and xid, then the
// COMMIT with OFPBFC_MSG_FAILED, and nothing changed: what Open vSwitch
// 3.1 answers, checked by running it. A bundle that sees no message for
// Config.BundleIdleTimeout (10 s, Open vSwitch's) is discarded with
// OFPBFC_TIMEOUT, and the open bundles of a connection hold at most
// Config.BundleMaxMsgs messages (OFPBFC_MSG_TOO_MANY, which fails the
// bundle), so that a client cannot grow the switch without bound. Open vSwitch refuses METER_MODs in
// bundles (OFPBFC_MSG_UNSUP); ofswitch takes them, so that a meter and
// the flows that use it go in together.

// Bundle failure codes (OpenFlow 1.4.1 §7.4.4, enum ofp_bundle_failed_code).
const (
	bundleBadID         = uint16(openflow.BundleFailedBadID)
	bundleExist         = uint16(openflow.BundleFailedBundleExist)
	bundleClosed        = uint16(openflow.BundleFailedBundleClosed)
	bundleBadType       = uint16(openflow.BundleFailedBadType)
	bundleBadFlags      = uint16(openflow.BundleFailedBadFlags)
	bundleMsgBadXID     = uint16(openflow.BundleFailedMsgBadXID)
	bundleMsgUnsup      = uint16(openflow.BundleFailedMsgUnsup)
	bundleMsgFailed     = uint16(openflow.BundleFailedMsgFailed)
	bundleOutOfBundles  = uint16(openflow.BundleFailedOutOfBundles)
	bundleMsgTooMany    = uint16(openflow.BundleFailedMsgTooMany)
	bundleTimeout       = uint16(openflow.BundleFailedTimeout)
	maxBundles          = 16
	onfBundleErrorsBase = 2300
)

// bundleErr is the bundle failure code as the connection's version states
// it: OFPET_BUNDLE_FAILED on 1.4, and on 1.3 the ONF experimenter error
// whose exp_type is 2300 plus the code, as Open vSwitch encodes it.
func (c *conn) bundleErr(code uint16) error {
	if c.version >= openflow.Version14 {
		return openflow.ErrorMsg{Type: openflow.ErrTypeBundleFailed, Code: code}
	}
	return openflow.ErrorMsg{Type: openflow.ErrTypeExperimenter, Code: onfBundleErrorsBase + code, Experimenter: openflow.ONFExperimenter}
}

type bundle struct {
	flags  uint16
	closed bool
	failed bool // a message was refused when added: the commit fails whole
	// flows holds the FLOW_MODs, checked and translated when added but
	// kept as they came, back to back: a bundle holds its messages' wire
	// size (about 110 bytes for a 5-tuple flow), not their translation
	// (about 600), and the commit translates them again.
	flows    []byte
	nflows   int
	mods     []tables.BundleMod // the GROUP_MODs and METER_MODs, in place
	modMsgs  [][]byte           // mods[i]'s message, for its error
	start    time.Time          // opened
	startLks uint64             // the data plane's lookup count then
	used     time.Time          // its last message, for BundleIdleTimeout
	// opener is the start of the message that opened it (at most 64
	// bytes, as an error carries), for the error that expires it.
	opener []byte
}

// newBundle opens a bundle with msg, the request that opens it.
func (c *conn) newBundle(flags uint16, msg []byte) *bundle {
	now := c.readAt
	if now.IsZero() {
		now = time.Now()
	}
	return &bundle{flags: flags, start: time.Now(), startLks: c.a.tables.Lookups(), used: now,
		opener: append([]byte(nil), msg[:min(len(msg), 64)]...)}
}

// size is how many messages b holds.
func (b *bundle) size() int { return b.nflows + len(b.mods) }

// bytes is the size of b's messages, as counted against
// Config.BundleMaxBytes.
func (b *bundle) bytes() int {
	n := len(b.flows)
	for _, m := range b.modMsgs {
		n += len(m)
	}
	return n
}

// drop forgets bundle id of c.
func (c *conn) drop(id uint32, b *bundle) {
	delete(c.bundles, id)
	c.bundleMsgs -= b.size()
	c.a.bundleBytes.Add(-int64(b.bytes()))
}

// dropBundles forgets every open bundle of c, whose connection ends.
func (c *conn) dropBundles() {
	for id, b := range c.bundles {
		c.drop(id, b)
	}
}

// reserve counts n more bytes of bundled messages against
// Config.BundleMaxBytes, and reports whether they fit.
func (c *conn) reserve(n int) bool {
	if c.a.bundleBytes.Add(int64(n)) > int64(c.a.cfg.BundleMaxBytes) {
		c.a.bundleBytes.Add(-int64(n))
		return false
	}
	return true
}

// translate returns the updates of b's FLOW_MODs, in order.
func (c *conn) translate(b *bundle) ([]rules.Update, error) {
	ups := make([]rules.Update, b.nflows)
	for i, rest := 0, b.flows; i < len(ups); i++ {
		n := int(binary.BigEndian.Uint16(rest[2:]))
		if err := c.fm.UnmarshalBinary(rest[:n]); err != nil {
			return nil, err
		}
		if err := ofrules.FlowMod(&ups[i], &c.fm, &c.a.ofopt); err != nil {
			return nil, err
		}
		rest = rest[n:]
	}
	return ups, nil
}

// expireBundles discards the bundles that have seen no message for
// Config.BundleIdleTimeout, answering each with OFPBFC_TIMEOUT (and the
// start of the message that opened it), as Open vSwitch does.
func (c *conn) expireBundles(now time.Time) error {
	for id, b := range c.bundles {
		if now.Sub(b.used) < c.a.cfg.BundleIdleTimeout {
			continue
		}
		c.drop(id, b)
		c.a.cfg.Logger.Info("bundle discarded: idle", "peer", c.nc.RemoteAddr().String(), "bundle", id,
			"messages", b.size(), "idle", now.Sub(b.used).Round(time.Millisecond))
		if err := c.sendError(b.opener, c.bundleErr(bundleTimeout)); err != nil {
			return err
		}
	}
	return nil
}

// onExperimenterBundle handles the ONF bundle experimenter messages and
// reports whether msg was one.
func (c *conn) onExperimenterBundle(msg []byte) (bool, error) {
	if len(msg) < 16 {
		return false, nil
	}
	exp, typ := binary.BigEndian.Uint32(msg[8:]), binary.BigEndian.Uint32(msg[12:])
	if exp != openflow.ONFExperimenter {
		return false, nil
	}
	switch typ {
	case openflow.ONFTypeBundleControl:
		return true, c.onBundleControl(msg)
	case openflow.ONFTypeBundleAddMessage:
		return true, c.onBundleAdd(msg)
	}
	return false, nil
}

func (c *conn) onBundleControl(msg []byte) error {
	var m openflow.BundleControl
	if err := m.UnmarshalBinary(msg); err != nil {
		return err
	}
	if m.Flags&^(openflow.BundleAtomic|openflow.BundleOrdered) != 0 {
		return c.bundleErr(bundleBadFlags)
	}
	if c.bundles == nil {
		c.bundles = map[uint32]*bundle{}
	}
	b := c.bundles[m.BundleID]
	var replyType uint16
	switch m.Type {
	case openflow.BundleOpenRequest:
		if b != nil {
			return c.bundleErr(bundleExist)
		}
		if len(c.bundles) >= maxBundles {
			return c.bundleErr(bundleOutOfBundles)
		}
		c.bundles[m.BundleID] = c.newBundle(m.Flags, msg)
		replyType = openflow.BundleOpenReply
	case openflow.BundleCloseRequest:
		if b == nil {
			return c.bundleErr(bundleBadID)
		}
		if b.closed {
			return c.bundleErr(bundleClosed)
		}
		b.closed = true
		b.used = c.readAt
		replyType = openflow.BundleCloseReply
	case openflow.BundleCommitRequest:
		if b == nil {
			return c.bundleErr(bundleBadID)
		}
		c.drop(m.BundleID, b)
		if b.failed {
			return c.bundleErr(bundleMsgFailed)
		}
		ups, err := c.translate(b)
		if err != nil { // cannot be: each was translated when added
			c.a.cfg.Logger.Error("bundle commit: a message no longer translates", "bundle", m.BundleID, "err", err)
			return c.bundleErr(bundleMsgFailed)
		}
		res := &c.res
		if e := c.a.tables.ApplyBundle(res, ups, b.mods, b.start, b.startLks); e != nil {
			// As Open vSwitch: the message's own error, then the
			// commit's.
			msg := b.msgOf(e)
			if err := c.sendError(msg, ofrules.WireError(e.Err)); err != nil {
				return out(err)
			}
			return c.bundleErr(bundleMsgFailed)
		}
		c.a.flowsRemoved(res.Removed)
		xid := xidOf(msg)
		c.a.flowsChanged(c, func(int) uint32 { return xid }, res.Version, res.Changes)
		replyType = openflow.BundleCommitReply
	case openflow.BundleDiscardRequest:
		if b == nil {
			return c.bundleErr(bundleBadID)
		}
		c.drop(m.BundleID, b)
		replyType = openflow.BundleDiscardReply
	default:
		return c.bundleErr(bundleBadType)
	}
	rep := openflow.BundleControl{Header: m.Header, BundleID: m.BundleID, Type: replyType, Flags: m.Flags}
	return out(c.send(&rep))
}

func (c *conn) onBundleAdd(msg []byte) error {
	var m openflow.BundleAddMessage
	if err := m.UnmarshalBinary(msg); err != nil {
		return err
	}
	inner := m.Message
	if len(inner) < openflow.HeaderLen {
		return c.bundleErr(bundleMsgUnsup)
	}
	switch openflow.Type(inner[1]) {
	case openflow.TypeFlowMod, openflow.TypeGroupMod, openflow.TypeMeterMod:
	default:
		return c.bundleErr(bundleMsgUnsup)
	}
	if xidOf(inner) != m.XID {
		return c.bundleErr(bundleMsgBadXID)
	}
	if c.bundles == nil {
		c.bundles = map[uint32]*bundle{}
	}
	b := c.bundles[m.BundleID]
	if b == nil { // implicit open (OpenFlow 1.4.1 §7.3.9.6)
		if len(c.bundles) >= maxBundles {
			return c.bundleErr(bundleOutOfBundles)
		}
		b = c.newBundle(m.Flags, msg)
		c.bundles[m.BundleID] = b
	}
	if b.closed {
		return c.bundleErr(bundleClosed)
	}
	b.used = c.readAt
	if c.bundleMsgs >= c.a.cfg.BundleMaxMsgs || !c.reserve(len(inner)) {
		b.failed = true
		return c.bundleErr(bundleMsgTooMany)
	}
	if openflow.Type(inner[1]) != openflow.TypeFlowMod {
		err := c.addBundleMod(b, inner)
		if err != nil {
			b.failed = true
			c.a.bundleBytes.Add(-int64(len(inner)))
		}
		return err
	}
	err := c.fm.UnmarshalBinary(inner)
	if err == nil {
		c.bundleUp = rules.Update{}
		err = ofrules.FlowMod(&c.bundleUp, &c.fm, &c.a.ofopt)
	}
	if err != nil {
		b.failed = true
		c.a.bundleBytes.Add(-int64(len(inner)))
		return err
	}
	b.flows = append(b.flows, inner...)
	b.nflows++
	c.bundleMsgs++
	return nil
}

// addBundleMod decodes and translates a GROUP_MOD or METER_MOD added to
// b, and places it after b's FLOW_MODs so far. A METER_MOD's bands are
// checked here too (meters.Table.Check: they depend on no meter).
func (c *conn) addBundleMod(b *bundle, inner []byte) error {
	bm := tables.BundleMod{At: b.nflows}
	if openflow.Type(inner[1]) == openflow.TypeGroupMod {
		var gm openflow.GroupMod
		if err := gm.UnmarshalBinary(inner); err != nil {
			return err
		}
		bm.Group = new(groups.Mod)
		if err := ofrules.GroupModTLV(bm.Group, &gm, c.a.tlv.Load()); err != nil {
			return err
		}
	} else {
		var mm openflow.MeterMod
		if err := mm.UnmarshalBinary(inner); err != nil {
			return err
		}
		mod := ofrules.MeterMod(&mm)
		if mt := c.a.tables.Meters(); mt != nil && mod.Command != meters.Delete {
			if err := mt.Check(&mod.Config); err != nil {
				return ofrules.WireError(err)
			}
		}
		bm.Meter = &mod
	}
	b.mods = append(b.mods, bm)
	b.modMsgs = append(b.modMsgs, append([]byte(nil), inner...))
	c.bundleMsgs++
	return nil
}

// msgOf returns the message of b that e names: a GROUP_MOD's or
// METER_MOD's whole, a FLOW_MOD's header.
func (b *bundle) msgOf(e *tables.BundleError) []byte {
	if e.Flow >= 0 {
		rest := b.flows
		for range e.Flow {
			rest = rest[binary.BigEndian.Uint16(rest[2:]):]
		}
		return rest[:openflow.HeaderLen]
	}
	return b.modMsgs[e.Mod]
}
