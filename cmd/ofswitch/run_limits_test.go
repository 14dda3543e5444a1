package main

import (
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/ofswitch/ofswitch/controller"
)

// TestLimitFlags: each limit flag sets its controller.Config field, and
// without the flags the fields hold the defaults controller.Config
// documents.
func TestLimitFlags(t *testing.T) {
	var ch controller.Config
	cmd := &cobra.Command{}
	limitFlags(cmd, &ch)
	want := controller.Config{BundleIdleTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second, HandshakeTimeout: 10 * time.Second,
		AsyncLimit: 32 << 20, AsyncLimitTotal: 64 << 20, BundleMaxBytes: 32 << 20, ReplyLimitTotal: 32 << 20}
	if ch.BundleIdleTimeout != want.BundleIdleTimeout || ch.BundleMaxBytes != want.BundleMaxBytes || ch.ReplyLimitTotal != want.ReplyLimitTotal || ch.WriteTimeout != want.WriteTimeout || ch.HandshakeTimeout != want.HandshakeTimeout ||
		ch.AsyncLimit != want.AsyncLimit || ch.AsyncLimitTotal != want.AsyncLimitTotal {
		t.Errorf("defaults %+v, want %+v", ch, want)
	}
	if err := cmd.Flags().Parse([]string{"--bundle-idle-timeout", "1s", "--write-timeout", "2s", "--handshake-timeout", "3s",
		"--async-limit", "4096", "--async-limit-total", "8192", "--bundle-max-bytes", "16384", "--reply-limit-total", "32768"}); err != nil {
		t.Fatal(err)
	}
	if ch.BundleIdleTimeout != time.Second || ch.WriteTimeout != 2*time.Second || ch.HandshakeTimeout != 3*time.Second ||
		ch.AsyncLimit != 4096 || ch.AsyncLimitTotal != 8192 || ch.BundleMaxBytes != 16384 || ch.ReplyLimitTotal != 32768 {
		t.Errorf("after the flags: %+v", ch)
	}
}
