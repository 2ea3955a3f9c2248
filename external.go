package automium

import (
	"slices"
	"strings"

	"github.com/automium/automium/internal/echo"
)

// ExternalPrefix starts the ID of an app, or of a fixture, outside the owned
// corpus: a team's own app, such as ext:acme-notes. The corpus is the
// benchmark's; a team's app is not, and the prefix keeps the two apart: no
// typo of a corpus ID has a colon, so a misspelled corpus ID is still
// invalid_app_id, and nothing outside the corpus passes for part of it. See
// docs/external-apps.md.
const ExternalPrefix = "ext:"

// The checks the corpus makes and an external app cannot have, as answers
// name them in notChecked (docs/external-apps.md).
const (
	// NotCheckedCapabilities: an external app lists no capabilities, so any
	// intent of the vocabulary is accepted for it.
	NotCheckedCapabilities = "capabilities"
	// NotCheckedFixtureFiles: an external fixture lists no files, so an
	// upload_file reference is checked for its form only.
	NotCheckedFixtureFiles = "fixtureFiles"
	// NotCheckedFixtureOfApp: that an external fixture belongs to its
	// external app is the caller's word.
	NotCheckedFixtureOfApp = "fixtureOfApp"
)

// externalPattern is the form of an external ID as the schemas advertise it
// for a field that takes a corpus ID or an external one: lowercase letters,
// digits and hyphens, optionally after ext:. It is short because every agent
// session pays for it (docs/catalog.md); validation is stricter (no hyphen at
// either end or twice in a row, and a value without the prefix must be in
// the corpus), and says so in its problem.
const externalPattern = `^(ext:)?[a-z0-9-]+$`

// isExternal reports whether id is written as an external ID, well formed or
// not: it starts with ext: in any case, so that EXT:acme is told what is
// wrong with it rather than that it is no corpus app.
func isExternal(id string) bool {
	return len(id) >= len(ExternalPrefix) && strings.EqualFold(id[:len(ExternalPrefix)], ExternalPrefix)
}

// externalProblem explains what keeps id, written as an external ID, from
// being one, and reports whether anything does. corpus is the corpus's IDs of
// the same kind. The name after ext: is a lowercase kebab-case slug, the
// corpus's own form: ASCII letters and digits in runs joined by single
// hyphens, so it is one token in a URL path, a Windows or POSIX file name
// part and Markdown, with nothing to escape and no case to fold. The
// prefix is lowercase (EXT: and Ext: are refused, not folded: an ID is
// compared byte for byte everywhere, so two spellings would be two apps),
// and the name is not a corpus ID, which is that app, not one of the team's.
func externalProblem(id string, corpus []string) (echo.Message, bool) {
	name := id[len(ExternalPrefix):]
	const form = "ext: and a lowercase name of letters, digits and single hyphens, such as ext:acme-notes"
	switch {
	case !strings.HasPrefix(id, ExternalPrefix):
		return echo.Msg("%s starts with %s; write the prefix in lowercase: %s", echo.Value(id), echo.Value(id[:len(ExternalPrefix)]), form), true
	case name == "":
		return echo.Msg("%s has no name after the prefix; use %s", echo.Value(id), form), true
	case slices.Contains(corpus, name):
		return echo.Msg("%s is the corpus's %s; an ID outside the corpus is not a corpus ID: use %s without the prefix, or give yours another name", echo.Value(id), name, name), true
	case !kebab(name):
		return echo.Msg("%s is not valid; use %s", echo.Value(id), form), true
	}
	return echo.Message{}, false
}

// kebab reports whether s is a lowercase kebab-case slug: runs of a-z and 0-9
// joined by single hyphens.
func kebab(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && s[i-1] != '-':
		default:
			return false
		}
	}
	return true
}

// externalIDs returns the IDs of ids that are external, sorted and once each:
// what an answer that names apps says in externalAppIds. ids are valid IDs,
// so at most as many as the answer names.
func externalIDs(ids ...string) []string {
	var out []string
	for _, id := range ids {
		if isExternal(id) && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}
