package mcpserver_test

import (
	"context"
	"fmt"
	"log"

	"github.com/automium/automium/binding/dispatch"
	"github.com/automium/automium/mcpserver"
)

// ExampleCatalogDigests pins Automium's tool contract the way a client would:
// it computes the tool-catalog-v1 digest from the session's list answers and
// compares it with the one the server advertises in initialize and the one a
// reviewer pinned (here, the server's own table).
func ExampleCatalogDigests() {
	ctx := context.Background()
	session, err := connect(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	catalog, err := dispatch.ListCatalog(ctx, session, 1000, 10)
	if err != nil {
		log.Fatal(err)
	}
	live, err := catalog.Digest()
	if err != nil {
		log.Fatal(err)
	}
	init := session.InitializeResult()
	advertised := init.Meta[mcpserver.CatalogMetaKey].(map[string]any)["digest"]
	pinned := mcpserver.CatalogDigests()[init.ProtocolVersion]
	fmt.Println(init.ProtocolVersion, live == advertised, live == pinned)
	// Output: 2025-11-25 true true
}
