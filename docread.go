package automium

import (
	"bufio"
	"context"
	"encoding/json/jsontext"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
)

// The one bounded reader of documents a client passes inside a value
// (a Playwright JSON report, a JUnit XML report, anything later). A general
// decoder builds the whole tree of a document before any count is checked, so
// an 8 MiB report of millions of empty tests once cost 700 MiB; this reader
// instead reads token by token (jsontext for JSON, encoding/xml's
// Decoder.Token for XML), charges depth, members and the bytes of each token as
// it reads, refuses at the first bound with a coded error that says where, and
// hands each token to an importer that keeps only what trials need. Memory is
// then proportional to the trials kept, whatever the document's size.
// TestNoWholeDocumentDecoders keeps every other decoder away from client data.

// errTokenTooLarge is what the byte counter answers a decoder that has read
// more than MaxDocumentTokenBytes past the last token it returned.
var errTokenTooLarge = errors.New("token too large")

// docBytes counts the bytes a decoder reads and stops it once one token has
// cost more than MaxDocumentTokenBytes: mark is the offset of the end of the
// last token returned, set by the reader after each token.
type docBytes struct {
	r    *bufio.Reader
	n    int64
	mark int64
	err  error // a read error of the underlying reader, kept to report it
	// For XML, a small lexer over the bytes read finds start tags, so that
	// one is refused past MaxXMLStartTagBytes while it is being read. What
	// looks like a tag inside a comment or CDATA counts too: an
	// overestimate only a pathological document notices.
	xml   bool
	state byte // 0 text, '<' just after a <, 't' in a start tag, '"' or '\'' in a quoted value
	tag   int  // bytes of the start tag being read
	utf16 bool // the document begins with a UTF-16 byte order mark
	refs  charRefs
}

// charRefs follows the XML's bytes apart from the start tag lexer, which
// overestimates, to find every character reference exactly: encoding/xml
// reads &#xD800; to &#xDFFF; as U+FFFD, where XML allows no reference to a
// surrogate (it names no character), so two different reports read the same;
// such a reference is refused here. What looks like one in a comment, CDATA
// section or processing instruction is text and is not, and a directive is
// refused anyway (xmlDoc.token), so its bytes are not followed.
type charRefs struct {
	state byte   // 0 text, tag or attribute value; '<' just after a <; '!' after <!; '-' in a comment, '[' in CDATA, '?' in an instruction; 'D' in a directive
	open  string // after <!: "--" or "[CDATA[", the opening being matched
	n     int    // bytes of open matched
	last  [2]byte
	ref   byte // 0 none, '&' after &, '#' after &#, 'x' after &#x, 'd' or 'h' in decimal or hexadecimal digits
	value int  // the reference's value so far, capped past the last code point
}

// errSurrogateRef is what the byte counter answers a character reference to
// a UTF-16 surrogate.
var errSurrogateRef = errors.New("character reference to a surrogate")

// follow reads one byte of XML.
func (r *charRefs) follow(c byte) error {
	last := r.last
	r.last = [2]byte{last[1], c}
	switch r.state {
	case '<':
		switch c {
		case '!':
			r.state, r.open, r.n = '!', "", 0
		case '?':
			r.state, r.last = '?', [2]byte{}
		default:
			r.state = 0
			return r.reference(c)
		}
	case '!':
		if r.n == 0 {
			switch c {
			case '-':
				r.open = "--"
			case '[':
				r.open = "[CDATA["
			default:
				r.state = 'D'
				return nil
			}
		}
		if c != r.open[r.n] {
			r.state = 'D'
			return nil
		}
		if r.n++; r.n == len(r.open) {
			r.state, r.last = r.open[0], [2]byte{}
		}
	case '-':
		if c == '>' && last == [2]byte{'-', '-'} {
			r.state = 0
		}
	case '[':
		if c == '>' && last == [2]byte{']', ']'} {
			r.state = 0
		}
	case '?':
		if c == '>' && last[1] == '?' {
			r.state = 0
		}
	case 'D':
	default:
		if c == '<' {
			r.state, r.ref = '<', 0
			return nil
		}
		return r.reference(c)
	}
	return nil
}

