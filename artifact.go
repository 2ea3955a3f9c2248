package automium

import (
	"cmp"
	"context"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
)

// ArtifactKind is a kind of run artifact of the artifact manifest contract; its
// string is the wire form, as in entries[].kind.
type ArtifactKind string

// The artifact kinds, sorted; [ArtifactSpecs] says what each holds.
const (
	ArtifactConsoleLog       ArtifactKind = "console_log"
	ArtifactDOMSnapshot      ArtifactKind = "dom_snapshot"
	ArtifactNetworkHAR       ArtifactKind = "network_har"
	ArtifactReplayEvents     ArtifactKind = "replay_events"
	ArtifactReport           ArtifactKind = "report"
	ArtifactScreenshot       ArtifactKind = "screenshot"
	ArtifactSemanticSnapshot ArtifactKind = "semantic_snapshot"
	ArtifactTrace            ArtifactKind = "trace"
	ArtifactVideo            ArtifactKind = "video"
)

// ArtifactSpec is one kind of run artifact, with the media types an entry of
// that kind may have. Kinds are modelled on what
// Playwright and browser agents record: traces, videos, screenshots, HAR network
// logs, console logs, accessibility snapshots, DOM snapshots, replay event streams
// and reports.
//
// An ArtifactSpec is a plain value, safe to copy and to share between goroutines.
type ArtifactSpec struct {
	Kind             ArtifactKind `json:"kind" jsonschema:"artifact kind, as used in entries[].kind"`
	Description      string       `json:"description" jsonschema:"what the artifact holds"`
	DefaultMediaType string       `json:"defaultMediaType" jsonschema:"media type an entry gets when it names none"`
	MediaTypes       []string     `json:"mediaTypes" jsonschema:"every media type an entry of this kind may declare, sorted"`
}

// artifactKinds is the closed set, sorted by kind, which is also the canonical
// order of kinds in manifests and replay summaries.
var artifactKinds = []ArtifactSpec{
	{Kind: "console_log", Description: "browser console messages of the run", DefaultMediaType: "text/plain", MediaTypes: []string{"application/json", "application/x-ndjson", "text/plain"}},
	{Kind: "dom_snapshot", Description: "serialized DOM of a page at one moment", DefaultMediaType: "text/html", MediaTypes: []string{"application/json", "multipart/related", "text/html"}},
	{Kind: "network_har", Description: "network log in HTTP Archive (HAR) format", DefaultMediaType: "application/json", MediaTypes: []string{"application/json"}},
	{Kind: "replay_events", Description: "the run's replay-event-v1 stream, one event per line", DefaultMediaType: "application/x-ndjson", MediaTypes: []string{"application/json", "application/x-ndjson"}},
	{Kind: "report", Description: "the run's human- or machine-readable report", DefaultMediaType: "application/json", MediaTypes: []string{"application/json", "text/html"}},
	{Kind: "screenshot", Description: "screenshot of a page or element", DefaultMediaType: "image/png", MediaTypes: []string{"image/jpeg", "image/png", "image/webp"}},
	{Kind: "semantic_snapshot", Description: "semantic-snapshot-v1 accessibility snapshot", DefaultMediaType: "application/json", MediaTypes: []string{"application/json"}},
	{Kind: "trace", Description: "Playwright trace archive for the trace viewer", DefaultMediaType: "application/zip", MediaTypes: []string{"application/zip"}},
	{Kind: "video", Description: "screen recording of the run", DefaultMediaType: "video/webm", MediaTypes: []string{"video/mp4", "video/webm"}},
}

var (
	artifactKindNames = func() []string {
		names := make([]string, len(artifactKinds))
		for i, k := range artifactKinds {
			names[i] = string(k.Kind)
		}
		return names
	}()
	artifactKindByName = func() map[ArtifactKind]*ArtifactSpec {
		m := make(map[ArtifactKind]*ArtifactSpec, len(artifactKinds))
		for i := range artifactKinds {
			m[artifactKinds[i].Kind] = &artifactKinds[i]
		}
		return m
	}()
)

