package ofctl

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/meters"
)

func TestParseMeter(t *testing.T) {
	drop := func(rate, burst uint32) meters.Band {
		return meters.Band{Type: meters.BandDrop, Rate: rate, BurstSize: burst}
	}
	for _, tt := range []struct {
		in    string
		bands bool
		want  meters.Config
		err   string // part of the error, "" for none
	}{
		{"meter=1,kbps,burst,stats,bands=type=drop,rate=1000,burst_size=100", true,
			meters.Config{ID: 1, Flags: 0b1101, Bands: []meters.Band{drop(1000, 100)}}, ""},
		{"meter=2,pktps,bands=type=drop,rate=10,type=dscp_remark,rate=5,prec_level=2", true,
			meters.Config{ID: 2, Flags: meters.FlagPKTPS, Bands: []meters.Band{drop(10, 0),
				{Type: meters.BandDSCPRemark, Rate: 5, PrecLevel: 2}}}, ""},
		{"meter=controller,pktps,bands=type=drop,rate=100", true,
			meters.Config{ID: meters.Controller, Flags: meters.FlagPKTPS, Bands: []meters.Band{drop(100, 0)}}, ""},
		{"meter=4294901760 kbps bands=type=drop rate=7", true, meters.Config{}, "expected meter id"},
		{"meter=5,kbps,pktps,bands=type=drop,rate=5", true,
			meters.Config{ID: 5, Flags: meters.FlagKBPS | meters.FlagPKTPS, Bands: []meters.Band{drop(5, 0)}}, ""},
		{"meter=0,kbps,bands=type=drop,rate=5", true, meters.Config{}, "invalid value for meter"},
		{"meter=4294901761,kbps,bands=type=drop,rate=5", true, meters.Config{}, "invalid value for meter"},
		{"meter=5,bands=type=drop,rate=5", true, meters.Config{}, "either 'kbps' or 'pktps'"},
		{"meter=5,kbps", true, meters.Config{}, "must specify bands"},
		{"meter=5,kbps,bands=type=drop", true, meters.Config{}, "must have 'rate'"},
		{"meter=5,kbps,bands=type=drop,rate=0", true, meters.Config{}, "must have 'rate'"},
		{"meter=5,kbps,burst,bands=type=drop,rate=5", true, meters.Config{}, "when 'burst' flag is set"},
		{"meter=5,kbps,bands=type=drop,rate=5,burst_size=7", true, meters.Config{}, "only when 'burst' flag is set"},
		{"meter=5,kbps,bands=type=meter,rate=5", true, meters.Config{}, "unknown band type"},
		{"meter=5,kbps,bands=rate=5", true, meters.Config{}, "before type="},
		{"kbps,bands=type=drop,rate=5", true, meters.Config{}, "meter id"},
		{"", false, meters.Config{ID: meters.All}, ""},
		{"meter=7", false, meters.Config{ID: 7}, ""},
		{"meter=all", false, meters.Config{ID: meters.All}, ""},
		{"meter=7,kbps", false, meters.Config{}, "unknown meter field"},
	} {
		got, err := ParseMeter(tt.in, tt.bands)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrSyntax) {
				t.Errorf("ParseMeter(%q) = %v, want an error with %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseMeter(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseMeter(%q) (-want +got):\n%s", tt.in, diff)
		}
		if tt.bands {
			if back, err := ParseMeter(FormatMeterMod(&got), true); err != nil || !cmp.Equal(back, got) {
				t.Errorf("FormatMeterMod %q does not parse back: %v %+v", FormatMeterMod(&got), err, back)
			}
		}
	}
}