// reference follows a character reference, &#N; or &#xH;, in text or in an
// attribute value.
func (r *charRefs) reference(c byte) error {
	const capped = unicode.MaxRune + 1
	digit := func(base int, d int) {
		r.value = min(r.value*base+d, capped)
	}
	switch {
	case c == '&':
		r.ref, r.value = '&', 0
	case r.ref == '&' && c == '#':
		r.ref = '#'
	case r.ref == '#' && c == 'x':
		r.ref = 'x'
	case (r.ref == '#' || r.ref == 'd') && '0' <= c && c <= '9':
		r.ref = 'd'
		digit(10, int(c-'0'))
	case (r.ref == 'x' || r.ref == 'h') && '0' <= c && c <= '9':
		r.ref = 'h'
		digit(16, int(c-'0'))
	case (r.ref == 'x' || r.ref == 'h') && 'a' <= c|0x20 && c|0x20 <= 'f':
		r.ref = 'h'
		digit(16, int(c|0x20-'a'+10))
	case (r.ref == 'd' || r.ref == 'h') && c == ';':
		r.ref = 0
		if 0xD800 <= r.value && r.value <= 0xDFFF {
			return errSurrogateRef
		}
	default:
		r.ref = 0
	}
	return nil
}

// errTagTooLarge is what the byte counter answers past MaxXMLStartTagBytes
// of one start tag.
var errTagTooLarge = errors.New("start tag too large")

// lex follows one byte of XML.
func (b *docBytes) lex(c byte) error {
	switch b.state {
	case 0:
		if c == '<' {
			b.state = '<'
		}
		return nil
	case '<':
		if c == '!' || c == '?' || c == '/' {
			b.state = 0
			return nil
		}
		b.state, b.tag = 't', 2
		return nil
	case 't':
		switch c {
		case '>':
			b.state = 0
		case '"', '\'':
			b.state = c
		}
	default: // in a quoted value
		if c == b.state {
			b.state = 't'
		}
	}
	if b.tag++; b.tag > limit.MaxXMLStartTagBytes {
		return errTagTooLarge
	}
	return nil
}

// errUTF16 is what the byte counter answers a document that begins with a
// UTF-16 byte order mark.
var errUTF16 = errors.New("UTF-16")

// newDocBytes reads r, dropping a UTF-8 byte order mark at its start: XML
// requires a reader to accept one, RFC 8259 lets a JSON reader ignore one,
// and Windows tools (PowerShell's Out-File, .NET's XmlWriter) write one. A
// UTF-16 byte order mark, as Windows PowerShell's > redirection writes, is
// refused with a message that says so rather than as stray text.
func newDocBytes(r io.Reader) *docBytes {
	b := &docBytes{r: bufio.NewReaderSize(r, 32<<10)}
	p, _ := b.r.Peek(3)
	switch {
	case len(p) == 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF:
		_, _ = b.r.Discard(3)
	case len(p) >= 2 && (p[0] == 0xFE && p[1] == 0xFF || p[0] == 0xFF && p[1] == 0xFE):
		b.utf16 = true
	}
	return b
}

func (b *docBytes) over() bool { return b.n-b.mark > limit.MaxDocumentTokenBytes }

