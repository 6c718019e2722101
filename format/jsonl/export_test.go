package jsonl

// The parallel reader's configuration, for the tests.
type ParallelConfig = parallelConfig

// ReadJSONLWith is readJSONLWith, for the tests.
var ReadJSONLWith = readJSONLWith
