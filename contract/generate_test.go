package contract

import (
	"testing"

	"github.com/automium/automium/internal/testsupport"
)

func TestGenerated(t *testing.T) {
	testsupport.Generated(t, generatedFiles)
}