func (b *docBytes) Read(p []byte) (int, error) {
	if b.utf16 {
		return 0, errUTF16
	}
	if b.over() {
		return 0, errTokenTooLarge
	}
	if len(p) > 32<<10 {
		p = p[:32<<10]
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

// ReadByte makes docBytes an io.ByteReader, so encoding/xml reads it without a
// buffer of its own and its InputOffset matches n.
func (b *docBytes) ReadByte() (byte, error) {
	if b.utf16 {
		return 0, errUTF16
	}
	if b.over() {
		return 0, errTokenTooLarge
	}
	c, err := b.r.ReadByte()
	if err == nil {
		b.n++
		if b.xml {
			if e := b.lex(c); e != nil {
				return 0, e
			}
			if e := b.refs.follow(c); e != nil {
				return 0, e
			}
		}
	} else if err != io.EOF {
		b.err = err
	}
	return c, err
}

// docContextEvery is how many tokens the reader reads between looks at its
// context, so that a cancelled call stops within a few milliseconds.
const docContextEvery = 4096

// docSteps is the way down to where a reader is in a document: one stack of
// steps shared by every place the reader passes. A place (docAt) is a depth in
// it, so going one level down costs one step, never a copy of the path: a
// report's depth once cost every token a copy of its path (8.7 s of CPU for an
// 8 MiB JUnit report whose skipped values sat 98 deep, against 1.45 s flat),
// and every kept test its whole path. A Path is made only for a problem
// (docAt.path) or, bounded, for a test that is kept (docAt.kept).
type docSteps struct {
	root  Path
	steps []pathStep
}

// docAt is a place in a document being read: the root and the first n steps of
// its reader's stack. A recursive-descent reader hands each value its place
// and reads nothing beside it until that value is read, so a place stays
// valid while the reader is at it or below it; one kept past that is made a
// Path first.
type docAt struct {
	s *docSteps
	n int
}

// field is the place of member name of the object at a, and index the place of
// element i of the array at a. Each overwrites what a finished sibling left
// below a.
func (a docAt) field(name string) docAt { return a.push(pathStep{name: name}) }
func (a docAt) index(i int) docAt       { return a.push(pathStep{index: i, elem: true}) }

func (a docAt) push(st pathStep) docAt {
	a.s.steps = append(a.s.steps[:a.n], st)
	return docAt{s: a.s, n: a.n + 1}
}

// path is the place as a Path, for a problem found there.
func (a docAt) path() Path {
	steps := make([]pathStep, 0, len(a.s.root.steps)+a.n)
	return Path{steps: append(append(steps, a.s.root.steps...), a.s.steps[:a.n]...)}
}

// keptHead and keptTail are how many steps below the root a kept place keeps
// of its way in and of its end: enough for every test of a report written by a
// tool (reports[0].content.suites[0].suites[1].specs[2].tests[0] is whole),
// and a constant for a test nested deeper, which keeps its first steps, a gap
// and its last steps. What the gap leaves out, the test's line (XML) or the
// problem's own message says.
const (
	keptHead = 3
	keptTail = 6
)

// kept is the place as a Path whose size does not grow with the depth: what a
// test that becomes a trial keeps of where it is.
func (a docAt) kept() Path {
	if a.n <= keptHead+keptTail+1 {
		return a.path()
	}
	steps := make([]pathStep, 0, len(a.s.root.steps)+keptHead+1+keptTail)
	steps = append(steps, a.s.root.steps...)
	steps = append(steps, a.s.steps[:keptHead]...)
	steps = append(steps, pathStep{gap: true, index: a.n - keptHead - keptTail})
	steps = append(steps, a.s.steps[a.n-keptTail:a.n]...)
	return Path{steps: steps}
}

// jsonDoc reads one JSON document token by token under the document bounds.
// Its methods return *Error values at paths under root.
type jsonDoc struct {
	ctx    context.Context
	dec    *jsontext.Decoder
	in     *docBytes
	top    docAt
	what   string // the document's name in messages: "a Playwright JSON report"
	tokens int    // tokens read, for the context checks
	open   []int  // depth of each open value's place, innermost last
}

func newJSONDoc(ctx context.Context, r io.Reader, root Path, what string) *jsonDoc {
	in := newDocBytes(r)
	// Duplicate names stay refused (the default): a report with two suites
	// members is ambiguous. MaxDocumentMembers bounds what that costs.
	return &jsonDoc{ctx: ctx, dec: jsontext.NewDecoder(in), in: in, top: docAt{s: &docSteps{root: root}}, what: what}
}

// root is the place of the whole document.
func (d *jsonDoc) root() docAt { return d.top }

// at is the place of the value the reader is inside.
func (d *jsonDoc) at() docAt {
	if len(d.open) == 0 {
		return d.top
	}
	return docAt{s: d.top.s, n: d.open[len(d.open)-1]}
}

// token reads the next token, charging the bounds.
func (d *jsonDoc) token() (jsontext.Token, error) {
	if d.tokens++; d.tokens%docContextEvery == 0 {
		if err := checkContext(d.ctx); err != nil {
			return jsontext.Token{}, err
		}
	}
	prev := d.in.mark
	tok, err := d.dec.ReadToken()
	d.in.mark = d.dec.InputOffset()
	if err == nil && d.in.mark-prev > limit.MaxDocumentTokenBytes {
		err = errTokenTooLarge
	}
	if err != nil {
		return tok, d.decodeError(err)
	}
	switch tok.Kind() {
	case '{', '[':
		if len(d.open) >= limit.MaxDocumentDepth {
			return tok, newError(CodeLimitExceeded, cutPath(d.at().path()), nil, "nests objects and arrays deeper than %d levels; pass the reporter's output unedited", limit.MaxDocumentDepth)
		}
	}
	return tok, nil
}

// decodeError turns an error of the decoder or of the byte counter into a
// bounded *Error where the document went wrong. The decoder's own messages
// may quote the input, so only their kind of problem is kept.
func (d *jsonDoc) decodeError(err error) error {
	var ae *Error
	if errors.As(err, &ae) {
		return err
	}
	root := d.top.s.root
	if d.in.utf16 {
		return newError(CodeInvalidArgument, root, nil, "is UTF-16 (it begins with a UTF-16 byte order mark); write %s in UTF-8", d.what)
	}
	if errors.Is(err, errTokenTooLarge) {
		return newError(CodeLimitExceeded, d.at().path(), nil, "holds a value longer than %d bytes at byte %d; no member of %s is that long", limit.MaxDocumentTokenBytes, d.in.mark, d.what)
	}
	if d.in.err != nil {
		return newError(CodeInvalidArgument, root, nil, "could not be read: %s", echo.Value(d.in.err.Error()))
	}
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		return newError(CodeInvalidArgument, pointerPath(root, syn.JSONPointer), nil, "is not valid JSON at byte %d: %s; pass the reporter's output unedited", syn.ByteOffset, syntaxReason(syn.Err))
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return newError(CodeInvalidArgument, d.at().path(), nil, "is not valid JSON at byte %d: the report ends early; pass the reporter's output unedited", d.in.n)
	}
	return newError(CodeInvalidArgument, d.at().path(), nil, "is not valid JSON; pass the reporter's output unedited")
}

// object reads an object at path at, calling member for each member name
// with the reader positioned before its value; member must consume the value
// (read it, or skip it).
func (d *jsonDoc) object(at docAt, member func(name string, at docAt) error) error {
	tok, err := d.token()
	if err != nil {
		return err
	}
	if tok.Kind() != '{' {
		return d.wrongKind(at, tok, "an object")
	}
	d.open = append(d.open, at.n)
	defer func() { d.open = d.open[:len(d.open)-1] }()
	for n := 0; ; n++ {
		tok, err := d.token()
		if err != nil {
			return err
		}
		if tok.Kind() == '}' {
			return nil
		}
		if n >= limit.MaxDocumentMembers {
			return newError(CodeLimitExceeded, at.path(), nil, "has more than %d members; no object of %s has that many", limit.MaxDocumentMembers, d.what)
		}
		name := tok.String()
		if len(name) > limit.MaxDocumentNameBytes {
			return newError(CodeLimitExceeded, at.path(), nil, "has a member name of %d bytes; names of %s are at most %d bytes", len(name), d.what, limit.MaxDocumentNameBytes)
		}
		if err := member(name, at.field(name)); err != nil {
			return err
		}
	}
}

// array reads an array at path at, calling elem for each element with the
// reader positioned before it; elem must consume it.
func (d *jsonDoc) array(at docAt, elem func(i int, at docAt) error) error {
	tok, err := d.token()
	if err != nil {
		return err
	}
	if tok.Kind() != '[' {
		return d.wrongKind(at, tok, "an array")
	}
	d.open = append(d.open, at.n)
	defer func() { d.open = d.open[:len(d.open)-1] }()
	for i := 0; ; i++ {
		if d.dec.PeekKind() == ']' {
			_, err := d.token()
			return err
		}
		if err := elem(i, at.index(i)); err != nil {
			return err
		}
	}
}

// str reads a string at path at.
func (d *jsonDoc) str(at docAt) (string, error) {
	tok, err := d.token()
	if err != nil {
		return "", err
	}
	if tok.Kind() != '"' {
		return "", d.wrongKind(at, tok, "a string")
	}
	return tok.String(), nil
}

// num reads a number at path at.
func (d *jsonDoc) num(at docAt) (float64, error) {
	tok, err := d.token()
	if err != nil {
		return 0, err
	}
	if tok.Kind() != '0' {
		return 0, d.wrongKind(at, tok, "a number")
	}
	f, err := tok.Float()
	if err != nil {
		return 0, newError(CodeInvalidArgument, at.path(), nil, "is a number out of range; pass the reporter's output unedited")
	}
	return f, nil
}

// skip reads and drops one value, charging every token of it: a skipped
// member is still checked for well-formedness and every bound (its objects'
// members too, whose names the decoder remembers).
func (d *jsonDoc) skip(at docAt) error {
	switch d.dec.PeekKind() {
	case '{':
		return d.object(at, func(_ string, at docAt) error { return d.skip(at) })
	case '[':
		return d.array(at, func(_ int, at docAt) error { return d.skip(at) })
	}
	_, err := d.token()
	return err
}

// end checks that nothing but white space follows the document.
func (d *jsonDoc) end() error {
	_, err := d.dec.ReadToken()
	d.in.mark = d.dec.InputOffset()
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return d.decodeError(err)
	}
	return newError(CodeInvalidArgument, d.top.s.root, nil, "holds more than one JSON value; pass one report per entry")
}

