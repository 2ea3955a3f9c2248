//go:build !benchvalidator

package main

import "github.com/automium/automium/tools/automium-bench/internal/benchload"

// checkLoad accepts every bench_load: the plain go-sdk peer links nothing of
// the validator. validator.go is the benchvalidator build's.
func checkLoad(benchload.Load) error { return nil }
