package automium

import (
	"context"
	"encoding/json"
	"errors"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/unicode/norm"
)

const testRunID = "run-0123456789abcdef0123"

func int64Ptr(n int64) *int64 { return &n }

func validManifestInput() GetArtifactManifestInput {
	return GetArtifactManifestInput{
		RunID: testRunID,
		Root:  "artifacts/storefront/guest-catalog",
		Entries: []ArtifactEntry{
			{Kind: "trace", Path: "attempt-1/trace.zip", Size: int64Ptr(52311)},
			{Kind: "report", Path: "report.json", MediaType: "application/json"},
			{Kind: "screenshot", Path: "attempt-1/step-3.png", SHA256: strings.Repeat("ab", 32)},
			{Kind: "screenshot", Path: "attempt-1/step-1.png", Size: int64Ptr(0)},
		},
	}
}

func TestGetArtifactManifest(t *testing.T) {
	got, err := GetArtifactManifest(context.Background(), validManifestInput())
	if err != nil {
		t.Fatal(err)
	}
	want := GetArtifactManifestResult{
		SchemaVersion:       ArtifactManifestVersion,
		RunID:               testRunID,
		ArtifactManifestRef: "artifact-manifest://" + testRunID,
		Root:                "artifacts/storefront/guest-catalog",
		Entries: []ArtifactEntry{
			{Kind: "report", Path: "report.json", MediaType: "application/json"},
			{Kind: "screenshot", Path: "attempt-1/step-1.png", MediaType: "image/png", Size: int64Ptr(0)},
			{Kind: "screenshot", Path: "attempt-1/step-3.png", MediaType: "image/png", SHA256: strings.Repeat("ab", 32)},
			{Kind: "trace", Path: "attempt-1/trace.zip", MediaType: "application/zip", Size: int64Ptr(52311)},
		},
		Modeled: true,
		Notice:  ModeledNotice,
		Digest:  got.Digest,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GetArtifactManifest (-want +got):\n%s", diff)
	}
	undigested := got
	undigested.Digest = ""
	// The rule of docs/digests.md, from the answer's JSON: the RFC 8785 form of
	// the manifest with an empty digest, hashed.
	if want := digestOfAnswer(t, undigested); got.Digest != want {
		t.Errorf("Digest = %s, want the digest of the manifest without it, %s", got.Digest, want)
	}
	// A size of zero is an empty file, not an unknown size, and survives the wire.
	b, _ := json.Marshal(got)
	if !strings.Contains(string(b), `"size":0`) {
		t.Errorf("zero size lost in %s", b)
	}
}

