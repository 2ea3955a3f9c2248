package automium

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// digestOf hashes the JSON of v as encoding/json writes it: struct fields in
// declaration order, map keys sorted, no insignificant whitespace. Equal values
// therefore hash equally, and so do two computations of the same output.
func digestOf(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic("automium: digest of unmarshalable value: " + err.Error())
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
