module github.com/ofswitch/ofswitch/bench

go 1.26.0

replace github.com/ofswitch/ofswitch => ../

require (
	github.com/ofswitch/ofswitch v0.0.0-00010101000000-000000000000
	github.com/seiflotfy/cuckoofilter v0.0.0-20240715131351-a2f2c23f1771
)

require github.com/dgryski/go-metro v0.0.0-20200812162917-85c65e2d0165 // indirect
