package transport

import (
	"bytes"
	"encoding/json/jsontext"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/automium/automium/mcpserver/transport/internal/envelope"
)

// rpcWriter renders the JSON-RPC errors go-sdk writes into an HTTP response
// as the stdio transport renders them (envelope.SDKError): the same codes,
// never 0, no Go type names, no whole params quoted back, and the id the
// client sent. go-sdk writes each message in one Write: an application/json
// body, or one text/event-stream event. Results pass untouched.
//
// go-sdk's transport also refuses some requests with a plain-text 400 (its
// method check; the handler answers its header checks first): that text is
// dropped unread and a JSON-RPC error (envelope.SDKRefusal) written instead,
// with the same status. For a notification, which
// JSON-RPC never answers, the 400 goes out with no body, as stdio writes
// nothing.
type rpcWriter struct {
	*auditWriter
	method string         // the call the request carried
	params bool           // whether it carried params
	id     jsontext.Value // its id as the client wrote it, nil for a notification

	// passRefusals leaves go-sdk's plain-text refusals as they are: a
	// resumed stream's (a GET), which answer no call.
	passRefusals bool

	refused int // the status of go-sdk's plain-text refusal, held back; its text is dropped
	// refusedHead is the refusal text's first bytes, read only to tell its
	// one kind: go-sdk's ErrNotHandled (a method it does not have) from a
	// call without the params it needs. Nothing of it is written.
	refusedHead []byte

	// cancelled, for a call, reports whether the client has cancelled it;
	// from then on nothing more is written, so the call gets no answer.
	cancelled func() bool
}

func (w *rpcWriter) WriteHeader(code int) {
	if code == http.StatusBadRequest && !w.passRefusals && w.refused == 0 && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.refused = code
		return
	}
	w.auditWriter.WriteHeader(code)
}

// finish writes the refusal held back, once go-sdk is done.
func (w *rpcWriter) finish() {
	if w.refused == 0 {
		return
	}
	w.Header().Del("Content-Length")
	if w.id == nil {
		w.Header().Del("Content-Type")
		w.auditWriter.WriteHeader(w.refused)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.auditWriter.WriteHeader(w.refused)
	wire := envelope.SDKRefusal(w.method, w.params || string(w.refusedHead) == notHandledText)
	id, _ := envelope.IDOf(w.id)
	_, _ = w.auditWriter.Write(envelope.ErrorResponse(envelope.ID(id), wire.Code, wire.Message))
}

// notHandledText is how go-sdk's plain-text refusal of a method it does not
// have begins (jsonrpc2.ErrNotHandled, through checkRequest). A call without
// params of a method go-sdk has is refused with another text; both are
// answered as stdio answers them (envelope.SDKRefusal), and
// TestAttackTableBothTransports holds the two transports to the same bytes,
// so a go-sdk that words it otherwise fails there, not silently.
const notHandledText = "JSON RPC not handled"

// outcome reads, from the head of one message go-sdk wrote, whether it is an
// error response, without reading its body: go-sdk writes the members of a
// message in one order (jsonrpc, id, method, params, result, error; its
// wireCombined), so the first member after jsonrpc and id names the
// outcome. A result of megabytes is neither scanned nor decoded; only an
// error, which is small, is decoded to be rendered.
func isErrorResponse(msg []byte) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(msg))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	for range 3 {
		name, err := dec.ReadToken()
		if err != nil || name.Kind() != '"' {
			return false
		}
		switch name.String() {
		case "jsonrpc", "id":
			if dec.SkipValue() != nil {
				return false
			}
		case "error":
			return true
		default:
			return false
		}
	}
	return false
}

func (w *rpcWriter) Write(p []byte) (int, error) {
	if w.refused != 0 {
		if room := len(notHandledText) - len(w.refusedHead); room > 0 {
			w.refusedHead = append(w.refusedHead, p[:min(room, len(p))]...)
		}
		return len(p), nil
	}
	if w.cancelled != nil && w.cancelled() {
		return len(p), nil
	}
	out := p
	switch ct := w.Header().Get("Content-Type"); {
	case strings.HasPrefix(ct, "application/json"):
		if !isErrorResponse(p) {
			return w.auditWriter.Write(p)
		}
		out = w.render(p)
	case strings.HasPrefix(ct, "text/event-stream"):
		out = w.renderEvent(p)
	default:
		return w.auditWriter.Write(p)
	}
	if _, err := w.auditWriter.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// renderEvent renders the message in an event's data line.
func (w *rpcWriter) renderEvent(event []byte) []byte {
	const data = "data: "
	start := 0
	if !bytes.HasPrefix(event, []byte(data)) {
		i := bytes.Index(event, []byte("\n"+data))
		if i < 0 {
			return event
		}
		start = i + 1
	}
	end := bytes.IndexByte(event[start:], '\n')
	if end < 0 {
		return event
	}
	end += start
	if !isErrorResponse(event[start+len(data) : end]) {
		return event
	}
	msg := w.render(event[start+len(data) : end])
	out := make([]byte, 0, start+len(data)+len(msg)+len(event)-end)
	out = append(out, event[:start+len(data)]...)
	out = append(out, msg...)
	return append(out, event[end:]...)
}

// render renders one message if it is an error response.
func (w *rpcWriter) render(msg []byte) []byte {
	decoded, err := jsonrpc.DecodeMessage(msg)
	if err != nil {
		return msg
	}
	resp, ok := decoded.(*jsonrpc.Response)
	if !ok || resp.Error == nil {
		return msg
	}
	wire := envelope.SDKError(resp.Error, w.method)
	if !resp.ID.IsValid() {
		return envelope.ErrorResponse(nil, wire.Code, wire.Message)
	}
	id := envelope.ID(resp.ID) // as go-sdk writes it, and stdio too
	if wire.Data != nil {
		fixed := *resp
		fixed.Error = wire
		if data, err := jsonrpc.EncodeMessage(&fixed); err == nil {
			return data
		}
	}
	return envelope.ErrorResponse(id, wire.Code, wire.Message)
}

// Flush and Unwrap keep what go-sdk finds through http.ResponseController.
func (w *rpcWriter) Flush()                      { w.auditWriter.Flush() }
func (w *rpcWriter) Unwrap() http.ResponseWriter { return w.auditWriter }
