// Package conformancefixture builds the server that the official MCP
// conformance suite (@modelcontextprotocol/conformance) is run against in CI,
// beside the real automium-mcp.
//
// The suite's scenarios call fixtures of its own (tools named test_*, resources
// under test://, prompts named test_*), which Automium, whose features are fixed
// by its specification, does not have. Against the real server those scenarios
// can only be reported as not testable, so elicitation, sampling, progress,
// subscriptions, input-required results and mixed content would never pass
// through Automium's HTTP handler in a test. This package carries the fixtures,
// written from the suite's scenario descriptions, on a go-sdk server that also
// has Automium registered with mcpserver.Register; the command in
// tools/conformance-fixture serves it through transport.NewHTTPHandler,
// the handler the binary uses. It is test support: nothing outside CI uses it.
package conformancefixture

//lint:file-ignore SA1019 the suite tests sampling, roots and logging, which protocol 2026-07-28 deprecates but still serves; so must the fixtures.

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json/v2"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/automium/automium/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures [New].
type Options struct {
	// StateKey signs the requestState of input-required results (HMAC-SHA256),
	// so that a tampered state is refused. It must be at least 32 bytes; the
	// command makes a random one per run.
	StateKey []byte
	// Logger receives the server's diagnostics. Nil discards.
	Logger *slog.Logger
}

// Fixture texts the suite compares or shows.
const (
	simpleText          = "This is a simple text response for testing."
	embeddedText        = "This is an embedded resource content."
	errorText           = "This tool intentionally returns an error for testing"
	staticText          = "This is the content of the static text resource."
	promptEmbeddedText  = "Embedded resource content for testing."
	watchedResourceURI  = "test://watched-resource"
	templateURI         = "test://template/{id}/data"
	templatePrefix      = "test://template/"
	templateSuffix      = "/data"
	minStateKeyBytes    = 32
	maxTemplateIDLength = 64
)

// New returns a server carrying the suite's fixtures and Automium's tools,
// resources and prompts. Its capabilities are the union the fixtures need:
// logging, completions, resource subscriptions and list changes.
func New(opts Options) (*mcp.Server, error) {
	if len(opts.StateKey) < minStateKeyBytes {
		return nil, fmt.Errorf("conformancefixture: StateKey must be at least %d bytes, not %d", minStateKeyBytes, len(opts.StateKey))
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	f := &fixture{key: opts.StateKey, subscribed: map[string]bool{}}
	s := mcp.NewServer(&mcp.Implementation{Name: "automium-conformance-fixture", Version: mcpserver.Version()}, &mcp.ServerOptions{
		Instructions:       mcpserver.Instructions,
		Logger:             logger,
		CompletionHandler:  complete,
		SubscribeHandler:   f.subscribe,
		UnsubscribeHandler: f.unsubscribe,
		Capabilities: &mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{ListChanged: true},
			Prompts:     &mcp.PromptCapabilities{ListChanged: true},
			Resources:   &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Completions: &mcp.CompletionCapabilities{},
			Logging:     &mcp.LoggingCapabilities{},
		},
	})
	mcpserver.Register(s, &mcpserver.Options{Logger: logger})
	f.addTools(s)
	f.addResources(s)
	f.addPrompts(s)
	return s, nil
}

type fixture struct {
	key []byte

	mu         sync.Mutex
	subscribed map[string]bool // resource URIs with a subscription
	changes    int             // how many times a trigger tool changed a list
}

// noArgs is the input schema of the fixtures that take no arguments.
var noArgs = map[string]any{"type": "object", "additionalProperties": false}