func (d *jsonDoc) wrongKind(at docAt, tok jsontext.Token, want string) error {
	got := map[jsontext.Kind]string{'n': "null", 'f': "a boolean", 't': "a boolean", '"': "a string", '0': "a number", '{': "an object", '[': "an array"}[tok.Kind()]
	if got == "" {
		got = "this value"
	}
	return newError(CodeInvalidArgument, at.path(), nil, "is %s where %s has %s; pass the reporter's output unedited", got, d.what, want)
}

// xmlDoc reads one XML document token by token under the document bounds.
// No DTD, entity or external reference is ever resolved: encoding/xml
// resolves nothing external by design, Strict mode (kept on) refuses every
// entity but the five predefined ones and character references, since
// Entity stays nil, and a Directive (<!DOCTYPE ...>, <!ENTITY ...>) is refused
// outright rather than skipped. A declared encoding other than UTF-8 is
// refused too: CharsetReader stays nil.
type xmlDoc struct {
	ctx    context.Context
	dec    *xml.Decoder
	in     *docBytes
	top    docAt
	what   string
	tokens int
	depth  int
	attrs  map[xml.Name]struct{} // reused by check, for an element with many attributes
}

func newXMLDoc(ctx context.Context, r io.Reader, root Path, what string) *xmlDoc {
	in := newDocBytes(r)
	in.xml = true
	dec := xml.NewDecoder(in)
	dec.Strict = true
	return &xmlDoc{ctx: ctx, dec: dec, in: in, top: docAt{s: &docSteps{root: root}}, what: what}
}