// TestFormatMeterGolden holds the printers to what ovs-ofctl 3.1 printed
// for Open vSwitch's replies.
func TestFormatMeterGolden(t *testing.T) {
	c := meters.Config{ID: 1, Flags: 0b1101, Bands: []meters.Band{{Type: meters.BandDrop, Rate: 1000, BurstSize: 100}}}
	if got, want := FormatMeter(&c), "meter=1 kbps burst stats bands=\ntype=drop rate=1000 burst_size=100\n"; got != want {
		t.Errorf("FormatMeter = %q, want %q", got, want)
	}
	c = meters.Config{ID: 3, Flags: 0b1001, Bands: []meters.Band{{Type: meters.BandDSCPRemark, Rate: 100, PrecLevel: 1}}}
	if got, want := FormatMeter(&c), "meter=3 kbps stats bands=\ntype=dscp_remark rate=100 prec_level=1\n"; got != want {
		t.Errorf("FormatMeter = %q, want %q", got, want)
	}
	s := meters.Stats{ID: 5, FlowCount: 1, Duration: 8808 * time.Millisecond, Bands: []meters.BandStats{{}, {Packets: 3, Bytes: 300}}}
	if got, want := FormatMeterStats(&s), "meter:5 flow_count:1 packet_in_count:0 byte_in_count:0 duration:8.808s bands:\n"+
		"0: packet_count:0 byte_count:0\n1: packet_count:3 byte_count:300\n"; got != want {
		t.Errorf("FormatMeterStats = %q, want %q", got, want)
	}
	s = meters.Stats{ID: meters.Controller, Duration: 2 * time.Second}
	if got, want := FormatMeterStats(&s), "meter:controller flow_count:0 packet_in_count:0 byte_in_count:0 duration:2s bands:\n"; got != want {
		t.Errorf("FormatMeterStats = %q, want %q", got, want)
	}
	f := meters.Features{MaxMeter: 262144, BandTypes: 1 << meters.BandDrop, Capabilities: 0xf, MaxBands: 8}
	if got, want := FormatMeterFeatures(&f), "max_meter:262144 max_bands:8 max_color:0\nband_types: drop\ncapabilities: kbps pktps burst stats\n"; got != want {
		t.Errorf("FormatMeterFeatures = %q, want %q", got, want)
	}
}

// TestMeterSyntaxMatchesOVS gives Open vSwitch meters with ovs-ofctl
// add-meter and checks that ParseMeter and FormatMeter, through a meter
// table, print each as ovs-ofctl dump-meters prints Open vSwitch's.
func TestMeterSyntaxMatchesOVS(t *testing.T) {
	ovstest.Tool(t, "ovs-ofctl")
	ovs := ovstest.Start(t)
	tbl := meters.NewTable(nil)
	var want []string
	for _, s := range []string{
		"meter=1,kbps,burst,stats,bands=type=drop,rate=1000,burst_size=100",
		"meter=2,pktps,bands=type=drop,rate=10",
		"meter=5,kbps,bands=type=drop,rate=5,type=drop,rate=6",
		"meter=4294901760,pktps,stats,bands=type=drop,rate=7",
		"meter=controller,pktps,burst,bands=type=drop,rate=70,burst_size=7",
		"meter=slowpath,kbps,bands=type=drop,rate=2",
		"meter=9,pktps,burst,stats,bands=type=drop,rate=5,burst_size=3,type=drop,rate=9,burst_size=1",
	} {
		if out, err := ovs.Ofctl("", "add-meter", s); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		c, err := ParseMeter(s, true)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tbl.Apply(&meters.Mod{Command: meters.Add, Config: c}); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range tbl.Meters() {
		c := m.Config()
		want = append(want, strings.TrimSuffix(FormatMeter(&c), "\n"))
	}
	out, err := ovs.Ofctl("", "dump-meters")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(out, "\n")
	got := strings.Split(strings.TrimSpace(body), "\n\n")
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("dump-meters (-Open vSwitch +ofctl):\n%s", diff)
	}
}

func FuzzParseMeter(f *testing.F) {
	for _, s := range []string{
		"meter=1,kbps,burst,stats,bands=type=drop,rate=1000,burst_size=100",
		"meter=2,pktps,bands=type=drop,rate=10,type=dscp_remark,rate=5,prec_level=2",
		"meter=controller,pktps,bands=type=drop,rate=100", "meter=all", "",
	} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, bands bool) {
		c, err := ParseMeter(s, bands)
		if err != nil || !bands {
			return
		}
		out := FormatMeterMod(&c)
		back, err := ParseMeter(out, true)
		if err != nil || !cmp.Equal(c, back) {
			t.Fatalf("%q parsed to %+v, printed as %q, parsed back to %+v, %v", s, c, out, back, err)
		}
	})
}

func TestLintMeters(t *testing.T) {
	rep, err := Lint("m.flows", []byte("in_port=1,actions=meter:3,output:2\nin_port=2,actions=meter:0,output:1\n"), nil, nil)
	if err != nil || rep.OK != 1 || len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0].Error(), "m.flows:2:") {
		t.Errorf("Lint: %+v %v", rep, err)
	}
}
