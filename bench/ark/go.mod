module github.com/ecsinspect/ecsinspect/bench/ark

go 1.26.0

require (
	github.com/ecsinspect/ecsinspect v0.0.0
	github.com/mlange-42/ark v0.8.0
)

replace github.com/ecsinspect/ecsinspect => ../..
