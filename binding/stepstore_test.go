package binding_test

import (
	"testing"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/steptest"
)

// TestMemoryStepStoreContract holds the in-memory store to the StepStore
// contract, its compare-and-swap included.
func TestMemoryStepStoreContract(t *testing.T) {
	steptest.Contract(t, func(*testing.T) binding.StepStore { return binding.NewMemoryStepStore() })
}