var (
	_ = registerTag("automium_artifact_kind", CodeInvalidArtifactKind, "a supported artifact kind", func() []string { return artifactKindNames })
	_ = registerPattern("automium_sha256", `^[0-9a-f]{64}$`, echo.Msg("a sha256 digest written as 64 lowercase hex digits"))
)

// ArtifactKinds returns the closed set of artifact kinds, sorted by kind. The
// result is a copy the caller may keep.
func ArtifactSpecs() []ArtifactSpec {
	out := make([]ArtifactSpec, len(artifactKinds))
	for i, k := range artifactKinds {
		out[i] = k
		out[i].MediaTypes = slices.Clone(k.MediaTypes)
	}
	return out
}

// ArtifactEntry is one artifact of a run: its kind, its path relative to the
// manifest root and, when known, its media type, size and sha256. In a manifest
// the media type is always set.
type ArtifactEntry struct {
	Kind      ArtifactKind `json:"kind" jsonschema:"artifact kind" validate:"required,automium_artifact_kind"`
	Path      string       `json:"path" jsonschema:"e.g. attempt-1/trace.zip, safe on POSIX, Windows and in URLs; segments separated by /, none empty, . or .., none ending in a dot or space; no backslashes, colons or <>\"|?*#%; also no control or invisible format characters, no characters Unicode NFKC changes, and no Windows device names (CON, aux.txt, COM1)" validate:"required,max_path_length,automium_artifact_path"`
	MediaType string       `json:"mediaType,omitempty" jsonschema:"media type; defaults to the kind's default and must be one the kind allows" validate:"omitempty,max=128"`
	Size      *int64       `json:"size,omitempty" jsonschema:"bytes, when known; 0 is an empty file" validate:"omitempty,min=0,max_artifact_size_bytes"`
	SHA256    string       `json:"sha256,omitempty" jsonschema:"when known" validate:"omitempty,automium_sha256"`
}

// GetArtifactManifestInput describes a run's artifacts as the caller knows them.
type GetArtifactManifestInput struct {
	RunID   string          `json:"runId" jsonschema:"run ID from CreateRunSubmission" validate:"required,automium_run_id"`
	Root    string          `json:"root" jsonschema:"e.g. the fixture's artifactRoot; the same rules as an entry path" validate:"required,max_path_length,automium_artifact_path"`
	Entries []ArtifactEntry `json:"entries" jsonschema:"unique paths, 1 to 256" validate:"required,min=1,max_artifact_entries,dive"`
	Replay  *ReplayOutcome  `json:"replay,omitempty" jsonschema:"checks the kinds such a run requires"`
}

// ReplayOutcome is how a run ended, as far as the artifacts it must leave depend
// on it: its verdict and its retry count, with the rules of [GetReplaySummary].
type ReplayOutcome struct {
	Verdict    Verdict `json:"verdict" jsonschema:"Playwright's verdict" validate:"required,automium_verdict"`
	RetryCount int     `json:"retryCount,omitempty" jsonschema:"retries after the first attempt, 0 to 10; flaky needs at least 1, passed and skipped need 0" validate:"min=0,max_retry_count"`
}

// ManifestCompleteness says whether a manifest holds every artifact kind the
// replay contract requires of its run, and which kinds are missing. It is
// modeled like the rest: it compares kinds named in the input, and no file is
// looked for.
type ManifestCompleteness struct {
	Verdict       Verdict        `json:"verdict" jsonschema:"the run verdict checked against"`
	RetryCount    int            `json:"retryCount" jsonschema:"the retry count checked against"`
	RequiredKinds []ArtifactKind `json:"requiredKinds" jsonschema:"the artifact kinds such a run must record, sorted"`
	MissingKinds  []ArtifactKind `json:"missingKinds" jsonschema:"the required kinds no entry has, sorted; empty when complete"`
	Complete      bool           `json:"complete" jsonschema:"whether every required kind has at least one entry"`
}

