package stdio

import "github.com/automium/automium/mcpserver/transport/internal/envelope"

// DefaultMaxValues is how many JSON values one message may hold when
// Transport.MaxValues is zero; see [envelope.DefaultMaxValues].
const DefaultMaxValues = envelope.DefaultMaxValues

// DefaultMaxDepth is how deeply one message may nest objects and arrays when
// Transport.MaxDepth is zero; see [envelope.DefaultMaxDepth].
const DefaultMaxDepth = envelope.DefaultMaxDepth
