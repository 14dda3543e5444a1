package controller

import (
	"encoding/binary"
	"time"

	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// Bundles (OpenFlow 1.4.1 §7.3.9), in both forms ovs-ofctl --bundle sends:
// OFPT_BUNDLE_CONTROL and OFPT_BUNDLE_ADD_MESSAGE on OpenFlow 1.4, and the
// ONF EXT-230 experimenter messages on OpenFlow 1.3. A bundle collects
// FLOW_MODs, each checked when it is added; COMMIT applies them as one burst
// that becomes visible to lookups at once.

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
	flags    uint16
	closed   bool
	failed   bool // a message was refused when added: the commit fails whole
	ups      []rules.Update
	start    time.Time // opened
	startLks uint64    // the data plane's lookup count then
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
		c.bundles[m.BundleID] = &bundle{flags: m.Flags, start: time.Now(), startLks: c.a.tables.Lookups()}
		replyType = openflow.BundleOpenReply
	case openflow.BundleCloseRequest:
		if b == nil {
			return c.bundleErr(bundleBadID)
		}
		if b.closed {
			return c.bundleErr(bundleClosed)
		}
		b.closed = true
		replyType = openflow.BundleCloseReply
	case openflow.BundleCommitRequest:
		if b == nil {
			return c.bundleErr(bundleBadID)
		}
		delete(c.bundles, m.BundleID)
		if b.failed {
			return c.bundleErr(bundleMsgFailed)
		}
		res := &c.res
		failed := c.a.tables.Apply(res, b.ups, true, b.start, b.startLks)
		c.a.flowsRemoved(res.Removed)
		if failed > 0 {
			// Checked as they were added, updates fail here only on
			// the table's state (an overlap, a full table); the others
			// stay applied.
			return c.bundleErr(bundleMsgFailed)
		}
		replyType = openflow.BundleCommitReply
	case openflow.BundleDiscardRequest:
		if b == nil {
			return c.bundleErr(bundleBadID)
		}
		delete(c.bundles, m.BundleID)
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
	if len(inner) < openflow.HeaderLen || openflow.Type(inner[1]) != openflow.TypeFlowMod {
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
		b = &bundle{flags: m.Flags, start: time.Now(), startLks: c.a.tables.Lookups()}
		c.bundles[m.BundleID] = b
	}
	if b.closed {
		return c.bundleErr(bundleClosed)
	}
	if err := c.fm.UnmarshalBinary(inner); err != nil {
		b.failed = true
		return err
	}
	var u rules.Update
	if err := ofrules.FlowMod(&u, &c.fm, &c.a.ofopt); err != nil {
		b.failed = true
		return err
	}
	b.ups = append(b.ups, u)
	return nil
}
