// Package soak holds the switch's churn soak: a test, without code of its
// own, that runs the switch as `ofswitch run` assembles it (package
// bridge) on a loopback listener while two OpenFlow clients add, modify
// and delete flows at a constant flow count, and asserts that the live
// heap stays flat and that the tables end with exactly the flows the
// clients installed.
//
// # Forms
//
// go test runs it for 2 minutes (the bounded form CI runs); -soak sets
// another length, e.g. the long form, 10 minutes at 48K flows:
//
//	go test ./internal/soak -run TestChurnSoak -soak=10m -timeout=20m -v
//
// -soak.rate sets each client's FLOW_MODs per second (default 2000);
// -soak.heapprofile=FILE writes heap profiles after the warm-up
// (FILE.warm) and at the end (FILE), for go tool pprof -base FILE.warm
// FILE: what the churn added. Under the race detector the test runs for
// 10 seconds and checks the flows only: a heap's size means nothing
// there.
package soak
