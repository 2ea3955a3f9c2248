package contract_test

import (
	"context"
	"testing"

	"github.com/automium/automium/contract"
)

func BenchmarkGet(b *testing.B) {
	ctx := context.Background()
	for _, name := range contract.Names() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := contract.Get(ctx, contract.GetInput{Name: name}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
