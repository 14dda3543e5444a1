package paper

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/internal/figure"
)

func smallConfig() Config {
	if raceEnabled {
		return Config{Buckets: 4096, Trials: 2, Queries: 1 << 12, Replacements: 512, MaxIterations: 300, Seed: 5}
	}
	return Config{Buckets: 8192, Trials: 2, Queries: 1 << 14, Replacements: 4096, Seed: 5}
}

func TestRun(t *testing.T) {
	res, err := Run(context.Background(), smallConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != len(Cases()) || len(res.Rows) != 4*(len(PlainOccupancies)+len(Bursts))+len(Ts) {
		t.Fatalf("%d rows for %d cases", len(res.Rows), len(Cases()))
	}
	var plain Row
	bloom1 := map[int]float64{} // t -> Bloom-part FPR share, one bit, burst 1024
	for _, r := range res.Rows {
		if r.Experiment == 2 && r.Burst == 1024 && r.T >= 0 {
			bloom1[r.T] = r.FPR - plain.FPR
		}
		if r.Experiment == 3 && r.FPR-plain.FPR >= bloom1[r.T] && bloom1[r.T] > 0.0005 {
			t.Errorf("t=%d: two Bloom bits add FPR %.4g over cuckoo, one bit adds %.4g", r.T, r.FPR-plain.FPR, bloom1[r.T])
		}
		if r.Trials != 2 || r.MaxIterations < 1 || r.MeanIterations < 1 || r.MeanIterations > float64(r.MaxIterations) {
			t.Errorf("%+v: implausible iteration figures", r.Case)
		}
		if expect := r.FPRTheory * float64(res.Config.Queries*r.Trials); expect >= 50 && (r.FPR > 2*r.FPRTheory || r.FPR < r.FPRTheory/2) {
			t.Errorf("%+v: FPR %.4g far from theory %.4g", r.Case, r.FPR, r.FPRTheory)
		}
		if n := len(r.IterationCDF); n != r.MaxIterations || r.IterationCDF[n-1] != 1 {
			t.Errorf("%+v: iteration CDF of %d points ending at %v", r.Case, n, r.IterationCDF[n-1])
		}
		if r.T < 0 {
			plain = r
			if r.BloomElements != 0 {
				t.Errorf("plain cuckoo row has %.1f Bloom elements", r.BloomElements)
			}
			continue
		}
		if r.BloomElements == 0 {
			t.Errorf("%+v: Bloom-Cuckoo burst left the Bloom part empty", r.Case)
		}
		// The point of the filter: with t kicks allowed before the Bloom
		// part, no insertion needs many more than t+1 iterations, while
		// plain cuckoo at the same bits per element walks far longer.
		if r.T == 0 && r.MeanIterations >= plain.MeanIterations {
			t.Errorf("%+v: mean iterations %.3f not below plain cuckoo's %.3f", r.Case, r.MeanIterations, plain.MeanIterations)
		}
		if r.Experiment == 1 && r.MaxIterations > 3*(r.T+1)+10 {
			t.Errorf("%+v: max iterations %d for t=%d", r.Case, r.MaxIterations, r.T)
		}
	}

	var text bytes.Buffer
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(text.String(), "bloom-cuckoo"), len(Cases())-len(PlainOccupancies)-len(Bursts); got != want {
		t.Errorf("text report has %d bloom-cuckoo rows, want %d:\n%s", got, want, text.String())
	}
	if _, err := json.Marshal(res); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	files, err := res.Plot(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 12 {
		t.Fatalf("wrote %d files, want an SVG and a PNG of each of figures 3 to 8", len(files))
	}
	for i, f := range files {
		if want := []string{".svg", ".png"}[i%2]; filepath.Ext(f) != want || !strings.HasPrefix(filepath.Base(f), fmt.Sprintf("fig%d-", 3+i/2)) {
			t.Errorf("file %d is %s, want figure %d's %s", i, filepath.Base(f), 3+i/2, want)
		}
		if filepath.Ext(f) == ".svg" {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > 300<<10 || !bytes.Contains(b, []byte("<svg")) || !bytes.Contains(b, []byte("bloom-cuckoo t=10")) ||
				!bytes.Contains(b, []byte("cuckoo")) {
				t.Errorf("%s: %d bytes, want an SVG under 300 KB with the cuckoo and t=10 series", filepath.Base(f), len(b))
			}
			continue
		}
		st, err := figure.InspectPNG(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Width != 780 || st.Height != 432 || st.Ink < 0.03 || st.Ink > 0.5 || st.Colors < 8 {
			t.Errorf("%s: %+v, want 780x432 pixels with some ink in several colours", filepath.Base(f), st)
		}
	}
}

func TestRunDeterministic(t *testing.T) {
	c := smallConfig()
	c.Trials, c.Workers = 2, 2
	a, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	c.Workers = 1
	b, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Fatal("same seed, different results with 2 workers and with 1")
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, smallConfig()); err == nil {
		t.Fatal("Run with a cancelled context returned no error")
	}
}
