package transport_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/automium/automium/mcpserver/transport"

	"github.com/automium/automium/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// authorized adds a bearer token to every request of an HTTP client.
type authorized struct{ token string }

func (a authorized) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+a.token)
	return http.DefaultTransport.RoundTrip(req)
}

// An embedder serves Automium over Streamable HTTP with the same checks as
// automium-mcp -http. Mount the handler at the endpoint path and listen on
// loopback only; here httptest listens on 127.0.0.1.
func ExampleNewHTTPHandler() {
	token := rand.Text()
	handler, err := transport.NewHTTPHandler(mcpserver.New(nil), &transport.HTTPOptions{Token: token})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	defer srv.Close()

	// Without the token: 401.
	resp, err := http.Post(srv.URL, "application/json", nil)
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Status, resp.Header.Get("WWW-Authenticate"))

	// With it, any MCP client works.
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "example-http-client", Version: "v1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   srv.URL,
		HTTPClient: &http.Client{Transport: authorized{token}},
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	apps, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "automium://apps"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(apps.Contents[0].MIMEType)
	// Output:
	// 401 Unauthorized Bearer realm="automium-mcp"
	// application/json
}