// root is the place of the whole document.
func (d *xmlDoc) root() docAt { return d.top }

// line is the line the reader is at, for messages.
func (d *xmlDoc) line() int {
	l, _ := d.dec.InputPos()
	return l
}

// token reads the next token that matters: start and end elements and
// character data. Comments and processing instructions other than a DTD are
// dropped; a directive is refused. at is where the reader is, for errors.
func (d *xmlDoc) token(at docAt) (xml.Token, error) {
	for {
		if d.tokens++; d.tokens%docContextEvery == 0 {
			if err := checkContext(d.ctx); err != nil {
				return nil, err
			}
		}
		// Token checks that end tags match their start tags; the
		// namespaces it keeps are bounded by the depth and the attributes
		// charged here.
		prev := d.in.mark
		tok, err := d.dec.Token()
		if err == nil {
			tok, err = d.check(tok, at)
		}
		d.in.mark = d.dec.InputOffset()
		if err == nil && d.in.mark-prev > limit.MaxDocumentTokenBytes {
			err = errTokenTooLarge
		}
		if err == io.EOF && d.depth == 0 && d.in.err == nil {
			return nil, io.EOF
		}
		if err != nil {
			return nil, d.decodeError(err, at)
		}
		switch t := tok.(type) {
		case xml.StartElement, xml.EndElement:
			return t, nil
		case xml.CharData:
			return t, nil
		case xml.Directive:
			return nil, newError(CodeInvalidArgument, at.path(), nil,
				"holds a directive (<!DOCTYPE or <!ENTITY) at line %d; %s needs no DTD and none is ever read: remove it", d.line(), d.what)
		case xml.ProcInst:
			if t.Target == "xml" && d.tokens > 1 {
				return nil, newError(CodeInvalidArgument, at.path(), nil, "has an XML declaration at line %d that is not at the start", d.line())
			}
			if t.Target == "xml" && !utf8Declared(string(t.Inst)) {
				return nil, newError(CodeInvalidArgument, at.path(), nil, "declares an encoding other than UTF-8; write the report in UTF-8")
			}
		}
	}
}