// GetArtifactManifestResult is an artifact manifest in canonical form: entries
// sorted by kind then path, every media type filled in, and a digest over the rest,
// so two manifests describe the same artifacts exactly when their digests agree.
type GetArtifactManifestResult struct {
	SchemaVersion       string                `json:"schemaVersion" jsonschema:"artifact manifest format version"`
	RunID               string                `json:"runId" jsonschema:"run ID"`
	ArtifactManifestRef string                `json:"artifactManifestRef" jsonschema:"artifact-manifest://<runId>, as returned by CreateRunSubmission"`
	Root                string                `json:"root" jsonschema:"artifact root the entry paths are relative to"`
	Entries             []ArtifactEntry       `json:"entries" jsonschema:"the artifacts, sorted by kind then path, with media types filled in"`
	Completeness        *ManifestCompleteness `json:"completeness,omitempty" jsonschema:"when the input gave the run's replay outcome: whether the manifest holds every artifact kind the replay contract requires"`
	Modeled             bool                  `json:"modeled" jsonschema:"always true: the manifest was built from the input; no file was read, written or uploaded"`
	Notice              string                `json:"notice" jsonschema:"one-line statement that nothing was read, written or fetched"`
	Digest              string                `json:"digest" jsonschema:"sha256: and the lowercase hex SHA-256 of the RFC 8785 form of this manifest object with digest set to \"\" (docs/digests.md)"`
}

