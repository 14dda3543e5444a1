package ofctl

import (
	"strings"
	"testing"
)

// TestHasVerb: the scan that sends files of adds alone to ParseFlows finds
// a command word exactly where the verb expression does, line by line and
// in whole files.
func TestHasVerb(t *testing.T) {
	lines := []string{"", "add", "add ", "add\tpriority=1,actions=drop", "  delete", "\tdelete_strict ip", "modify_strict ip,actions=drop",
		"modify ip,actions=drop", "addx", "add,priority=1", "adds ip", "actions=drop", "dl_src=00:00:00:00:00:01,actions=drop",
		"delete_", "modify_strictly", "# add", "ip,actions=drop add", "\r\ndelete", "ADD ip", " \v\fmodify ip"}
	for _, l := range lines {
		if got, want := hasVerb([]byte(l)), verb().MatchString(l); got != want {
			t.Errorf("hasVerb(%q) = %v, the verb expression says %v", l, got, want)
		}
	}
	for _, l := range lines {
		file := "ip,actions=drop\n" + l + "\npriority=3,actions=drop\n"
		want := false
		for _, fl := range strings.Split(file, "\n") {
			want = want || verb().MatchString(fl)
		}
		if got := hasVerb([]byte(file)); got != want {
			t.Errorf("hasVerb of a file with line %q = %v, want %v", l, got, want)
		}
	}
}