// check charges an element's depth, attributes and names.
func (d *xmlDoc) check(tok xml.Token, at docAt) (xml.Token, error) {
	switch t := tok.(type) {
	case xml.StartElement:
		if d.depth >= limit.MaxDocumentDepth {
			return nil, newError(CodeLimitExceeded, cutPath(at.path()), nil, "nests elements deeper than %d levels at line %d", limit.MaxDocumentDepth, d.line())
		}
		if len(t.Attr) > limit.MaxDocumentMembers {
			return nil, newError(CodeLimitExceeded, at.path(), nil, "has an element with more than %d attributes at line %d", limit.MaxDocumentMembers, d.line())
		}
		if xmlNameBytes(t.Name) > limit.MaxDocumentNameBytes {
			return nil, newError(CodeLimitExceeded, at.path(), nil, "has an element name longer than %d bytes at line %d", limit.MaxDocumentNameBytes, d.line())
		}
		for _, a := range t.Attr {
			if xmlNameBytes(a.Name) > limit.MaxDocumentNameBytes {
				return nil, newError(CodeLimitExceeded, at.path(), nil, "has an attribute name longer than %d bytes at line %d", limit.MaxDocumentNameBytes, d.line())
			}
		}
		if a, twice := d.attrTwice(t.Attr); twice {
			return nil, newError(CodeInvalidArgument, at.path(), nil, "gives the attribute %s twice in one element at line %d; XML allows each once", echo.Value(a.Local), d.line())
		}
		d.depth++
	case xml.EndElement:
		d.depth--
	}
	return tok, nil
}

// attrTwiceScan is how many attributes an element may have before check finds
// one given twice through a set rather than by comparing each pair: a few
// compared pairwise cost less than a set, and 1,024 did cost 3.1 s of CPU.
const attrTwiceScan = 16

// attrTwice returns an attribute name given twice among attrs, in time linear
// in their number.
func (d *xmlDoc) attrTwice(attrs []xml.Attr) (xml.Name, bool) {
	if len(attrs) <= attrTwiceScan {
		for i, a := range attrs {
			for _, b := range attrs[:i] {
				if b.Name == a.Name {
					return a.Name, true
				}
			}
		}
		return xml.Name{}, false
	}
	if d.attrs == nil {
		d.attrs = make(map[xml.Name]struct{}, len(attrs))
	}
	defer clear(d.attrs)
	for _, a := range attrs {
		if _, ok := d.attrs[a.Name]; ok {
			return a.Name, true
		}
		d.attrs[a.Name] = struct{}{}
	}
	return xml.Name{}, false
}

func xmlNameBytes(n xml.Name) int { return len(n.Space) + len(n.Local) }

// utf8Declared reports whether an XML declaration's encoding, if any, is UTF-8.
func utf8Declared(inst string) bool {
	_, rest, ok := strings.Cut(inst, "encoding=")
	if !ok || rest == "" {
		return true
	}
	q := rest[0]
	enc, _, _ := strings.Cut(rest[1:], string(q))
	return strings.EqualFold(enc, "utf-8") || strings.EqualFold(enc, "utf8")
}

