package echo

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxURIBytes is how much of a URI an error's data repeats whole: a
// resource-not-found answer names the URI asked for (SEP-2164), so a client
// can tell which of its reads failed. It lives here, beside [Quote], because
// the adapter's resource errors and the transport's rendering of go-sdk's
// must follow one rule, and neither imports the other.
const MaxURIBytes = 256

// URI is a URI as an error's data repeats it: whole when it is at most
// MaxURIBytes of valid UTF-8 without control characters, otherwise through
// the bounded [Quote].
func URI(s string) string {
	if len(s) <= MaxURIBytes && utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	return Quote(s)
}
