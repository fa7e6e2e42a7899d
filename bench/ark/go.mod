module github.com/ecsinspect/ecsinspect/bench/ark

go 1.26.0

require (
	github.com/ecsinspect/ecsinspect v0.0.0
	github.com/mlange-42/ark v0.8.0
)

require github.com/mlange-42/arche v0.15.3 // indirect

replace github.com/ecsinspect/ecsinspect => ../..