func (d *xmlDoc) decodeError(err error, at docAt) error {
	var ae *Error
	if errors.As(err, &ae) {
		return err
	}
	if d.in.utf16 {
		return newError(CodeInvalidArgument, d.top.s.root, nil, "is UTF-16 (it begins with a UTF-16 byte order mark); write %s in UTF-8", d.what)
	}
	if errors.Is(err, errTagTooLarge) {
		return newError(CodeLimitExceeded, at.path(), nil, "holds a start tag longer than %d bytes at line %d; no element of %s has that many attributes", limit.MaxXMLStartTagBytes, d.line(), d.what)
	}
	if errors.Is(err, errTokenTooLarge) {
		return newError(CodeLimitExceeded, at.path(), nil, "holds a tag or text longer than %d bytes after line %d; no element of %s is that long", limit.MaxDocumentTokenBytes, d.line(), d.what)
	}
	if errors.Is(err, errSurrogateRef) {
		return newError(CodeInvalidArgument, at.path(), nil, "is not well-formed XML at line %d: a character reference to a UTF-16 surrogate (&#xD800; to &#xDFFF;), which names no character; pass the reporter's output unedited", d.line())
	}
	if d.in.err != nil {
		return newError(CodeInvalidArgument, d.top.s.root, nil, "could not be read: %s", echo.Value(d.in.err.Error()))
	}
	if errors.Is(err, io.EOF) {
		return newError(CodeInvalidArgument, at.path(), nil, "ends early at line %d; pass the reporter's output unedited", d.line())
	}
	var syn *xml.SyntaxError
	if errors.As(err, &syn) {
		reason := "malformed XML"
		switch {
		case strings.Contains(syn.Msg, "entity"):
			reason = "an entity other than &amp; &lt; &gt; &quot; &apos; or a character reference (no DTD is read, so none other is defined)"
		case strings.Contains(syn.Msg, "UTF-8"):
			reason = "invalid UTF-8"
		case strings.Contains(syn.Msg, "unexpected EOF"):
			reason = "the report ends early"
		case strings.Contains(syn.Msg, "encoding"):
			reason = "an encoding other than UTF-8"
		}
		return newError(CodeInvalidArgument, at.path(), nil, "is not well-formed XML at line %d: %s; pass the reporter's output unedited", syn.Line, reason)
	}
	return newError(CodeInvalidArgument, at.path(), nil, "is not well-formed XML at line %d; pass the reporter's output unedited", d.line())
}

// syntaxReason names a syntax problem in a few words, never quoting input.
func syntaxReason(err error) string {
	switch {
	case err == nil:
		return "malformed"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the report ends early"
	}
	msg := err.Error()
	for _, r := range []struct{ has, say string }{
		{"invalid UTF-8", "invalid UTF-8"},
		{"duplicate", "an object member name given twice"},
		{"surrogate", "an invalid escaped surrogate"},
		{"nesting depth", "nested too deeply"},
	} {
		if strings.Contains(msg, r.has) {
			return r.say
		}
	}
	return "malformed JSON"
}

// maxPointerSteps bounds the path an error gives for a problem deep in a
// document: past it the path stops, at the depth the reader can name.
const maxPointerSteps = 40

// cutPath is p cut to its first maxPointerSteps steps: where a document
// nests too deeply, the error names the way down, not every level of it.
func cutPath(p Path) Path {
	if len(p.steps) <= maxPointerSteps {
		return p
	}
	return Path{steps: p.steps[:maxPointerSteps:maxPointerSteps]}
}

// pointerPath is the path under root of a JSON pointer, such as
// report.suites[0].specs[2]: at most maxPointerSteps steps, each rendered by
// Path, which quotes and cuts a member name that is not plain.
func pointerPath(root Path, ptr jsontext.Pointer) Path {
	at, n := root, 0
	for tok := range ptr.Tokens() {
		if n++; n > maxPointerSteps {
			break
		}
		if i, err := strconv.Atoi(tok); err == nil && i >= 0 && tok == strconv.Itoa(i) {
			at = at.Index(i)
			continue
		}
		at = at.Field(tok)
	}
	return at
}
