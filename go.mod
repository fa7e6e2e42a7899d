module github.com/ecsinspect/ecsinspect

go 1.26

require (
	github.com/vmihailenco/msgpack/v5 v5.4.1 // indirect
	github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)