// The manifest is canonical: the order entries arrive in does not change it.
func TestGetArtifactManifestCanonical(t *testing.T) {
	ctx := context.Background()
	in := validManifestInput()
	first, err := GetArtifactManifest(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(in.Entries)
	again, err := GetArtifactManifest(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("entry order changed the manifest (-first +reversed):\n%s", diff)
	}
	in.Entries[0].Size = int64Ptr(1)
	changed, _ := GetArtifactManifest(ctx, in)
	if changed.Digest == first.Digest {
		t.Error("changing a size kept the digest")
	}
}

// The caller's entries are not modified, and the result shares no memory with them.
func TestGetArtifactManifestCopies(t *testing.T) {
	in := validManifestInput()
	before := validManifestInput()
	got, err := GetArtifactManifest(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, in); diff != "" {
		t.Errorf("input modified (-before +after):\n%s", diff)
	}
	*got.Entries[3].Size = 7
	if *in.Entries[0].Size != 52311 {
		t.Error("result shares a size with the input")
	}
}

func TestArtifactKinds(t *testing.T) {
	kinds := ArtifactSpecs()
	var names []string
	for _, k := range kinds {
		names = append(names, string(k.Kind))
		if !slices.Contains(k.MediaTypes, k.DefaultMediaType) {
			t.Errorf("%s: default media type %s is not among its media types %v", k.Kind, k.DefaultMediaType, k.MediaTypes)
		}
		if !slices.IsSorted(k.MediaTypes) {
			t.Errorf("%s: media types %v are not sorted", k.Kind, k.MediaTypes)
		}
		if k.Description == "" {
			t.Errorf("%s: no description", k.Kind)
		}
	}
	want := []string{"console_log", "dom_snapshot", "network_har", "replay_events", "report", "screenshot", "semantic_snapshot", "trace", "video"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if got, _ := tagValues("automium_artifact_kind"); !slices.Equal(got, want) {
		t.Errorf("automium_artifact_kind = %v, want %v", got, want)
	}
	kinds[0].MediaTypes[0] = "changed/by-caller"
	if ArtifactSpecs()[0].MediaTypes[0] == "changed/by-caller" {
		t.Error("ArtifactKinds shares memory with the package")
	}
}

func TestGetArtifactManifestValidation(t *testing.T) {
	entry := func(i int, change func(*ArtifactEntry)) func(*GetArtifactManifestInput) {
		return func(in *GetArtifactManifestInput) { change(&in.Entries[i]) }
	}
	tests := []struct {
		name   string
		change func(*GetArtifactManifestInput)
		want   errorShape
	}{
		{"missing run", func(in *GetArtifactManifestInput) { in.RunID = "" }, errorShape{CodeInvalidArgument, "runId"}},
		{"malformed run", func(in *GetArtifactManifestInput) { in.RunID = "run-XYZ" }, errorShape{CodeInvalidArgument, "runId"}},
		{"missing root", func(in *GetArtifactManifestInput) { in.Root = "" }, errorShape{CodeInvalidArgument, "root"}},
		{"absolute root", func(in *GetArtifactManifestInput) { in.Root = "/var/artifacts" }, errorShape{CodeInvalidArtifactPath, "root"}},
		{"escaping root", func(in *GetArtifactManifestInput) { in.Root = "artifacts/../../etc" }, errorShape{CodeInvalidArtifactPath, "root"}},
		{"root too long", func(in *GetArtifactManifestInput) { in.Root = strings.Repeat("a", limit.MaxPathLength+1) }, errorShape{CodeLimitExceeded, "root"}},
		{"no entries", func(in *GetArtifactManifestInput) { in.Entries = nil }, errorShape{CodeInvalidArgument, "entries"}},
		{"empty entries", func(in *GetArtifactManifestInput) { in.Entries = []ArtifactEntry{} }, errorShape{CodeInvalidArgument, "entries"}},
		{"too many entries", func(in *GetArtifactManifestInput) {
			in.Entries = make([]ArtifactEntry, limit.MaxArtifactEntries+1)
		}, errorShape{CodeLimitExceeded, "entries"}},
		{"missing kind", entry(1, func(e *ArtifactEntry) { e.Kind = "" }), errorShape{CodeInvalidArgument, "entries[1].kind"}},
		{"unknown kind", entry(2, func(e *ArtifactEntry) { e.Kind = "heap_dump" }), errorShape{CodeInvalidArtifactKind, "entries[2].kind"}},
		{"missing path", entry(3, func(e *ArtifactEntry) { e.Path = "" }), errorShape{CodeInvalidArgument, "entries[3].path"}},
		{"path too long", entry(3, func(e *ArtifactEntry) { e.Path = strings.Repeat("p", limit.MaxPathLength+1) }), errorShape{CodeLimitExceeded, "entries[3].path"}},
		{"absolute path", entry(3, func(e *ArtifactEntry) { e.Path = "/etc/passwd" }), errorShape{CodeInvalidArtifactPath, "entries[3].path"}},
		{"dot-dot segment", entry(3, func(e *ArtifactEntry) { e.Path = "attempt-1/../../secrets" }), errorShape{CodeInvalidArtifactPath, "entries[3].path"}},
		{"dot segment", entry(3, func(e *ArtifactEntry) { e.Path = "./trace.zip" }), errorShape{CodeInvalidArtifactPath, "entries[3].path"}},
		{"backslash", entry(3, func(e *ArtifactEntry) { e.Path = `attempt-1\trace.zip` }), errorShape{CodeInvalidArtifactPath, "entries[3].path"}},
		{"drive letter", entry(3, func(e *ArtifactEntry) { e.Path = "C:/artifacts/trace.zip" }), errorShape{CodeInvalidArtifactPath, "entries[3].path"}},
		{"bare drive letter", entry(3, func(e *ArtifactEntry) { e.Path = "c:trace.zip" }), errorShape{CodeInvalidArtifactPath, "entries[3].path"}},
		{"URL scheme", entry(3, func(e *ArtifactEntry) { e.Path = "s3://bucket/trace.zip" }), errorShape{CodeInvalidArtifactPath, "entries[3].path"}},
		{"file URL", entry(3, func(e *ArtifactEntry) { e.Path = "file:trace.zip" }), errorShape{CodeInvalidArtifactPath, "entries[3].path"}},
		{"NUL byte", entry(3, func(e *ArtifactEntry) { e.Path = "trace\x00.zip" }), errorShape{CodeInvalidArtifactPath, "entries[3].path"}},
		{"control character", entry(3, func(e *ArtifactEntry) { e.Path = "trace\n.zip" }), errorShape{CodeInvalidArtifactPath, "entries[3].path"}},
		{"invalid UTF-8", entry(3, func(e *ArtifactEntry) { e.Path = "trace\xff.zip" }), errorShape{CodeInvalidArtifactPath, "entries[3].path"}},
		{"empty segment", entry(3, func(e *ArtifactEntry) { e.Path = "attempt-1//trace.zip" }), errorShape{CodeInvalidArtifactPath, "entries[3].path"}},
		{"trailing slash", entry(3, func(e *ArtifactEntry) { e.Path = "attempt-1/" }), errorShape{CodeInvalidArtifactPath, "entries[3].path"}},
		{"duplicate path", entry(3, func(e *ArtifactEntry) { e.Path = "report.json" }), errorShape{CodeInvalidArtifactPath, "entries[3].path"}},
		{"media type not of kind", entry(0, func(e *ArtifactEntry) { e.MediaType = "image/png" }), errorShape{CodeInvalidArgument, "entries[0].mediaType"}},
		{"media type too long", entry(0, func(e *ArtifactEntry) { e.MediaType = strings.Repeat("m", 129) }), errorShape{CodeLimitExceeded, "entries[0].mediaType"}},
		{"negative size", entry(0, func(e *ArtifactEntry) { e.Size = int64Ptr(-1) }), errorShape{CodeInvalidArgument, "entries[0].size"}},
		{"size too large", entry(0, func(e *ArtifactEntry) { e.Size = int64Ptr(limit.MaxArtifactSizeBytes + 1) }), errorShape{CodeLimitExceeded, "entries[0].size"}},
		{"short sha256", entry(0, func(e *ArtifactEntry) { e.SHA256 = "abc" }), errorShape{CodeInvalidArgument, "entries[0].sha256"}},
		{"uppercase sha256", entry(0, func(e *ArtifactEntry) { e.SHA256 = strings.Repeat("AB", 32) }), errorShape{CodeInvalidArgument, "entries[0].sha256"}},
		{"first problem in field order", func(in *GetArtifactManifestInput) {
			in.Entries[1].Path = "/abs"
			in.Entries[2].Kind = "nope"
		}, errorShape{CodeInvalidArtifactPath, "entries[1].path"}},
		{"path before media type", entry(0, func(e *ArtifactEntry) {
			e.Path = "../x"
			e.MediaType = "image/png"
		}), errorShape{CodeInvalidArtifactPath, "entries[0].path"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validManifestInput()
			tt.change(&in)
			_, err := GetArtifactManifest(context.Background(), in)
			if diff := cmp.Diff(tt.want, shapeOf(t, err)); diff != "" {
				t.Errorf("error (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

func TestGetArtifactManifestDuplicateNamesFirst(t *testing.T) {
	in := validManifestInput()
	in.Entries[3].Path = in.Entries[1].Path
	_, err := GetArtifactManifest(context.Background(), in)
	if err == nil || !strings.Contains(err.Error(), "entries[1]") {
		t.Errorf("got %v, want a message naming entries[1]", err)
	}
}

func TestGetArtifactManifestMediaTypeAllowed(t *testing.T) {
	in := validManifestInput()
	in.Entries[2].MediaType = "video/webm"
	_, err := GetArtifactManifest(context.Background(), in)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want *Error", err)
	}
	if diff := cmp.Diff([]string{"image/jpeg", "image/png", "image/webp"}, e.Allowed); diff != "" {
		t.Errorf("allowed (-want +got):\n%s", diff)
	}
}

func TestArtifactPathProblem(t *testing.T) {
	accepted := []string{"a", "trace.zip", "attempt-1/trace.zip", "a/b/c/d.png", "..a", "a/..b/c", "a b/c", "ünïcode/ファイル.png", ".hidden", "a/.well-known", "console.log", "auxiliary/x", "com10", "nul-results", "clock", "clock$$", "com", "lpt-1", "conin"}
	for _, p := range accepted {
		if msg, bad := artifactPathProblem(p); bad {
			t.Errorf("artifactPathProblem(%q) = %q, want accepted", p, msg)
		}
	}
	rejected := []string{"", "/", "/a", "//host/share", "..", "../a", "a/..", "a/../b", ".", "./a", "a/.", "a//b", "a/", `a\b`, `\\server\share`,
		"C:", "c:/a", "C:\\a", "http://x", "https://example.com/a", "file:///etc/passwd", "s3://bucket/a", "data:text/plain,hi", "a\x00b", "a\tb", "0:0", "trace.zip:stream", "a\x7fb", "\xff", "a\u0085b",
		// Safe on Linux, not for every consumer (Windows, macOS, URL resolvers).
		"%2e%2e/%2e%2e/etc/passwd", "a%2fb", "report?x=1", "a#frag", "a*b", "a|b", `a"b`, "a<b>",
		"CON", "con", "aux.txt", "NUL.zip", "COM1", "lpt9.log", "a/CON/b", "Con .txt", "name.", "name ", "a./b",
		"\uff0e\uff0e/etc", "a\uff0fb", "a\uff3cb", "a\uff1ab", "\u2025/x", "ﬁle.txt",
		"a\u202eb", "a\u200bb", "\ufefftrace.zip", "a\u2066b",
		// Invisible, blank or line-breaking: two paths must not look alike.
		"a\u034fb", "\u115fa", "a\u1160", "a\u17b4b", "a\ufe0fb", "a\u2800b", "a\u2028b", "a\u2029b", "a\u3164b", "a\uffa0b",
		"a\U000e0041b", "a\U000e0100b", "a\u180bb", "a\u1680b", "a\u00adb",
		// Windows' whole reserved-name list, in any case, with any extension.
		"CLOCK$", "clock$.txt", "CONIN$", "conout$.log", "COM0", "com0.txt", "LPT0", "Lpt0.tar.gz", "COM\u00b9", "lpt\u00b2.txt", "com\u00b3",
		"a/PRN.x/b", "AUX .txt", "nul . txt", "con.", "Con ."}
	for _, p := range rejected {
		if _, bad := artifactPathProblem(p); !bad {
			t.Errorf("artifactPathProblem(%q) accepted, want rejected", p)
		}
	}
}

var artifactPathRE = regexp.MustCompile(artifactPathPattern)

// FuzzArtifactPath checks the safety property of artifact paths: no input panics,
// and every accepted path stays under its root whichever way it is read.
func FuzzArtifactPath(f *testing.F) {
	for _, seed := range []string{"attempt-1/trace.zip", "../etc/passwd", "/abs", `a\b`, "C:/x", "http://x/y", "a//b", "a/./b", "a\x00b", "ok/.hidden", "\xff",
		"%2e%2e/%2e%2e/etc/passwd", "aux.txt", "name.", "\uff0e\uff0e\uff0fx", "a\u202eb", "Trace.zip"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if _, bad := artifactPathProblem(p); bad {
			return
		}
		switch {
		case path.Clean(p) != p:
			t.Errorf("accepted %q, which is not clean (%q)", p, path.Clean(p))
		case path.IsAbs(p) || strings.HasPrefix(p, "/"):
			t.Errorf("accepted absolute %q", p)
		case slices.Contains(strings.Split(p, "/"), ".."):
			t.Errorf("accepted %q with a .. segment", p)
		case strings.ContainsAny(p, "\\\x00"):
			t.Errorf("accepted %q with a backslash or NUL", p)
		case !strings.HasPrefix(path.Join("root", p), "root/"):
			t.Errorf("accepted %q, which escapes root when joined (%q)", p, path.Join("root", p))
		case strings.Contains(p, ":"):
			t.Errorf("accepted %q, which a Windows reader may see as a drive or stream, or a URL parser as a scheme", p)
		case strings.ContainsAny(p, "%?#"):
			t.Errorf("accepted %q, which a URL resolver reads otherwise", p)
		case norm.NFKC.String(p) != p:
			t.Errorf("accepted %q, which compatibility normalization changes to %q", p, norm.NFKC.String(p))
		case strings.IndexFunc(p, func(r rune) bool { return unicode.Is(unicode.Cf, r) }) >= 0:
			t.Errorf("accepted %q, which has an invisible format character", p)
		}
		for _, seg := range strings.Split(p, "/") {
			base, _, _ := strings.Cut(seg, ".")
			switch strings.ToUpper(strings.TrimRight(base, " ")) {
			case "CON", "PRN", "AUX", "NUL", "COM1", "COM9", "LPT1", "LPT9":
				t.Errorf("accepted %q, whose segment %q is a Windows device", p, seg)
			}
			if strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " ") {
				t.Errorf("accepted %q, whose segment %q Windows strips", p, seg)
			}
		}
		// The advertised schema's pattern accepts every path the server accepts.
		if !artifactPathRE.MatchString(p) {
			t.Errorf("accepted %q, which the schema's pattern refuses", p)
		}
		// The whole manifest agrees with the path check and never panics.
		in := GetArtifactManifestInput{RunID: testRunID, Root: "artifacts", Entries: []ArtifactEntry{{Kind: "trace", Path: p}}}
		if _, err := GetArtifactManifest(context.Background(), in); err != nil && len(p) <= limit.MaxPathLength {
			t.Errorf("path %q passes the path check but the manifest rejects it: %v", p, err)
		}
	})
}

// TestArtifactPathsDifferingOnlyByCase checks that two paths one case-insensitive
// file system would store as one file are refused as duplicates.
func TestArtifactPathsDifferingOnlyByCase(t *testing.T) {
	in := GetArtifactManifestInput{RunID: testRunID, Root: "artifacts", Entries: []ArtifactEntry{
		{Kind: "trace", Path: "attempt-1/trace.zip"},
		{Kind: "video", Path: "Attempt-1/TRACE.zip"},
	}}
	_, err := GetArtifactManifest(context.Background(), in)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want *Error", err)
	}
	if diff := cmp.Diff(errorShape{CodeInvalidArtifactPath, "entries[1].path"}, errorShape{e.Code, e.Field}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestManifestCompleteness checks a manifest against the replay contract of its
// run: a failed run that left only its report is incomplete, and says what is
// missing.
func TestManifestCompleteness(t *testing.T) {
	entries := func(kinds ...ArtifactKind) []ArtifactEntry {
		var out []ArtifactEntry
		for _, k := range kinds {
			out = append(out, ArtifactEntry{Kind: k, Path: "attempt-1/" + string(k)})
		}
		return out
	}
	tests := []struct {
		name    string
		kinds   []ArtifactKind
		outcome ReplayOutcome
		want    ManifestCompleteness
	}{
		{"failed run with only a report", []ArtifactKind{"report"}, ReplayOutcome{Verdict: VerdictFailed},
			ManifestCompleteness{Verdict: VerdictFailed, RequiredKinds: RequiredReplayArtifactKinds(VerdictFailed, 0),
				MissingKinds: []ArtifactKind{"console_log", "dom_snapshot", "network_har", "replay_events", "screenshot", "semantic_snapshot", "trace"}}},
		{"passed run with events and report", []ArtifactKind{"replay_events", "report"}, ReplayOutcome{Verdict: VerdictPassed},
			ManifestCompleteness{Verdict: VerdictPassed, RequiredKinds: []ArtifactKind{"replay_events", "report"}, MissingKinds: []ArtifactKind{}, Complete: true}},
		{"flaky run without its retry video", []ArtifactKind{"console_log", "dom_snapshot", "network_har", "replay_events", "report", "screenshot", "semantic_snapshot", "trace"},
			ReplayOutcome{Verdict: VerdictFlaky, RetryCount: 1},
			ManifestCompleteness{Verdict: VerdictFlaky, RetryCount: 1, RequiredKinds: RequiredReplayArtifactKinds(VerdictFlaky, 1), MissingKinds: []ArtifactKind{"video"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outcome := tt.outcome
			got, err := GetArtifactManifest(context.Background(), GetArtifactManifestInput{RunID: testRunID, Root: "artifacts", Entries: entries(tt.kinds...), Replay: &outcome})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tt.want, got.Completeness); diff != "" {
				t.Errorf("completeness (-want +got):\n%s", diff)
			}
		})
	}
	// Without an outcome there is nothing to check against, and nothing is said.
	got, err := GetArtifactManifest(context.Background(), GetArtifactManifestInput{RunID: testRunID, Root: "artifacts", Entries: entries("report")})
	if err != nil || got.Completeness != nil {
		t.Errorf("without replay: completeness %+v, err %v; want none", got.Completeness, err)
	}
	// The outcome obeys the replay rules.
	_, err = GetArtifactManifest(context.Background(), GetArtifactManifestInput{RunID: testRunID, Root: "artifacts", Entries: entries("report"), Replay: &ReplayOutcome{Verdict: VerdictFlaky}})
	var e *Error
	if !errors.As(err, &e) || e.Field != "replay.retryCount" {
		t.Errorf("flaky without retries: got %v, want a problem at replay.retryCount", err)
	}
}

// TestArtifactPathsRefuseDefaultIgnorables derives Unicode's
// Default_Ignorable_Code_Point from the tables of package unicode, as
// DerivedCoreProperties.txt defines it, and checks that every such code point
// makes a path refused, wherever it stands.
func TestArtifactPathsRefuseDefaultIgnorables(t *testing.T) {
	n := 0
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		di := (unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r)) &&
			!unicode.Is(unicode.White_Space, r) && !(0xFFF9 <= r && r <= 0xFFFB) && !(0x13430 <= r && r <= 0x1343F) &&
			!unicode.Is(unicode.Prepended_Concatenation_Mark, r)
		if !di {
			continue
		}
		n++
		for _, p := range []string{string(r) + "a", "a" + string(r) + "b", "a/b" + string(r)} {
			if _, bad := artifactPathProblem(p); !bad {
				t.Errorf("artifactPathProblem(%q) (U+%04X is Default_Ignorable_Code_Point) accepted", p, r)
			}
		}
	}
	if n < 4000 { // 4,174 in Unicode 15; the tag and variation selector blocks alone are 352
		t.Errorf("derived only %d Default_Ignorable_Code_Point code points; is the derivation right?", n)
	}
}

// TestArtifactPathsRefuseWhatNoFileSystemOrReaderKeeps extends the path rules
// beyond the characters the issues named, by class: a segment longer than a
// file system stores, a code point with no assigned graphic meaning (a future
// Unicode version may make it invisible or normalize it otherwise), a segment
// that starts with a combining mark (it draws onto the slash before it), and a
// symbol that Unicode's confusables data (UTS #39) lists as a lookalike of a
// separator a reader splits on: / \ and :.
func TestArtifactPathsRefuseWhatNoFileSystemOrReaderKeeps(t *testing.T) {
	tests := []struct {
		name string
		path string
		bad  bool
	}{
		{"255-byte segment", strings.Repeat("a", 255), false},
		{"255-byte segment of 3-byte runes", strings.Repeat("\u30d5", 85), false},
		{"256-byte segment", strings.Repeat("a", 256), true},
		{"256-byte segment under a directory", "attempt-1/" + strings.Repeat("b", 252) + ".png", true},
		{"258-byte segment of 3-byte runes", strings.Repeat("\u30d5", 86), true},
		{"private use", "a\ue000b", true},
		{"supplementary private use", "a\U000f0000", true},
		{"unassigned", "a\u0378b", true},
		{"noncharacter U+FFFE", "\ufffe", true},
		{"noncharacter U+FDD0", "a\ufdd0", true},
		{"noncharacter U+10FFFF", "a\U0010ffff", true},
		{"path starting with a combining mark", "\u0301x", true},
		{"segment starting with a combining mark", "a/\u0301b", true},
		{"combining mark after a letter", "x\u0301", false},
		{"segment starting with a space", "a/ b", true},
		{"path starting with a space", " trace.zip", true},
		{"space inside a segment", "a b/c d.png", false},
		{"division slash", "a\u2215b", true},
		{"fraction slash", "a\u2044b", true},
		{"big solidus", "a\u29f8b", true},
		{"box drawing diagonal", "a\u2571b", true},
		{"mathematical rising diagonal", "a\u27cbb", true},
		{"set minus", "a\u2216b", true},
		{"reverse solidus operator", "a\u29f5b", true},
		{"big reverse solidus", "a\u29f9b", true},
		{"ratio", "a\u2236b", true},
		{"armenian full stop", "a\u0589b", true},
		{"two dot punctuation", "a\u205ab", true},
		{"modifier letter colon", "a\ua789b", true},
		{"katakana no, a letter", "\u30ce\u30fc\u30c8.png", false},
		{"greek letters", "\u0391\u0392.png", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, bad := artifactPathProblem(tt.path)
			if bad != tt.bad {
				t.Errorf("artifactPathProblem(%q) = %q, %v; want refused %v", tt.path, msg, bad, tt.bad)
			}
			if bad && len(msg.String()) > 1024 {
				t.Errorf("message is %d bytes", len(msg.String()))
			}
		})
	}
}
