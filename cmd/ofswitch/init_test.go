package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// initBudget is what the package initialisation of a package every command
// links may allocate, in bytes. The work these packages used to do at init
// (dataplane's CRC32c table, ofctl's regexps, bridge's metric descriptors)
// is done at first use instead; a budget this small fails when it comes back.
var initBudget = map[string]int{
	"github.com/ofswitch/ofswitch/dataplane":   1 << 10,  // was 9248 B: crc32.MakeTable(Castagnoli)
	"github.com/ofswitch/ofswitch/bridge":      1 << 10,  // was 5184 B: 27 prometheus.Desc
	"github.com/ofswitch/ofswitch/rules/ofctl": 12 << 10, // was 25408 B: 3 regexps; its maps stay
}

// TestInitAllocs runs `ofswitch push --help` with GODEBUG=inittrace=1 and
// checks the bytes the packages of initBudget allocate at init. Every
// command pays them at start-up; bytes, not time, so that the check holds
// on a loaded machine.
func TestInitAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts under -race are not the binary's")
	}
	cmd := exec.Command(ofswitchBinary(t), "push", "--help")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("push --help: %v\n%s", err, stderr.Bytes())
	}
	// A line: init PKG @T ms, C ms clock, B bytes, A allocs. A package
	// whose initialisation does nothing has no line.
	got := map[string]int{}
	sc := bufio.NewScanner(&stderr)
	lines := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		lines++
		b, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		got[f[1]] = b
	}
	if lines == 0 {
		t.Fatalf("no inittrace lines in the output:\n%s", stderr.Bytes())
	}
	for pkg, budget := range initBudget {
		if got[pkg] > budget {
			t.Errorf("%s allocates %d bytes at init, more than %d: make the work lazy (sync.OnceValue) or do it where it is used", pkg, got[pkg], budget)
		}
	}
}