// GetArtifactManifest checks caller-provided artifact entries and returns them as
// a canonical manifest. It reads, writes and uploads nothing: the paths are only
// names, and sizes and digests are taken on trust.
//
// The root and every entry path must be a relative path that stays under the
// root however it is read: as a POSIX path, a Windows path and a URL path (see
// artifact_path.go for every rule). Entry paths must be unique, also when case is
// ignored, as Windows and macOS ignore it. Each violation is an
// invalid_artifact_path error whose field names the entry, as in entries[3].path.
// Entry and path counts are checked against [MaxArtifactEntries] and
// [MaxPathLength] before anything else, and every problem found is returned.
//
// With in.Replay, the result also says whether the manifest is complete: which
// of the artifact kinds [RequiredReplayArtifactKinds] gives for that verdict and
// retry count no entry has. A failed run that left only its report is then
// visibly incomplete instead of silently accepted.
func GetArtifactManifest(ctx context.Context, in GetArtifactManifestInput) (GetArtifactManifestResult, error) {
	if err := checkContext(ctx); err != nil {
		return GetArtifactManifestResult{}, err
	}
	if err := artifactManifestProblems(in); err != nil {
		return GetArtifactManifestResult{}, err
	}
	// Entries are ordered by kind, then path (unique, so the order is total).
	entries := make([]ArtifactEntry, len(in.Entries))
	for i, e := range in.Entries {
		entries[i] = e
		if e.Size != nil {
			size := *e.Size
			entries[i].Size = &size
		}
		if e.MediaType == "" {
			entries[i].MediaType = artifactKindByName[e.Kind].DefaultMediaType
		}
	}
	slices.SortFunc(entries, func(a, b ArtifactEntry) int {
		if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	m := GetArtifactManifestResult{
		SchemaVersion:       ArtifactManifestVersion,
		RunID:               in.RunID,
		ArtifactManifestRef: ArtifactManifestRefScheme + in.RunID,
		Root:                in.Root,
		Entries:             entries,
		Modeled:             true,
		Notice:              ModeledNotice,
	}
	if in.Replay != nil {
		m.Completeness = completeness(*in.Replay, entries)
	}
	digest, err := digestOf(m)
	if err != nil {
		return GetArtifactManifestResult{}, internalError("computing the digest of a manifest")
	}
	m.Digest = digest
	return m, nil
}

// completeness checks the entries against the kinds the replay contract
// requires of a run with that outcome.
func completeness(outcome ReplayOutcome, entries []ArtifactEntry) *ManifestCompleteness {
	required := requiredReplayArtifactKinds(outcome.Verdict, outcome.RetryCount)
	missing := []ArtifactKind{}
	for _, kind := range required {
		if !slices.ContainsFunc(entries, func(e ArtifactEntry) bool { return e.Kind == kind }) {
			missing = append(missing, kind)
		}
	}
	return &ManifestCompleteness{Verdict: outcome.Verdict, RetryCount: outcome.RetryCount,
		RequiredKinds: required, MissingKinds: missing, Complete: len(missing) == 0}
}

// artifactManifestProblems returns every problem with in, after the size checks
// that keep a hostile manifest cheap to reject.
func artifactManifestProblems(in GetArtifactManifestInput) error {
	ps := newProblems(in)
	if len(in.Entries) > limit.MaxArtifactEntries {
		ps.add(field("entries"), CodeLimitExceeded, nil, "has %d entries; the limit is %d", len(in.Entries), limit.MaxArtifactEntries)
		return ps.err()
	}
	// Lengths are in characters, as the schema's maxLength counts them; the
	// byte length bounds the count, so most paths skip counting.
	tooLong := func(at Path, p string) {
		if len(p) > limit.MaxPathLength && utf8.RuneCountInString(p) > limit.MaxPathLength {
			ps.add(at, CodeLimitExceeded, nil, "is %d characters long; the limit is %d", utf8.RuneCountInString(p), limit.MaxPathLength)
		}
	}
	tooLong(field("root"), in.Root)
	for i, e := range in.Entries {
		tooLong(field("entries").at(i).dot("path"), e.Path)
	}
	if err := ps.err(); err != nil {
		return err
	}
	// The path rules say more than the generic rules (invalid UTF-8, say), so
	// paths are checked by them alone.
	rootAt, pathsAt := field("root"), field("entries").at(anyIndex).dot("path")
	ps.validate(in, rootAt, pathsAt)
	pathProblem := func(at Path, owner reflect.Type, name, p string) bool {
		if p != "" {
			if msg, bad := artifactPathProblem(p); bad {
				ps.add(at, CodeInvalidArtifactPath, nil, "%s", msg)
				return true
			}
		}
		return !ps.checkField(at, owner, name, p)
	}
	pathProblem(rootAt, reflect.TypeOf(in), "root", in.Root)
	seen := make(map[string]int, len(in.Entries))
	for i, e := range in.Entries {
		at := field("entries").at(i)
		if !pathProblem(at.dot("path"), reflect.TypeOf(e), "path", e.Path) {
			if j, dup := seen[pathKey(e.Path)]; dup {
				ps.add(at.dot("path"), CodeInvalidArtifactPath, nil, "%s is the path of entries[%d] on a case-insensitive file system such as Windows' or macOS's; every artifact needs its own path", echo.Value(e.Path), j)
			} else {
				seen[pathKey(e.Path)] = i
			}
		}
		kind, known := artifactKindByName[e.Kind]
		if known && e.MediaType != "" && !ps.has(at.dot("mediaType")) && !slices.Contains(kind.MediaTypes, e.MediaType) {
			ps.add(at.dot("mediaType"), CodeInvalidArgument, kind.MediaTypes,
				"%s is not a media type of %s artifacts; use one of the allowed values or omit it for %s", echo.Value(e.MediaType), e.Kind, kind.DefaultMediaType)
		}
	}
	if in.Replay != nil {
		verdictRetryProblems(ps, field("replay").dot("verdict"), field("replay").dot("retryCount"), in.Replay.Verdict, in.Replay.RetryCount)
	}
	return ps.err()
}
