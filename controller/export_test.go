package controller

import "github.com/ofswitch/ofswitch/rules"

// Hooks for the external tests (package controller_test), which push flows
// into an agent with controller/push: controller does not import the push
// client, and its tests may do so only from outside the package.

var (
	DeleteAll  = deleteAll
	Quiet      = quiet
	StartAgent = startAgent
	StartOVS   = startOVS
)

// Settle does one budget of the idle work that Run's maintenance does
// between bursts (Serve runs none) and reports whether table 0 is left
// with no removed rule to unlink.
func (a *Agent) Settle() bool {
	var st rules.TableStats
	a.tables.Read(func(p *rules.Pipeline) {
		p.Rebalance(4096)
		st = p.Table(0).Stats()
	})
	return st.Rules == st.Flows
}