func (f *fixture) addTools(s *mcp.Server) {
	add := func(name, description string, schema any, h mcp.ToolHandler) {
		if schema == nil {
			schema = noArgs
		}
		s.AddTool(&mcp.Tool{Name: name, Description: description, InputSchema: schema}, h)
	}
	content := func(c ...mcp.Content) mcp.ToolHandler {
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: c}, nil
		}
	}
	add("test_simple_text", "Returns one text block.", nil, content(&mcp.TextContent{Text: simpleText}))
	add("test_image_content", "Returns a 1x1 red PNG.", nil, content(&mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"}))
	add("test_audio_content", "Returns a short silent WAV.", nil, content(&mcp.AudioContent{Data: silentWAV, MIMEType: "audio/wav"}))
	add("test_embedded_resource", "Returns an embedded text resource.", nil, content(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
		URI: "test://embedded-resource", MIMEType: "text/plain", Text: embeddedText,
	}}))
	add("test_multiple_content_types", "Returns text, an image and an embedded resource.", nil, content(
		&mcp.TextContent{Text: "Multiple content types test:"},
		&mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
			URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`,
		}},
	))
	add("test_error_handling", "Always ends in a tool error.", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: errorText}}}, nil
	})
	add("test_tool_with_logging", "Sends three info log messages while it runs.", nil, toolWithLogging)
	add("test_logging_tool", "Tries to log one message; a sessionless request without a log level must not receive it.", nil, toolWithLogging)
	add("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100 when the call carries a progress token.", nil, toolWithProgress)
	add("test_missing_capability", "Needs the client's sampling capability; without it the call is refused with -32021.", nil, missingCapability)
	add("test_sampling", "Asks the client to sample a message for the given prompt.", objectSchema("prompt"), f.sampling)
	add("test_elicitation", "Asks the client for a username and an email.", objectSchema("message"), f.elicitation)
	add("test_elicitation_sep1034_defaults", "Asks the client for input with a default for every primitive type (SEP-1034).", nil, f.elicitSchema(sep1034Schema()))
	add("test_elicitation_sep1330_enums", "Asks the client to choose from the five enum forms (SEP-1330).", nil, f.elicitSchema(sep1330Schema()))
	add("test_streaming_elicitation", "Reports progress, then asks for input with an input-required result, never a request on the response stream.", nil, f.streamingElicitation)
	add("test_trigger_tool_change", "Adds a tool, so that the tool list changes.", nil, f.triggerToolChange(s))
	add("test_trigger_prompt_change", "Adds a prompt, so that the prompt list changes.", nil, f.triggerPromptChange(s))
	add("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", schema202012(), content(&mcp.TextContent{Text: "ok"}))
	add("test_custom_headers", "Echoes a parameter that the client also sends as the Mcp-Param-Region header (SEP-2243).", map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"region": map[string]any{"type": "string", "x-mcp-header": "Region"}},
		"required":             []string{"region"},
		"additionalProperties": false,
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := stringArgs(req, "region")
		if err != nil {
			return nil, err
		}
		return textResult("region " + args["region"]), nil
	})
	add("test_reconnection", "Closes its own event stream before answering (SEP-1699), so that the client resumes it with Last-Event-ID to get the answer.", nil, reconnection)
	f.addInputRequiredTools(add)
}

// reconnectAfter is the retry delay test_reconnection asks for when it closes
// its stream: short, because the client has nothing to wait for.
const reconnectAfter = 100 * time.Millisecond

// reconnection closes the call's event stream with a retry delay, then answers.
// The answer goes to the handler's event store, not to the closed stream, and
// reaches the client when it resumes the stream with Last-Event-ID (scenario
// server-sse-polling). It needs a handler with an event store, as the fixture
// command configures: without one, the answer to a closed stream is lost. Where
// there is no stream to close (stdio, sessionless protocol 2026-07-28), go-sdk
// leaves CloseSSEStream unset or makes it do nothing, and the answer goes out as
// usual.
func reconnection(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if extra := req.Extra; extra != nil && extra.CloseSSEStream != nil {
		extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: reconnectAfter})
	}
	return textResult("answered after the stream was closed"), nil
}

// objectSchema is a closed object of required string properties.
func objectSchema(names ...string) map[string]any {
	props := map[string]any{}
	for _, n := range names {
		props[n] = map[string]any{"type": "string"}
	}
	return map[string]any{"type": "object", "properties": props, "required": names, "additionalProperties": false}
}

// stringArgs decodes a call's arguments as an object of strings. The decoder is
// encoding/json/v2's: exact names, no duplicates, valid UTF-8.
func stringArgs(req *mcp.CallToolRequest, names ...string) (map[string]string, error) {
	args := map[string]string{}
	if len(req.Params.Arguments) > 0 {
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return nil, refusal(jsonrpc.CodeInvalidParams, "arguments must be an object of strings", nil)
		}
	}
	for _, n := range names {
		if args[n] == "" {
			return nil, refusal(jsonrpc.CodeInvalidParams, "missing argument "+n, nil)
		}
	}
	return args, nil
}

func toolWithLogging(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	for _, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		// The SDK drops the message when the client asked for no log
		// level (sessionless) or a higher one; that is what is tested.
		if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "conformance-fixture", Data: msg}); err != nil {
			return nil, err
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Logged three messages."}}}, nil
}

func toolWithProgress(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if token := req.Params.GetProgressToken(); token != nil {
		for _, p := range []float64{0, 50, 100} {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: p, Total: 100}); err != nil {
				return nil, err
			}
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Progress reported."}}}, nil
}

// refusal is a JSON-RPC error of the fixture's own handlers. Its data holds
// the {"error": {"code", "message"}} member by which the transports of
// mcpserver tell a handler's own error, sent as it is, from one of go-sdk's,
// which they render from its code alone (envelope.SDKError); extra members
// go beside it.
func refusal(code int64, message string, extra map[string]any) *jsonrpc.Error {
	data := map[string]any{"error": map[string]any{"code": "fixture_refusal", "message": message}}
	for k, v := range extra {
		data[k] = v
	}
	raw, err := json.Marshal(data, json.Deterministic(true))
	if err != nil { // only for a value json cannot encode, which extra never holds
		raw = nil
	}
	return &jsonrpc.Error{Code: code, Message: message, Data: raw}
}

func missingCapability(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if caps := req.ClientCapabilities(); caps == nil || caps.Sampling == nil {
		// Written as a map: the SDK's ClientCapabilities type would also
		// encode the empty roots member it cannot omit.
		return nil, refusal(mcp.CodeMissingRequiredClientCapabilities, "this tool needs the client's sampling capability",
			map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}})
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "The client declared sampling."}}}, nil
}

// The sampling and elicitation fixtures ask for input the way the SDK serves
// both protocol generations: they return an input request, which a sessionless
// (2026-07-28) client answers by calling again with inputResponses, and for
// which the SDK itself asks an older client over its session and calls the
// handler again with the answer.

func (f *fixture) sampling(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, err := stringArgs(req, "prompt")
	if err != nil {
		return nil, err
	}
	if text, ok := samplingText(req.Params.InputResponses["sample"]); ok {
		return textResult("LLM response: " + text), nil
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"sample": samplingRequest(args["prompt"], 100)}}, nil
}

func (f *fixture) elicitation(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, err := stringArgs(req, "message")
	if err != nil {
		return nil, err
	}
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"username": map[string]any{"type": "string", "description": "User's response"},
			"email":    map[string]any{"type": "string", "description": "User's email address"},
		},
		"required": []string{"username", "email"},
	}
	return elicitOnce(req, "user_input", args["message"], schema), nil
}

func (f *fixture) elicitSchema(schema map[string]any) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return elicitOnce(req, "form", "Please review and update the form fields", schema), nil
	}
}

// elicitOnce asks for one elicitation under key and, once answered, reports
// the answer.
func elicitOnce(req *mcp.CallToolRequest, key, message string, schema map[string]any) *mcp.CallToolResult {
	if r, ok := req.Params.InputResponses[key].(*mcp.ElicitResult); ok {
		content, err := json.Marshal(r.Content, json.Deterministic(true))
		if err != nil {
			content = []byte("{}")
		}
		return textResult(fmt.Sprintf("Elicitation completed: action=%s, content=%s", r.Action, content))
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{key: &mcp.ElicitParams{Message: message, RequestedSchema: schema}}}
}

func (f *fixture) streamingElicitation(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if token := req.Params.GetProgressToken(); token != nil {
		for _, p := range []float64{1, 2} {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: p, Total: 2}); err != nil {
				return nil, err
			}
		}
	}
	return elicitOnce(req, "confirm", "Continue?", map[string]any{
		"type":       "object",
		"properties": map[string]any{"ok": map[string]any{"type": "boolean"}},
		"required":   []string{"ok"},
	}), nil
}

func (f *fixture) triggerToolChange(s *mcp.Server) mcp.ToolHandler {
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := f.nextChange("test_added_tool_")
		s.AddTool(&mcp.Tool{Name: name, Description: "Added by test_trigger_tool_change.", InputSchema: noArgs},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return textResult("added"), nil
			})
		return textResult("added tool " + name), nil
	}
}

func (f *fixture) triggerPromptChange(s *mcp.Server) mcp.ToolHandler {
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := f.nextChange("test_added_prompt_")
		s.AddPrompt(&mcp.Prompt{Name: name, Description: "Added by test_trigger_prompt_change."},
			func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "added"}}}}, nil
			})
		return textResult("added prompt " + name), nil
	}
}

// nextChange names the next added tool or prompt; the count keeps names
// distinct and the output deterministic.
func (f *fixture) nextChange(prefix string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changes++
	return fmt.Sprintf("%s%d", prefix, f.changes)
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func samplingRequest(prompt string, maxTokens int64) *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: prompt}}},
		MaxTokens: maxTokens,
	}
}

// samplingText is the text of a sampling answer, whichever result type the SDK
// decoded it into.
func samplingText(r mcp.InputResponse) (string, bool) {
	switch r := r.(type) {
	case *mcp.CreateMessageResult:
		if t, ok := r.Content.(*mcp.TextContent); ok {
			return t.Text, true
		}
		return "", true
	case *mcp.CreateMessageWithToolsResult:
		var texts []string
		for _, c := range r.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				texts = append(texts, t.Text)
			}
		}
		return strings.Join(texts, " "), true
	}
	return "", false
}

func sep1034Schema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
			"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
			"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
			"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
			"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
		},
	}
}

func sep1330Schema() map[string]any {
	titled := func(prefix string, titles ...string) []any {
		var out []any
		for i, t := range titles {
			out = append(out, map[string]any{"const": fmt.Sprintf("%s%d", prefix, i+1), "title": t})
		}
		return out
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"untitledSingle": map[string]any{"type": "string", "description": "Untitled single-select", "enum": []string{"option1", "option2", "option3"}},
			"titledSingle":   map[string]any{"type": "string", "description": "Titled single-select", "oneOf": titled("value", "First Option", "Second Option", "Third Option")},
			"legacyEnum": map[string]any{"type": "string", "description": "Legacy titled enum", "enum": []string{"opt1", "opt2", "opt3"},
				"enumNames": []string{"Option One", "Option Two", "Option Three"}},
			"untitledMulti": map[string]any{"type": "array", "description": "Untitled multi-select",
				"items": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
			"titledMulti": map[string]any{"type": "array", "description": "Titled multi-select",
				"items": map[string]any{"anyOf": titled("value", "First Choice", "Second Choice", "Third Choice")}},
		},
	}
}

// schema202012 is the input schema the json-schema-2020-12 scenario looks for:
// 2020-12 keywords that a server must pass through unchanged.
func schema202012() map[string]any {
	return map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type":    "object",
		"$defs": map[string]any{
			"address": map[string]any{
				"$anchor":    "addressDef",
				"type":       "object",
				"properties": map[string]any{"street": map[string]any{"type": "string"}, "city": map[string]any{"type": "string"}},
			},
		},
		"properties": map[string]any{
			"name":          map[string]any{"type": "string"},
			"address":       map[string]any{"$ref": "#/$defs/address"},
			"contactMethod": map[string]any{"type": "string", "enum": []string{"phone", "email"}},
			"phone":         map[string]any{"type": "string"},
			"email":         map[string]any{"type": "string"},
		},
		"allOf": []any{map[string]any{"anyOf": []any{map[string]any{"required": []string{"phone"}}, map[string]any{"required": []string{"email"}}}}},
		"if": map[string]any{
			"properties": map[string]any{"contactMethod": map[string]any{"const": "phone"}},
			"required":   []string{"contactMethod"},
		},
		"then": map[string]any{"required": []string{"phone"}},
		"else": map[string]any{"required": []string{"email"}},

		"additionalProperties": false,
	}
}

// Resources.

func (f *fixture) addResources(s *mcp.Server) {
	text := func(uri, mime, body string) mcp.ResourceHandler {
		return func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: body}}}, nil
		}
	}
	s.AddResource(&mcp.Resource{URI: "test://static-text", Name: "static-text", Description: "A static text resource.", MIMEType: "text/plain"},
		text("test://static-text", "text/plain", staticText))
	s.AddResource(&mcp.Resource{URI: "test://static-binary", Name: "static-binary", Description: "A 1x1 red PNG.", MIMEType: "image/png"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://static-binary", MIMEType: "image/png", Blob: redPixelPNG}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: watchedResourceURI, Name: "watched-resource", Description: "A resource clients may subscribe to.", MIMEType: "text/plain"},
		text(watchedResourceURI, "text/plain", "Watched resource content."))
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: templateURI, Name: "template", Description: "Data for an ID.", MIMEType: "application/json"}, readTemplate)
}

// readTemplate serves test://template/{id}/data. The ID is bounded and must be
// a plain word, so that it goes into JSON and back out unchanged.
func readTemplate(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := strings.CutPrefix(uri, templatePrefix)
	if ok {
		id, ok = strings.CutSuffix(id, templateSuffix)
	}
	if !ok || id == "" || len(id) > maxTemplateIDLength || strings.IndexFunc(id, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_')
	}) >= 0 {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	body, err := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id}, json.Deterministic(true))
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(body)}}}, nil
}

// subscribable are the resources a client may subscribe to: the fixed ones,
// so that the subscription set stays bounded.
var subscribable = map[string]bool{watchedResourceURI: true, "test://static-text": true, "test://static-binary": true}

func (f *fixture) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	if !subscribable[req.Params.URI] {
		return refusal(jsonrpc.CodeInvalidParams, "only the fixture's test:// resources can be subscribed to", nil)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.subscribed[req.Params.URI] = true
	return nil
}

func (f *fixture) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.subscribed, req.Params.URI)
	return nil
}

// Prompts.

func (f *fixture) addPrompts(s *mcp.Server) {
	user := func(c mcp.Content) *mcp.PromptMessage { return &mcp.PromptMessage{Role: "user", Content: c} }
	s.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Description: "A prompt without arguments."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{user(&mcp.TextContent{Text: "This is a simple prompt for testing."})}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with two arguments.", Arguments: []*mcp.PromptArgument{
		{Name: "arg1", Description: "First test argument", Required: true},
		{Name: "arg2", Description: "Second test argument", Required: true},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a := req.Params.Arguments
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{user(&mcp.TextContent{
			Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"]),
		})}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt embedding a resource.", Arguments: []*mcp.PromptArgument{
		{Name: "resourceUri", Description: "URI of the resource to embed", Required: true},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			user(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: promptEmbeddedText}}),
			user(&mcp.TextContent{Text: "Please process the embedded resource above."}),
		}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				user(&mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"}),
				user(&mcp.TextContent{Text: "Please analyze the image above."}),
			}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "test_input_required_result_prompt", Description: "A prompt that asks the client for context first."},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			if r, ok := req.Params.InputResponses["user_context"].(*mcp.ElicitResult); ok {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{user(&mcp.TextContent{
					Text: fmt.Sprintf("Prompt for context %q.", fmt.Sprint(r.Content["context"])),
				})}}, nil
			}
			return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"user_context": &mcp.ElicitParams{
				Message:         "What context should the prompt use?",
				RequestedSchema: requiredStringSchema("context"),
			}}}, nil
		})
}

func requiredStringSchema(name string) map[string]any {
	return map[string]any{
		"type":       "object",
		"properties": map[string]any{name: map[string]any{"type": "string"}},
		"required":   []string{name},
	}
}

// complete answers completion/complete: the fixture prompt's first argument
// from a small list, and Automium's references through mcpserver.Complete.
func complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	if req.Params.Ref != nil && req.Params.Ref.Type == "ref/prompt" && strings.HasPrefix(req.Params.Ref.Name, "test_") {
		var values []string
		for _, v := range []string{"paris", "park", "party"} {
			if strings.HasPrefix(v, req.Params.Argument.Value) {
				values = append(values, v)
			}
		}
		if values == nil {
			values = []string{}
		}
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
	}
	return mcpserver.Complete(ctx, req)
}

// Binary fixtures, made here rather than pasted: a 1x1 red PNG and a WAV of
// 8 silent samples.
var (
	redPixelPNG = mustRedPixel()
	silentWAV   = wav(8)
)

func mustRedPixel() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err) // encoding a 1x1 image into memory cannot fail
	}
	return b.Bytes()
}

// wav is a mono 8 kHz 16-bit PCM file of n silent samples.
func wav(n int) []byte {
	const rate, bits, channels = 8000, 16, 1
	data := n * bits / 8 * channels
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + data))
	b.WriteString("WAVEfmt ")
	w(uint32(16))
	w(uint16(1)) // PCM
	w(uint16(channels))
	w(uint32(rate))
	w(uint32(rate * channels * bits / 8))
	w(uint16(channels * bits / 8))
	w(uint16(bits))
	b.WriteString("data")
	w(uint32(data))
	b.Write(make([]byte, data))
	return b.Bytes()
}

// Input-required results (SEP-2322).

func (f *fixture) addInputRequiredTools(add func(string, string, any, mcp.ToolHandler)) {
	nameSchema := requiredStringSchema("name")
	add("test_input_required_result_elicitation", "Asks for the caller's name with an input-required result.", nil,
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.InputResponses != nil {
				if r, ok := req.Params.InputResponses["user_name"].(*mcp.ElicitResult); ok {
					return textResult(fmt.Sprintf("Hello, %v!", r.Content["name"])), nil
				}
			}
			// No answer, or not the one asked for: ask again.
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"user_name": &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: nameSchema}}}, nil
		})
	add("test_input_required_result_sampling", "Asks the client to sample an answer with an input-required result.", nil,
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if text, ok := samplingText(req.Params.InputResponses["capital_question"]); ok {
				return textResult("The model answered: " + text), nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"capital_question": samplingRequest("What is the capital of France?", 100)}}, nil
		})
	add("test_input_required_result_list_roots", "Asks for the client's roots with an input-required result.", nil,
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if r, ok := req.Params.InputResponses["client_roots"].(*mcp.ListRootsResult); ok {
				var uris []string
				for _, root := range r.Roots {
					uris = append(uris, root.URI)
				}
				return textResult(fmt.Sprintf("The client has %d roots: %s", len(uris), strings.Join(uris, ", "))), nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"client_roots": &mcp.ListRootsParams{}}}, nil
		})
	add("test_input_required_result_request_state", "Round-trips a signed requestState.", nil, f.stateful("request_state", 1,
		func(int) mcp.InputRequestMap {
			return mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Please confirm", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []string{"ok"},
			}}}
		}, func() string { return "state-ok: the requestState was signed by this server" }))
	add("test_input_required_result_tampered_state", "Refuses a requestState that was not signed by this server.", nil, f.stateful("tampered_state", 1,
		func(int) mcp.InputRequestMap {
			return mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Please confirm", RequestedSchema: requiredStringSchema("answer")}}
		}, func() string { return "state-ok" }))
	add("test_input_required_result_multiple_inputs", "Asks for an elicitation, a sample and the roots at once.", nil, f.stateful("multiple_inputs", 1,
		func(int) mcp.InputRequestMap {
			return mcp.InputRequestMap{
				"user_name":    &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: nameSchema},
				"greeting":     samplingRequest("Generate a greeting", 50),
				"client_roots": &mcp.ListRootsParams{},
			}
		}, func() string { return "state-ok: all three inputs received" }))
	add("test_input_required_result_multi_round", "Asks twice, with a requestState that changes between rounds.", nil, f.stateful("multi_round", 2,
		func(round int) mcp.InputRequestMap {
			if round == 0 {
				return mcp.InputRequestMap{"step1": &mcp.ElicitParams{Message: "Step 1: What is your name?", RequestedSchema: nameSchema}}
			}
			return mcp.InputRequestMap{"step2": &mcp.ElicitParams{Message: "Step 2: What is your favorite color?", RequestedSchema: requiredStringSchema("color")}}
		}, func() string { return "state-ok: both rounds completed" }))
	add("test_input_required_result_capabilities", "Asks only for the inputs the client declared it can give.", nil,
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if len(req.Params.InputResponses) > 0 {
				return textResult(fmt.Sprintf("Received %d input responses.", len(req.Params.InputResponses))), nil
			}
			caps := req.ClientCapabilities()
			asks := mcp.InputRequestMap{}
			if caps != nil && caps.Sampling != nil {
				asks["sample"] = samplingRequest("Say hello", 20)
			}
			if caps != nil && caps.Elicitation != nil {
				asks["user_name"] = &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: nameSchema}
			}
			if caps != nil && caps.RootsV2 != nil {
				asks["client_roots"] = &mcp.ListRootsParams{}
			}
			if len(asks) == 0 {
				return textResult("The client declared no capability to ask for input with."), nil
			}
			return &mcp.CallToolResult{InputRequests: asks}, nil
		})
}

// stateful is an input-required tool of rounds rounds whose requestState is
// "tool/round" signed with HMAC-SHA256 under the fixture's key: a state that
// is missing, for another tool or altered is refused with -32602.
func (f *fixture) stateful(tool string, rounds int, ask func(round int) mcp.InputRequestMap, done func() string) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		round := 0
		if req.Params.RequestState != "" || len(req.Params.InputResponses) > 0 {
			r, err := f.verifyState(tool, req.Params.RequestState)
			if err != nil {
				return nil, refusal(jsonrpc.CodeInvalidParams, "requestState refused: "+err.Error(), nil)
			}
			round = r
			// Every input asked for in this round must be answered;
			// otherwise ask again, in the same round.
			for key := range ask(round - 1) {
				if req.Params.InputResponses[key] == nil {
					return &mcp.CallToolResult{InputRequests: ask(round - 1), RequestState: req.Params.RequestState}, nil
				}
			}
		}
		if round == rounds {
			return textResult(done()), nil
		}
		return &mcp.CallToolResult{InputRequests: ask(round), RequestState: f.signState(tool, round+1)}, nil
	}
}

func (f *fixture) signState(tool string, round int) string {
	payload := fmt.Sprintf("%s/%d", tool, round)
	mac := hmac.New(sha256.New, f.key)
	mac.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// verifyState returns the round a state signed for tool names, the rounds
// being counted from 1.
func (f *fixture) verifyState(tool, state string) (int, error) {
	p, sig, ok := strings.Cut(state, ".")
	if !ok || len(state) > 256 {
		return 0, errors.New("not a state this server issued")
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return 0, errors.New("not a state this server issued")
	}
	mac := hmac.New(sha256.New, f.key)
	mac.Write(payload)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return 0, errors.New("the integrity check failed")
	}
	name, roundText, ok := strings.Cut(string(payload), "/")
	var round int
	if _, err := fmt.Sscanf(roundText, "%d", &round); !ok || err != nil || name != tool || round < 1 {
		return 0, errors.New("the state belongs to another call")
	}
	return round, nil
}
