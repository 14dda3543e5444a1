package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/ofswitch/ofswitch/controller"
)

// limitFlags adds the flags of the limits that keep one client from
// exhausting the switch (docs/robustness.md) to cmd, setting ch. Their
// defaults are controller.Config's; tests lower them to see each limit act
// within seconds.
func limitFlags(cmd *cobra.Command, ch *controller.Config) {
	f := cmd.Flags()
	f.DurationVar(&ch.BundleIdleTimeout, "bundle-idle-timeout", 10*time.Second, "a bundle without a message for this long is discarded (OFPBFC_TIMEOUT)")
	f.IntVar(&ch.BundleMaxBytes, "bundle-max-bytes", 32<<20, "bytes of messages the open bundles of all connections may hold together; one more is refused (OFPBFC_MSG_TOO_MANY)")
	f.DurationVar(&ch.WriteTimeout, "write-timeout", 10*time.Second, "a controller that takes nothing of a write for this long is disconnected")
	f.IntVar(&ch.ReplyLimitTotal, "reply-limit-total", 32<<20, "bytes of replies (flow dumps ...) being written to all controllers together; past it the one whose reader is stalled longest is disconnected")
	f.DurationVar(&ch.HandshakeTimeout, "handshake-timeout", 10*time.Second, "a pssl: connection without a complete TLS handshake after this long is closed")
	f.IntVar(&ch.AsyncLimit, "async-limit", 32<<20, "bytes of asynchronous messages a controller may leave unread before it is disconnected")
	f.IntVar(&ch.AsyncLimitTotal, "async-limit-total", 64<<20, "bytes of asynchronous messages all controllers together may leave unread; past it the largest backlog is disconnected")
}
